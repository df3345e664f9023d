#include "PTXEmitter.h"
#include "DirectTranslation.h"
#include "LibdeviceInHouse.h"
#include "PassSkips.h"
#include "PassTimes.h"
#include "PtxClone.h"
#include "ValueMajorOrder.h"
#include "../support/Timing.h"
#include "../target/Target.h"

#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/FunctionComparator.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <map>
#include <cstdlib>
#include <mutex>
#include <sys/stat.h>

using namespace mlir;

namespace megac {
namespace {

void initNVPTX() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
}

bool exists(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0;
}

// The bytes of libdevice at `path`, read once for every thread and kept;
// null if it cannot be read.
const llvm::MemoryBuffer *libdeviceBytes(const std::string &path) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<llvm::MemoryBuffer>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::unique_ptr<llvm::MemoryBuffer> &slot = loaded[path];
  if (!slot) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer)
      return nullptr;
    slot = std::move(*buffer);
  }
  return slot.get();
}

// Links only the libdevice functions the kernel calls, then internalizes
// them so that the optimizer inlines and drops the rest.
LogicalResult linkLibdevice(llvm::Module &module, const std::string &path,
                            Location loc) {
  bool needed = false;
  for (llvm::Function &f : module)
    if (f.isDeclaration() && f.getName().starts_with("__nv_"))
      needed = true;
  if (!needed)
    return success();
  if (path.empty())
    return emitError(loc, "the kernel calls libdevice math but libdevice.10.bc "
                          "was not found; set MEGAC_LIBDEVICE or CUDA_HOME");
  // libdevice holds ~350 functions and a kernel calls a few: load it lazily,
  // so that linking materializes only those (parsing it all costs more than
  // the rest of the compilation).
  const llvm::MemoryBuffer *bytes = libdeviceBytes(path);
  if (!bytes)
    return emitError(loc, "cannot read libdevice '") << path << "'";
  auto lib = llvm::getLazyBitcodeModule(bytes->getMemBufferRef(),
                                        module.getContext());
  if (!lib) {
    llvm::consumeError(lib.takeError());
    return emitError(loc, "cannot parse libdevice '") << path << "'";
  }
  (*lib)->setTargetTriple(module.getTargetTriple());
  (*lib)->setDataLayout(module.getDataLayout());
  if (llvm::Linker::linkModules(module, std::move(*lib),
                                llvm::Linker::Flags::LinkOnlyNeeded))
    return emitError(loc, "linking libdevice failed");
  for (llvm::Function &f : module)
    if (!f.isDeclaration() && f.getName().starts_with("__nv_"))
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
  return success();
}

// Variants of a kernel (another maxnreg or min CTAs per SM) are the same
// function under another name with other "nvvm.maxnreg" / "nvvm.minctasm"
// attributes, which only the PTX directives read. The optimizer runs once, on
// the first of them; the others are removed before it and cloned from its
// result after it, then compiled to PTX each.
const char *const kVariantAttrs[] = {"nvvm.maxnreg", "nvvm.minctasm"};

struct Variant {
  std::string name;      // the removed kernel
  std::string of;        // the kernel it is a copy of
  std::string next;      // the kernel that followed it, to keep PTX's order
  llvm::AttributeList attrs;
};

bool isKernel(const llvm::Function &f) {
  return !f.isDeclaration() && f.getCallingConv() == llvm::CallingConv::PTX_Kernel;
}

llvm::AttributeList withoutVariantAttrs(llvm::LLVMContext &ctx,
                                        llvm::AttributeList a) {
  for (const char *kind : kVariantAttrs)
    a = a.removeFnAttribute(ctx, kind);
  return a;
}

std::vector<Variant> removeVariants(llvm::Module &module) {
  std::vector<llvm::Function *> kernels;
  for (llvm::Function &f : module)
    if (isKernel(f))
      kernels.push_back(&f);
  std::vector<Variant> out;
  if (kernels.size() < 2)
    return out;
  llvm::LLVMContext &ctx = module.getContext();
  std::vector<bool> removed(kernels.size());
  for (size_t j = 1; j < kernels.size(); ++j) {
    llvm::Function *b = kernels[j];
    for (size_t i = 0; i < j; ++i) {
      llvm::Function *a = kernels[i];
      if (removed[i] || a->getFunctionType() != b->getFunctionType() ||
          a->size() != b->size() ||
          a->getInstructionCount() != b->getInstructionCount())
        continue;
      // Compare with the variant attributes set alike, then restore them.
      llvm::AttributeList aAttrs = a->getAttributes(), bAttrs = b->getAttributes();
      a->setAttributes(withoutVariantAttrs(ctx, aAttrs));
      b->setAttributes(withoutVariantAttrs(ctx, bAttrs));
      llvm::GlobalNumberState numbers;
      bool same = llvm::FunctionComparator(a, b, &numbers).compare() == 0;
      a->setAttributes(aAttrs);
      b->setAttributes(bAttrs);
      if (!same)
        continue;
      Variant v;
      v.name = b->getName().str();
      v.of = a->getName().str();
      for (size_t k = j + 1; k < kernels.size() && v.next.empty(); ++k)
        if (!removed[k])
          v.next = kernels[k]->getName().str();
      v.attrs = bAttrs;
      removed[j] = true;
      out.push_back(std::move(v));
      break;
    }
  }
  for (const Variant &v : out)
    module.getFunction(v.name)->eraseFromParent();
  // In the order they are put back (cloneVariants, addPtxCopies): a variant's
  // `next` may be a variant removed after it (two copies of one kernel),
  // which must be back first.
  std::reverse(out.begin(), out.end());
  return out;
}

bool usesGlobals(const llvm::Function &f) {
  for (const llvm::BasicBlock &block : f)
    for (const llvm::Instruction &inst : block)
      for (const llvm::Value *operand : inst.operands())
        if (llvm::isa<llvm::GlobalVariable>(operand->stripPointerCasts()))
          return true;
  return false;
}

// A variant attribute's value ("nvvm.maxnreg", "nvvm.minctasm"); 0 if unset.
unsigned fnAttrInt(const llvm::AttributeList &attrs, const char *kind) {
  if (!attrs.hasFnAttr(kind))
    return 0;
  unsigned value = 0;
  attrs.getFnAttr(kind).getValueAsString().getAsInteger(10, value);
  return value;
}

void cloneVariants(llvm::Module &module, const std::vector<Variant> &variants) {
  llvm::LLVMContext &ctx = module.getContext();
  for (const Variant &v : variants) {
    llvm::Function *of = module.getFunction(v.of);
    llvm::ValueToValueMapTy map;
    llvm::Function *copy = llvm::CloneFunction(of, map);
    copy->setName(v.name);
    // The optimized function's attributes, with the variant's own.
    llvm::AttributeList attrs = withoutVariantAttrs(ctx, of->getAttributes());
    for (const char *kind : kVariantAttrs)
      if (v.attrs.hasFnAttr(kind))
        attrs = attrs.addFnAttribute(ctx, v.attrs.getFnAttr(kind));
    copy->setAttributes(attrs);
    copy->removeFromParent();
    // Before the kernel that followed it, or, where it was the last kernel,
    // after the last kernel (not after `of`: other kernels may follow that).
    llvm::Module::iterator at;
    if (llvm::Function *next = v.next.empty() ? nullptr : module.getFunction(v.next)) {
      at = next->getIterator();
    } else {
      llvm::Function *last = of;
      for (llvm::Function &f : module)
        if (isKernel(f))
          last = &f;
      at = std::next(last->getIterator());
    }
    module.getFunctionList().insert(at, copy);
  }
}

} // namespace

std::string findLibdevice() {
  if (const char *env = std::getenv("MEGAC_LIBDEVICE"))
    return exists(env) ? env : "";
  std::vector<std::string> roots;
  if (const char *home = std::getenv("CUDA_HOME"))
    roots.push_back(home);
  roots.push_back("/usr/local/cuda");
  for (const std::string &root : roots) {
    std::string p = root + "/nvvm/libdevice/libdevice.10.bc";
    if (exists(p))
      return p;
  }
  return "";
}

void registerTranslationDialects(DialectRegistry &registry) {
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

namespace {

std::unique_ptr<llvm::TargetMachine> makeMachine(const Target &target, std::string &error) {
  llvm::Triple triple("nvptx64-nvidia-cuda");
  const llvm::Target *llvmTarget = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return nullptr;
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.name, target.ptxFeature, options, llvm::Reloc::PIC_,
      // The IR is already optimized at O3: the Aggressive codegen level adds
      // two GVN runs that cost a third of the compile and change no kernel's
      // registers or spills.
      std::nullopt, llvm::CodeGenOptLevel::Default));
  if (!machine)
    error = "cannot create an NVPTX target machine for " + target.name;
  return machine;
}

std::string printed(const llvm::Module &module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

// The LLVM dialect module in LLVM IR: megac's direct translation, MLIR's
// where it declines (DirectTranslation.h). MEGAC_DIRECT_TO_LLVM=none: MLIR's
// always; =check: MLIR's too, an error if the two print differently and a
// remark if the direct one declines, the compile otherwise as without it
// (ctest direct_to_llvm_identity, lit codegen/direct-translation.mega).
FailureOr<std::unique_ptr<llvm::Module>> translate(ModuleOp module, llvm::LLVMContext &context,
                                                   Location loc) {
  const char *env = std::getenv("MEGAC_DIRECT_TO_LLVM");
  std::string mode = env ? env : "";
  std::unique_ptr<llvm::Module> direct;
  if (mode != "none")
    direct = translateDirectly(module, context);
  if (direct && mode != "check")
    return direct;
  // Verified once, after libdevice is linked (the translation's own
  // verification walked the same module again: ~1 ms of attention's 32-row
  // variant).
  std::unique_ptr<llvm::Module> viaMLIR =
      translateModuleToLLVMIR(module, context, "megac", /*disableVerification=*/true);
  if (!viaMLIR)
    return emitError(loc, "translation to LLVM IR failed");
  if (mode == "check" && !direct)
    emitRemark(loc, "MEGAC_DIRECT_TO_LLVM=check: the direct translation declined this module "
                    "(an op or attribute it does not know); MLIR's translated it");
  if (!direct)
    return viaMLIR;
  if (printed(*direct) != printed(*viaMLIR))
    return emitError(loc, "internal: the direct translation to LLVM IR differs from MLIR's "
                          "(MEGAC_DIRECT_TO_LLVM=check)");
  return direct;
}

// What code generation skips (PassSkips.h): the runs `keys` names on every
// function, `largeKeys` on the functions `large` names, and SLSR on `noSlsr`.
struct CodegenSkips {
  llvm::StringSet<> keys, largeKeys, large, noSlsr;
};

// NVPTX's assembly for `module` at `level`.
FailureOr<std::string> emitAssembly(llvm::Module &module, llvm::TargetMachine &machine,
                                    llvm::CodeGenOptLevel level, const CodegenSkips &skips,
                                    Location loc) {
  PassSkips gateSkips("cg", skips.keys);
  gateSkips.alsoOnLarge(skips.largeKeys, skips.large);
  gateSkips.alsoSkipPass("slsr", skips.noSlsr);
  LegacyPassGate gate(gateSkips);
  machine.setOptLevel(level);
  llvm::SmallString<0> ptx;
  llvm::raw_svector_ostream os(ptx);
  llvm::legacy::PassManager pm;
  if (machine.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile))
    return emitError(loc, "NVPTX cannot emit assembly");
  module.getContext().setOptPassGate(gate);
  pm.run(module);
  module.getContext().setOptPassGate(llvm::getGlobalPassGate());
  return ptx.str().str();
}

// kMachineOptMaxInstructions, or $MEGAC_MACHINE_OPT_MAX (for A/B probes and
// tests: a large value keeps every kernel at Default).
unsigned machineOptMaxInstructions() {
  static const unsigned value = [] {
    const char *env = std::getenv("MEGAC_MACHINE_OPT_MAX");
    return env ? unsigned(std::strtoul(env, nullptr, 10)) : kMachineOptMaxInstructions;
  }();
  return value;
}

// The skips of code generation at CodeGenOptLevel::None: none. The lists
// name runs of the Default pipeline (PassSkips.h), and None runs neither
// those nor SLSR.
const CodegenSkips kNoSkips;

// Erases what nothing in `module` uses any more: function declarations and
// internal functions, and globals (a kernel's shared buffers), until none is
// left, so that NVPTX prints what a module of the remaining kernels alone
// would hold.
void eraseUnused(llvm::Module &module) {
  for (bool erased = true; erased;) {
    erased = false;
    // A global's uses include constant expressions left over from the
    // erased kernels: dead, but uses until removed.
    for (llvm::Function &f : llvm::make_early_inc_range(module)) {
      f.removeDeadConstantUsers();
      if (f.use_empty() && !isKernel(f) && (f.isDeclaration() || f.hasLocalLinkage())) {
        f.eraseFromParent();
        erased = true;
      }
    }
    for (llvm::GlobalVariable &g : llvm::make_early_inc_range(module.globals())) {
      g.removeDeadConstantUsers();
      if (g.use_empty()) {
        g.eraseFromParent();
        erased = true;
      }
    }
  }
}

// `module`'s PTX, each kernel generated at its level (kMachineOptMaxInstructions):
// the kernels past it at CodeGenOptLevel::None, the others at Default. A
// module of both is split in two (the large kernels move to a module of
// their own) and the two PTX texts merged as the PTX of thread groups are
// (PtxClone.h), so that a kernel's PTX does not depend on which kernels
// share its module (a compile on one thread, --emit llvm-ir).
FailureOr<std::string> emitByOptLevel(llvm::Module &module, llvm::TargetMachine &machine,
                                      const CodegenSkips &skips, Location loc) {
  llvm::StringSet<> atNone = functionsOver(module, machineOptMaxInstructions());
  std::vector<std::string> entryOrder, globalOrder;
  size_t kernels = 0, kernelsAtNone = 0;
  for (llvm::Function &f : module)
    if (isKernel(f)) {
      entryOrder.push_back(f.getName().str());
      ++kernels;
      kernelsAtNone += atNone.contains(f.getName());
    }
  if (kernelsAtNone == 0)
    return emitAssembly(module, machine, llvm::CodeGenOptLevel::Default, skips, loc);
  if (kernelsAtNone == kernels)
    return emitAssembly(module, machine, llvm::CodeGenOptLevel::None, kNoSkips, loc);
  for (const llvm::GlobalVariable &g : module.globals())
    globalOrder.push_back(g.getName().str());
  // The other kernels are cloned as declarations, which eraseUnused drops.
  llvm::ValueToValueMapTy map;
  std::unique_ptr<llvm::Module> partAtNone =
      llvm::CloneModule(module, map, [&](const llvm::GlobalValue *gv) {
        auto *f = llvm::dyn_cast<llvm::Function>(gv);
        return !f || !isKernel(*f) || atNone.contains(f->getName());
      });
  for (llvm::Function &f : llvm::make_early_inc_range(module))
    if (isKernel(f) && atNone.contains(f.getName()))
      f.eraseFromParent();
  eraseUnused(*partAtNone);
  eraseUnused(module);
  FailureOr<std::string> ptxAtDefault =
      emitAssembly(module, machine, llvm::CodeGenOptLevel::Default, skips, loc);
  if (failed(ptxAtDefault))
    return failure();
  FailureOr<std::string> ptxAtNone =
      emitAssembly(*partAtNone, machine, llvm::CodeGenOptLevel::None, kNoSkips, loc);
  if (failed(ptxAtNone))
    return failure();
  std::string merged = mergePtxModules({*ptxAtDefault, *ptxAtNone}, entryOrder, globalOrder);
  if (merged.empty())
    return emitError(loc, "internal: merging the PTX of a module's kernels generated at two "
                          "optimization levels failed");
  return merged;
}

// O3, the variants that are compiled as clones of their kernel, the
// value-major order and NVPTX: `module`'s PTX (and optimized IR, when kept)
// into `out`, with the time of the two phases.
LogicalResult optimizeAndEmit(llvm::Module &module, llvm::TargetMachine &machine,
                              const std::vector<Variant> &clones, bool keepIR, Location loc,
                              PTXOutput &out) {
  auto t0 = Clock::now();
  // Both pipelines skip the runs PassSkips.h names (read once), and more on
  // the functions that are large as O3 gets them: those that change nothing
  // there and those skipped for their cost.
  llvm::StringSet<> skipKeys = PassSkips::keysFromEnvironment();
  llvm::StringSet<> largeKeys = PassSkips::largeKeysFromEnvironment();
  for (const auto &key : PassSkips::costlyKeysFromEnvironment())
    largeKeys.insert(key.getKey());
  llvm::StringSet<> large = largeFunctions(module);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  PassSkips optSkips("opt", skipKeys);
  optSkips.alsoOnLarge(largeKeys, large);
  llvm::PassInstrumentationCallbacks pic;
  optSkips.registerOn(pic);
  PassTimes passTimes(pic); // both pipelines, printed on return
  llvm::PassBuilder pb(&machine, llvm::PipelineTuningOptions(), std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(module, mam);
  out.optimizeMs = msSince(t0);

  auto t1 = Clock::now();
  cloneVariants(module, clones);
  for (llvm::Function &f : module) {
    if (!f.hasFnAttribute(kValueMajorAttr))
      continue;
    orderValueMajor(f);
    if (llvm::verifyFunction(f, &llvm::errs()))
      return emitError(loc, "internal: the value-major order of '")
             << f.getName().str() << "' failed LLVM's verifier";
  }
  if (keepIR)
    out.llvmIR = printed(module);
  for (const Variant &v : clones)
    if (large.contains(v.of))
      large.insert(v.name);
  CodegenSkips skips{std::move(skipKeys), std::move(largeKeys), std::move(large),
                     // SLSR for its cost (PassSkips.h), on the functions as they are now.
                     functionsOver(module, kSlsrMaxInstructions)};
  FailureOr<std::string> ptx = emitByOptLevel(module, machine, skips, loc);
  if (failed(ptx))
    return failure();
  out.ptx = std::move(*ptx);
  out.codegenMs = msSince(t1);
  return success();
}

} // namespace

FailureOr<PTXOutput> emitPTX(ModuleOp module, const Target &target,
                             const std::string &libdevicePath, bool keepIR) {
  initNVPTX();
  PTXOutput out;
  auto start = Clock::now();
  Location loc = module.getLoc();
  llvm::LLVMContext llvmContext;
  FailureOr<std::unique_ptr<llvm::Module>> translated = translate(module, llvmContext, loc);
  if (failed(translated))
    return failure();
  std::unique_ptr<llvm::Module> llvmModule = std::move(*translated);

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine = makeMachine(target, error);
  if (!machine)
    return emitError(loc, "NVPTX backend unavailable: ") << error;
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  // libdevice asks __nvvm_reflect whether denormals flush: they do not, as in
  // CUDA C++ without fast math, so results match PyTorch's kernels.
  llvmModule->addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz",
                            uint32_t(0));

  defineLibdeviceInHouse(*llvmModule);
  if (failed(linkLibdevice(*llvmModule, libdevicePath, loc)))
    return failure();
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return emitError(loc, "internal: LLVM IR failed verification");

  std::vector<Variant> variants = removeVariants(*llvmModule);
  // Variants are copied as PTX text (PtxClone.h), not compiled again, unless
  // the IR is kept (it shows them as functions) or their kernel uses a module
  // global (shared memory), which NVPTX prints differently for two users.
  bool copyText = !variants.empty() && !keepIR;
  for (const Variant &v : variants)
    copyText = copyText && !usesGlobals(*llvmModule->getFunction(v.of));
  std::vector<Variant> clones = copyText ? std::vector<Variant>{} : variants;

  out.translateMs = msSince(start);

  if (failed(optimizeAndEmit(*llvmModule, *machine, clones, keepIR, loc, out)))
    return failure();

  auto t1 = Clock::now();
  if (copyText) {
    std::vector<PtxCopy> copies;
    for (const Variant &v : variants)
      copies.push_back({v.name, v.of, v.next, fnAttrInt(v.attrs, "nvvm.minctasm"),
                        fnAttrInt(v.attrs, "nvvm.maxnreg")});
    out.ptx = addPtxCopies(out.ptx, copies);
    if (out.ptx.empty())
      return emitError(loc, "internal: copying the PTX of a kernel's variants failed");
  }
  out.codegenMs += msSince(t1);
  return out;
}

} // namespace megac
