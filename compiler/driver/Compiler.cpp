#include "Compiler.h"
#include "KernelThreads.h"
#include "LayoutReport.h"
#include "AccessBounds.h"
#include "ManifestBuilder.h"
#include "RuntimeCheck.h"
#include "SourceLoc.h"
#include "TileWarnings.h"
#include "VariantSpecialization.h"

#include "../codegen/PTXEmitter.h"
#include "../conversion/TileToLLVM.h"
#include "../irgen/IRGen.h"
#include "../support/HeldDiagnostics.h"
#include "../support/Timing.h"
#include "../target/Target.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/Transforms/Passes.h"
#include "frontend/ASTPrinter.h"
#include "frontend/Frontend.h"
#include "megac/runtime/bundle.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

using namespace mlir;

namespace megac {
namespace {

std::string print(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  op->print(os);
  return s;
}

// FNV-1a: a stable fingerprint of the source for the manifest.
std::string hashSource(const std::string &text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  snprintf(buf, sizeof buf, "%016llx", (unsigned long long)h);
  return buf;
}

std::string baseName(const std::string &path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  return name.substr(0, name.find('.'));
}

} // namespace

// An MLIR diagnostic as the frontend's engine takes it.
struct BridgedDiagnostic {
  DiagnosticSeverity severity;
  fe::SourceRange range;
  std::string message, hint;
  std::vector<std::pair<fe::SourceRange, std::string>> notes;
};

// A target's diagnostics while the targets compile side by side
// (HeldDiagnostics.h); the lowering's threads add to it together.
struct HeldDiagnostics {
  std::mutex mutex;
  std::vector<BridgedDiagnostic> items;
};

namespace {

// MLIR diagnostics carry file:line:col; the frontend's engine prints them
// with the source line and a caret, like every other user error. Those of a
// thread that compiles one of several targets are held (HeldDiagnostics.h)
// until replay() puts them out in the targets' order.
class DiagnosticBridge {
public:
  DiagnosticBridge(MLIRContext &ctx, const fe::SourceManager &sm, fe::DiagnosticEngine &diags)
      : sm(sm), diags(diags), handler(&ctx, [this](Diagnostic &d) {
          BridgedDiagnostic bridged = bridge(d);
          if (HeldDiagnostics *held = heldDiagnostics()) {
            std::lock_guard<std::mutex> lock(held->mutex);
            held->items.push_back(std::move(bridged));
          } else {
            emit(bridged);
          }
          return success();
        }) {}

  void replay(HeldDiagnostics &held) {
    for (const BridgedDiagnostic &d : held.items)
      emit(d);
    held.items.clear();
  }

private:
  BridgedDiagnostic bridge(Diagnostic &d) const {
    BridgedDiagnostic out;
    out.severity = d.getSeverity();
    if (auto flc = dyn_cast<FileLineColLoc>(sourceLoc(d.getLocation())))
      out.range = locate(flc);
    out.message = d.str();
    // Ops of a variant name it (IRGen): the same line may compile
    // under several variants' constants and warps.
    if (auto variant = dyn_cast<NameLoc>(d.getLocation()))
      out.message = "in " + variant.getName().str() + ": " + out.message;
    // A note starting "hint: " is the hint; the others print as notes.
    for (Diagnostic &note : d.getNotes()) {
      std::string text = note.str();
      if (StringRef(text).starts_with(tile::kHintPrefix)) {
        out.hint = text.substr(std::strlen(tile::kHintPrefix));
        continue;
      }
      fe::SourceRange at;
      if (auto flc = dyn_cast<FileLineColLoc>(sourceLoc(note.getLocation())))
        at = locate(flc);
      out.notes.push_back({at, text});
    }
    return out;
  }

  void emit(const BridgedDiagnostic &d) {
    if (d.severity == DiagnosticSeverity::Error)
      diags.error(d.range, d.message, d.hint);
    else if (d.severity == DiagnosticSeverity::Warning)
      diags.warning(d.range, d.message, d.hint);
    else
      diags.note(d.range, d.message);
    for (const auto &[at, text] : d.notes)
      diags.note(at, text);
  }

  fe::SourceRange locate(FileLineColLoc flc) const {
    for (uint32_t f = 1; f <= sm.numFiles(); ++f) {
      if (sm.name(f) != flc.getFilename().str())
        continue;
      uint32_t begin = sm.lineStart(f, flc.getLine()) + flc.getColumn() - 1;
      return {f, begin, begin + 1};
    }
    return {};
  }

  const fe::SourceManager &sm;
  fe::DiagnosticEngine &diags;
  ScopedDiagnosticHandler handler;
};

/// The tile passes on every kernel and variant of `module`, each on its own
/// (on the context's threads when it has them), then one verification.
LogicalResult runTilePasses(ModuleOp module, bool printIRAfterAll) {
  MLIRContext &ctx = *module.getContext();
  PassManager pm(&ctx);
  // One verification after the pipeline instead of one per pass (each walks
  // the whole module); --print-ir-after-all keeps the per-pass checks.
  pm.enableVerifier(printIRAfterAll);
  if (printIRAfterAll) {
    ctx.disableMultithreading();
    pm.enableIRPrinting([](Pass *, Operation *) { return false; },
                        [](Pass *, Operation *) { return true; },
                        /*printModuleScope=*/true,
                        /*printAfterOnlyOnChange=*/false);
  }
  OpPassManager &kernelPasses = pm.nest<func::FuncOp>();
  kernelPasses.addPass(createCSEPass());
  kernelPasses.addPass(tile::createTileExpandFp8());
  kernelPasses.addPass(tile::createTileUnrollLoops());
  kernelPasses.addPass(tile::createTileFoldConstantMasks());
  kernelPasses.addPass(tile::createTileAssignLayouts());
  kernelPasses.addPass(tile::createTileRemoveLayoutConversions());
  kernelPasses.addPass(createCanonicalizerPass());
  kernelPasses.addPass(createCSEPass());
  kernelPasses.addPass(tile::createTileAssignSharedLayouts());
  kernelPasses.addPass(tile::createTileHoistScalarLoads());
  if (failed(pm.run(module)))
    return failure();
  return verify(module);
}

/// Keeps only the kernels named in `wanted` (all when empty); an unknown
/// name is an error that lists the file's kernels.
bool selectKernels(fe::Module &mod, const std::vector<std::string> &wanted,
                   fe::DiagnosticEngine &diags) {
  if (wanted.empty())
    return true;
  std::string known;
  for (const fe::KernelDecl &k : mod.kernels())
    known += (known.empty() ? "" : ", ") + k.name;
  bool ok = true;
  for (const std::string &name : wanted)
    if (!mod.findKernel(name)) {
      diags.error({}, "no kernel '" + name + "' in this file", "its kernels: " + known);
      ok = false;
    }
  mod.keepKernels(wanted);
  return ok;
}

} // namespace

const char *compilerVersion() { return MEGAC_VERSION_STRING; }

CompileResult compile(const CompileOptions &options) {
  CompileResult result;
  result.moduleName = baseName(options.path);
  auto start = Clock::now();

  fe::SourceManager sm;
  fe::DiagnosticEngine diags(sm);
  auto finish = [&]() -> CompileResult & {
    result.diagnostics = diags.formatted();
    for (const fe::Diagnostic &d : diags.diagnostics()) {
      result.internalError |= d.severity == fe::Severity::Error && d.message.rfind("internal:", 0) == 0;
      result.warnings += d.severity == fe::Severity::Warning;
    }
    return result;
  };
  // The end of a compile that went as far as it was asked to.
  auto finishDone = [&]() -> CompileResult & {
    result.ok = !diags.hasErrors();
    return finish();
  };

  std::vector<const Target *> targets;
  for (const std::string &name : options.targets) {
    const Target *t = findTarget(name);
    if (!t) {
      diags.error({}, "unknown target '" + name + "'",
                  "known targets: " + targetNames());
      return finish();
    }
    targets.push_back(t);
  }
  if (targets.empty())
    for (const Target &t : allTargets())
      targets.push_back(&t);

  std::unique_ptr<fe::Module> mod =
      options.text ? fe::parseAndAnalyzeText(sm, options.path, *options.text,
                                             options.defines, diags)
                   : fe::parseAndAnalyze(sm, options.path, options.defines, diags);
  if (!mod || diags.hasErrors())
    return finish();
  if (!selectKernels(*mod, options.kernels, diags))
    return finish();
  // A file of constants and helpers alone compiles to an empty bundle: not
  // an error (it still type-checks), but rarely what was meant.
  if (mod->kernels().empty())
    diags.warning({mod->root().fileId, 0, 0}, "this file has no kernel: the bundle is empty",
                  "a file of constants and helpers is meant to be imported: import \"FILE.mega\";");
  // The AST and the tile IR as text only when asked for (--emit ast / tile,
  // Python's emit_ir): printing the module costs about a millisecond.
  if (options.keepIR) {
    std::ostringstream os;
    fe::printAST(*mod, os);
    result.ast = os.str();
  }
  for (const fe::KernelDecl &k : mod->kernels()) {
    result.kernelNames.push_back(k.name);
    result.symbols[k.name].push_back(k.name);
    result.maxnreg[k.name] = int(k.maxnreg.value_or(0));
    for (const fe::Variant &v : k.variants) {
      std::string sym = variantSymbol(k.name, v.name);
      result.symbols[k.name].push_back(sym);
      result.maxnreg[sym] = int(v.maxnreg ? *v.maxnreg : k.maxnreg.value_or(0));
    }
  }

  // A kernel and its variants that may compile to the same code (the same
  // constants, warps and code-changing attributes; only maxnreg or min CTAs
  // a SM differ) compile in one module, so that the PTX of one is copied for
  // the others. Variants alike among themselves but unlike the kernel (two
  // without early launch, say) make a unit of their own: a thread each may
  // then compile the kernel and them.
  std::vector<std::vector<std::string>> units;
  for (const fe::KernelDecl &k : mod->kernels()) {
    using CodeKey = std::tuple<std::vector<std::pair<std::string, int64_t>>, int64_t, bool, bool, bool, bool>;
    auto keyOf = [&](const fe::Variant *v) {
      std::vector<std::pair<std::string, int64_t>> constants;
      if (v)
        constants = v->constants;
      std::sort(constants.begin(), constants.end());
      return CodeKey{constants, v && v->numWarps ? *v->numWarps : k.numWarps,
                     v && v->tileDivision ? *v->tileDivision : k.tileDivision,
                     v && v->treeReductions ? *v->treeReductions : k.treeReductions,
                     v && v->fusedReductions ? *v->fusedReductions : k.fusedReductions,
                     v && v->earlyLaunch ? *v->earlyLaunch : k.earlyLaunch};
    };
    std::map<CodeKey, size_t> unitOf{{keyOf(nullptr), units.size()}};
    units.push_back({k.name});
    for (const fe::Variant &v : k.variants) {
      auto [it, added] = unitOf.try_emplace(keyOf(&v), units.size());
      if (added)
        units.emplace_back();
      units[it->second].push_back(variantSymbol(k.name, v.name));
    }
  }

  // Threads for the variants' analyses, which run while the MLIR context is
  // built, for the tile passes, which run on each kernel and variant apart,
  // and for the targets; created before the context, which must not outlive
  // them.
  auto stopHere = [&](CompileOptions::Stage stage) { return options.lastStage == stage; };
  std::optional<llvm::DefaultThreadPool> threads;
  if (unsigned n = kernelThreads(); n > 1 && !options.printIRAfterAll)
    threads.emplace(llvm::hardware_concurrency(n));
  VariantSpecializer specializer(*mod, options.path, options.defines, sm,
                                 threads ? &*threads : nullptr);
  DialectRegistry registry;
  registry.insert<tile::TileDialect>();
  registerLoweringDialects(registry);
  registerTranslationDialects(registry);
  // Built only past --emit ast (which needs no MLIR), in place.
  std::optional<MLIRContext> context;
  if (!stopHere(CompileOptions::Stage::Ast)) {
    context.emplace(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
  }

  std::vector<std::unique_ptr<fe::Module>> specialized;
  VariantBodies variantBodies;
  if (!specializer.finish(diags, specialized, variantBodies))
    return finish();
  // --emit ast needs nothing further: the source and every variant checked.
  if (stopHere(CompileOptions::Stage::Ast))
    return finishDone();

  MLIRContext &ctx = *context;
  // Users see their source line and a caret, not the IR of the failing op.
  ctx.printOpOnDiagnostic(false);
  DiagnosticBridge bridge(ctx, sm, diags);

  OwningOpRef<ModuleOp> tileModule = emitTileIR(ctx, *mod, sm, variantBodies);
  if (!tileModule || diags.hasErrors())
    return finish();
  if (failed(verify(*tileModule)))
    return finish();
  if (options.keepIR)
    result.tileIR = print(*tileModule);
  if (stopHere(CompileOptions::Stage::TileIR))
    return finishDone();
  // Kernels (and variants) with a 64-bit pointer offset: the others' offsets
  // are 32-bit, and the runtime refuses tensors they would overflow.
  std::set<std::string> offsets64;
  tileModule->walk([&](tile::AddPtrOp add) {
    if (getElementTypeOrSelf(add.getOffset().getType()).getIntOrFloatBitWidth() > 32)
      offsets64.insert(add->getParentOfType<func::FuncOp>().getName().str());
  });
  // The elements each unmasked access reaches, for the runtime's check at
  // launch; an access known here to leave its tensor is an error now.
  std::map<std::string, std::vector<AccessBound>> bounds;
  if (!moduleAccessBounds(*tileModule, *mod, result.symbols, variantBodies, bounds))
    return finish();
  double frontendMs = msSince(start);

  std::string libdevice = findLibdevice();
  std::optional<std::string> ptxas =
      options.runPtxas ? findPtxas() : std::nullopt;
  std::map<std::string, int64_t> sharedBytes;
  rt::Bundle bundle;

  // Only now: building the IR above on a context with threads would pay
  // for their locks.
  if (threads)
    ctx.setThreadPool(*threads);

  // The tile passes, once for every target: they do not depend on it (the
  // layouts are the same for all). Each kernel and variant goes through them
  // on its own, on the context's threads when it has them.
  auto tPasses = Clock::now();
  if (failed(runTilePasses(*tileModule, options.printIRAfterAll)))
    return finish();
  double passesMs = msSince(tPasses);
  std::vector<TargetOutput> outs(targets.size());
  for (size_t i = 0; i < targets.size(); ++i)
    outs[i].target = targets[i]->name;
  if (options.keepIR)
    outs[0].tileIR = print(*tileModule);
  // Registers the tiles need, from their layouts, before ptxas says, and the
  // warnings they call for: a tile too wide now, a cap passed once the first
  // target's ptxas has spoken.
  std::vector<std::function<void()>> capWarnings = layoutWarnings(*tileModule, result, outs[0], true);
  if (options.layouts != CompileOptions::Layouts::None)
    outs[0].layouts = describeLayouts(*tileModule, outs[0],
                                      options.layouts == CompileOptions::Layouts::Full);
  for (size_t i = 1; i < targets.size(); ++i) {
    outs[i].tileIR = outs[0].tileIR;
    outs[i].registerEstimate = outs[0].registerEstimate;
    outs[i].layouts = outs[0].layouts;
  }
  // --emit tile-layout and layouts: no lowering, LLVM or ptxas. No cap
  // warning either: the estimate counts no rematerialization, so only ptxas
  // can tell a spill (the layouts show the registers per thread).
  if (stopHere(CompileOptions::Stage::TilePasses)) {
    for (TargetOutput &out : outs)
      out.compileMs = frontendMs + passesMs;
    result.targets = std::move(outs);
    return finishDone();
  }

  // Each target's lowering, LLVM and ptxas; with threads, the targets side by
  // side, each holding its diagnostics until all are done (HeldDiagnostics.h).
  struct TargetWork {
    OwningOpRef<ModuleOp> module; // the tile IR it lowers, consumed
    bool ok = false, ptxasFailed = false;
    std::map<std::string, int64_t> sharedBytes;
    std::string phases; // --time-phases' line
    HeldDiagnostics held;
  };
  std::vector<TargetWork> work(targets.size());
  // Cloned here, before any target's lowering changes the module.
  for (size_t i = 0; i + 1 < targets.size(); ++i)
    work[i].module = (*tileModule).clone();
  work.back().module = std::move(tileModule);
  bool keepLLVM = options.keepIR || options.printIRAfterAll;
  auto compileTarget = [&](size_t i) {
    const Target *target = targets[i];
    TargetOutput &out = outs[i];
    TargetWork &w = work[i];
    auto t0 = Clock::now();
    ModuleOp module = *w.module;
    auto lowered = [&](ModuleOp llvmDialect) {
      out.llvmDialect = print(llvmDialect);
      if (options.printIRAfterAll)
        llvm::errs() << "// -----// IR Dump After convert-tile-to-llvm ("
                     << target->name << ") //----- //\n"
                     << out.llvmDialect << "\n";
    };
    auto code = lowerAndCompile(module, *target, libdevice, units, keepLLVM,
                                keepLLVM ? llvm::function_ref<void(ModuleOp)>(lowered) : nullptr);
    if (failed(code))
      return;
    w.sharedBytes = code->sharedBytes;
    if (keepLLVM)
      out.llvmIR = std::move(code->llvmIR);
    if (options.printIRAfterAll)
      llvm::errs() << "// -----// LLVM IR (" << target->name << ") //----- //\n"
                   << out.llvmIR << "\n";
    out.ptx = std::move(code->ptx);
    out.compileMs = frontendMs + passesMs + msSince(t0);
    if (options.timePhases)
      w.phases = llvm::formatv(
          "megac: {0}: {1:f1} ms: frontend {2:f1}, tile passes {3:f1}, lowering {4:f1}, "
          "LLVM IR and libdevice {5:f1}, LLVM optimizer {6:f1}, NVPTX code generation {7:f1}{8}\n",
          target->name, out.compileMs, frontendMs, passesMs, code->loweringMs, code->translateMs,
          code->optimizeMs, code->codegenMs,
          code->threads > 1 ? " (" + std::to_string(code->threads) + " threads)" : "");
    if (ptxas) {
      auto t1 = Clock::now();
      PtxasResult assembled = runPtxas(*ptxas, out.ptx, target->name);
      out.ptxasMs = msSince(t1);
      out.ptxasRan = true;
      out.ptxasLog = assembled.log;
      if (!assembled.ok) {
        w.ptxasFailed = true;
        return;
      }
      out.cubin = std::move(assembled.cubin);
      out.resources = std::move(assembled.kernels);
    }
    w.ok = true;
  };
  if (threads && targets.size() > 1) {
    // The targets' lowerings share the context: its uniquers take locks now.
    ctx.enableMultithreading();
    auto compileHeld = [&](size_t i) {
      HoldDiagnostics route(&work[i].held);
      compileTarget(i);
    };
    llvm::ThreadPoolTaskGroup group(*threads);
    for (size_t i = 1; i < targets.size(); ++i)
      group.async(compileHeld, i);
    compileHeld(0);
    group.wait();
  } else {
    // One after the other: the first target's diagnostics, then the next.
    for (size_t i = 0; i < targets.size() && (i == 0 || work[i - 1].ok); ++i)
      compileTarget(i);
  }
  // In the targets' order, up to the first that failed, as one thread would;
  // the result lists the targets before that one.
  auto failedAt = [&](size_t i) -> CompileResult & {
    result.targets.assign(std::make_move_iterator(outs.begin()),
                          std::make_move_iterator(outs.begin() + i));
    return finish();
  };
  for (size_t i = 0; i < targets.size(); ++i) {
    TargetWork &w = work[i];
    TargetOutput &out = outs[i];
    bridge.replay(w.held);
    llvm::errs() << w.phases;
    if (w.ptxasFailed) {
      diags.error({}, "ptxas rejected the PTX for " + out.target + ":\n" + out.ptxasLog,
                  "this is a compiler bug: please report it with the source");
      return failedAt(i);
    }
    if (!w.ok)
      return failedAt(i);
    for (auto &[symbol, bytes] : w.sharedBytes)
      sharedBytes[symbol] = std::max(sharedBytes[symbol], bytes);
    if (i == 0)
      for (auto &warn : capWarnings)
        warn();
  }
  result.targets = std::move(outs);

  buildManifest(*mod, result, sharedBytes, variantBodies, offsets64, bounds, bundle.manifest);
  bundle.manifest.sourceHash = hashSource(sm.text(mod->root().fileId));
  for (const TargetOutput &out : result.targets) {
    bundle.blobs.push_back(out.ptx);
    rt::ImageInfo ptxImage;
    ptxImage.target = out.target;
    ptxImage.kind = rt::ImageKind::Ptx;
    ptxImage.section = int(bundle.blobs.size());
    bundle.manifest.images.push_back(ptxImage);
    if (!out.cubin.empty()) {
      bundle.blobs.push_back(out.cubin);
      rt::ImageInfo cubin;
      cubin.target = out.target;
      cubin.kind = rt::ImageKind::Cubin;
      cubin.section = int(bundle.blobs.size());
      for (auto &[symbol, r] : out.resources)
        cubin.resources[symbol] = {r.registers, r.spills(), r.stack, r.shared};
      bundle.manifest.images.push_back(cubin);
    }
  }
  result.manifestJson = rt::manifestToJson(bundle.manifest);
  if (std::string refusal = runtimeRefusal(result.manifestJson); !refusal.empty())
    diags.error({mod->root().fileId, 0, 0}, "internal: the runtime would refuse this module's manifest: " + refusal,
                "a megac bug (the language let through what the runtime cannot read): please report it");
  result.bundle = rt::writeBundle(bundle);
  return finishDone();
}

} // namespace megac
