#include "KernelThreads.h"

#include "../codegen/PTXEmitter.h"
#include "../codegen/PtxClone.h"
#include "../conversion/BarrierElision.h"
#include "../conversion/TileToLLVM.h"
#include "../support/HeldDiagnostics.h"
#include "../support/Timing.h"
#include "Tile/Analysis/RegisterEstimate.h"
#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

using namespace mlir;

namespace megac {
namespace {

// A group of kernels smaller than this (in codeSize's units) is not worth a
// thread of its own: it joins another group. A thread costs an LLVM
// context, a target machine and, where a kernel calls libdevice functions
// megac does not write itself, libdevice's lazy parse (the value 150 is the
// one results/compile_times_threads_skips.md measured).
constexpr size_t kMinGroupSize = 150;

// About the LLVM instructions a kernel lowers to: each op of its tile IR
// (after the passes: layouts assigned, loops unrolled) counts the registers a
// thread holds of its results, at least one; a dot counts one MMA step per 16
// of its reduction dimension.
size_t codeSize(Operation *kernel) {
  size_t n = 0;
  kernel->walk([&](Operation *op) {
    size_t regs = 0;
    for (Type t : op->getResultTypes())
      if (auto tile = dyn_cast<RankedTensorType>(t))
        if (auto layout = tile::tileLayoutOf(tile))
          regs += size_t(layout->numRegisters(
              layout::Shape(tile.getShape().begin(), tile.getShape().end())));
    if (isa<tile::DotOp>(op))
      if (auto a = dyn_cast<RankedTensorType>(op->getOperand(0).getType()))
        regs *= std::max<int64_t>(1, a.getShape().back() / 16);
    n += std::max<size_t>(1, regs);
  });
  return n;
}

bool isKernel(Operation &op) {
  auto f = dyn_cast<func::FuncOp>(op);
  return f && f->hasAttr(tile::attr::kKernel);
}

// The kernels of `module` in up to `threads` groups of symbols, each group in
// module order, the largest group first (the calling thread's).
std::vector<std::vector<std::string>>
groupKernels(ModuleOp module, const std::vector<std::vector<std::string>> &units, unsigned threads) {
  std::vector<std::string> order;
  std::map<std::string, size_t> sizes;
  for (Operation &op : module.getBody()->getOperations())
    if (isKernel(op)) {
      std::string name = cast<func::FuncOp>(op).getName().str();
      order.push_back(name);
      sizes[name] = codeSize(&op);
    }
  // The units present, then every other kernel alone.
  std::vector<std::vector<std::string>> present;
  std::map<std::string, bool> placed;
  for (const auto &unit : units) {
    std::vector<std::string> kept;
    for (const std::string &name : unit)
      if (sizes.count(name) && !placed[name]) {
        kept.push_back(name);
        placed[name] = true;
      }
    if (!kept.empty())
      present.push_back(kept);
  }
  for (const std::string &name : order)
    if (!placed[name])
      present.push_back({name});
  auto size = [&](const std::vector<std::string> &unit) {
    size_t n = 0;
    for (const std::string &name : unit)
      n += sizes[name];
    return n;
  };
  std::stable_sort(present.begin(), present.end(),
                   [&](const auto &a, const auto &b) { return size(a) > size(b); });
  size_t n = std::max<size_t>(1, std::min<size_t>(threads, present.size()));
  std::vector<size_t> load(n, 0);
  std::vector<std::vector<std::string>> members(n);
  for (const auto &unit : present) {
    size_t g = std::min_element(load.begin(), load.end()) - load.begin();
    load[g] += size(unit);
    members[g].insert(members[g].end(), unit.begin(), unit.end());
  }
  // A group too small to gain a thread joins the next smallest, until every
  // group is worth its thread or one is left: two small units (a kernel and
  // its plainly launched variant, say) share a thread rather than both
  // joining the largest group.
  while (n > 1) {
    std::vector<size_t> bySize(n);
    for (size_t g = 0; g < n; ++g)
      bySize[g] = g;
    std::stable_sort(bySize.begin(), bySize.end(), [&](size_t a, size_t b) { return load[a] < load[b]; });
    size_t smallest = bySize[0], next = bySize[1];
    if (load[smallest] >= kMinGroupSize)
      break;
    load[next] += load[smallest];
    members[next].insert(members[next].end(), members[smallest].begin(), members[smallest].end());
    load.erase(load.begin() + smallest);
    members.erase(members.begin() + smallest);
    --n;
  }
  // The largest group first (the calling thread's); each lists its kernels
  // in module order.
  std::vector<size_t> byLoad(n);
  for (size_t g = 0; g < n; ++g)
    byLoad[g] = g;
  std::stable_sort(byLoad.begin(), byLoad.end(), [&](size_t a, size_t b) { return load[a] > load[b]; });
  std::map<std::string, size_t> slotOf;
  for (size_t slot = 0; slot < n; ++slot)
    for (const std::string &name : members[byLoad[slot]])
      slotOf[name] = slot;
  std::vector<std::vector<std::string>> groups(n);
  for (const std::string &name : order)
    groups[slotOf[name]].push_back(name);
  return groups;
}

struct GroupCode {
  bool ok = false;
  std::string ptx, llvmIR;
  std::map<std::string, int64_t> sharedBytes;
  std::vector<std::pair<std::string, std::string>> globals; // (global, its kernel), module order
  double loweringMs = 0, translateMs = 0, optimizeMs = 0, codegenMs = 0;
};

GroupCode compileGroup(ModuleOp module, const Target &target, const std::string &libdevicePath,
                       bool keepIR, llvm::function_ref<void(ModuleOp)> onLowered = {}) {
  GroupCode code;
  auto t0 = Clock::now();
  if (failed(lowerTileToLLVM(module, target)))
    return code;
  elideRedundantBarriers(module);
  std::map<std::string, std::string> users;
  for (auto f : module.getOps<LLVM::LLVMFuncOp>()) {
    if (auto a = f->getAttrOfType<IntegerAttr>(tile::attr::kSharedBytes)) {
      code.sharedBytes[f.getName().str()] = a.getInt();
      f->removeAttr(tile::attr::kSharedBytes);
    }
    f.walk([&](LLVM::AddressOfOp use) { users[use.getGlobalName().str()] = f.getName().str(); });
  }
  for (auto g : module.getOps<LLVM::GlobalOp>())
    code.globals.push_back({g.getSymName().str(), users[g.getSymName().str()]});
  code.loweringMs = msSince(t0);
  if (onLowered)
    onLowered(module);
  FailureOr<PTXOutput> ptx = emitPTX(module, target, libdevicePath, keepIR);
  if (failed(ptx))
    return code;
  code.ptx = std::move(ptx->ptx);
  code.llvmIR = std::move(ptx->llvmIR);
  code.translateMs = ptx->translateMs;
  code.optimizeMs = ptx->optimizeMs;
  code.codegenMs = ptx->codegenMs;
  code.ok = true;
  return code;
}

// The order of the shared globals in the module one thread would lower: each
// kernel's lowering puts its globals at the start of the module, so the last
// kernel's come first, each kernel's in the order of its group's module.
std::vector<std::string> globalOrder(const std::vector<std::string> &kernelOrder,
                                     const std::vector<GroupCode> &codes) {
  std::vector<std::string> out;
  for (auto k = kernelOrder.rbegin(); k != kernelOrder.rend(); ++k)
    for (const GroupCode &code : codes)
      for (const auto &[global, kernel] : code.globals)
        if (kernel == *k)
          out.push_back(global);
  for (const GroupCode &code : codes)
    for (const auto &[global, kernel] : code.globals)
      if (std::find(kernelOrder.begin(), kernelOrder.end(), kernel) == kernelOrder.end())
        out.push_back(global);
  return out;
}

} // namespace

unsigned kernelThreads() {
  if (const char *env = std::getenv("MEGAC_THREADS"))
    return std::max(1, std::atoi(env));
  return std::max(1u, std::thread::hardware_concurrency());
}

FailureOr<KernelCode> lowerAndCompile(ModuleOp module, const Target &target,
                                      const std::string &libdevicePath,
                                      const std::vector<std::vector<std::string>> &units,
                                      bool keepIR, llvm::function_ref<void(ModuleOp)> onLowered) {
  KernelCode out;
  // Anything but kernels at module level (none today) would be lowered into
  // every part: one group then.
  bool onlyKernels = llvm::all_of(module.getBody()->getOperations(), isKernel);
  std::vector<std::vector<std::string>> groups =
      groupKernels(module, units, keepIR || !onlyKernels ? 1 : kernelThreads());
  auto sumInto = [&out](const GroupCode &code) {
    out.loweringMs += code.loweringMs;
    out.translateMs += code.translateMs;
    out.optimizeMs += code.optimizeMs;
    out.codegenMs += code.codegenMs;
    out.sharedBytes.insert(code.sharedBytes.begin(), code.sharedBytes.end());
  };
  if (groups.size() == 1) {
    GroupCode code = compileGroup(module, target, libdevicePath, keepIR, onLowered);
    if (!code.ok)
      return failure();
    sumInto(code);
    out.ptx = std::move(code.ptx);
    out.llvmIR = std::move(code.llvmIR);
    return out;
  }

  auto start = Clock::now();
  std::vector<std::string> kernelOrder;
  for (Operation &op : module.getBody()->getOperations())
    kernelOrder.push_back(cast<func::FuncOp>(op).getName().str());
  // Each group's kernels move into a module of their own (with the module's
  // attributes).
  std::vector<OwningOpRef<ModuleOp>> parts;
  for (const auto &group : groups) {
    parts.push_back(ModuleOp::create(module.getLoc()));
    (*parts.back())->setAttrs(module->getAttrs());
    for (const std::string &name : group) {
      Operation *kernel = module.lookupSymbol(name);
      kernel->remove();
      parts.back()->getBody()->push_back(kernel);
    }
  }
  MLIRContext *ctx = module.getContext();
  if (!ctx->isMultithreadingEnabled())
    ctx->enableMultithreading();
  std::vector<GroupCode> codes(groups.size());
  std::vector<std::thread> pool;
  // The groups' diagnostics go where the calling thread's go.
  HeldDiagnostics *held = heldDiagnostics();
  for (size_t g = 1; g < groups.size(); ++g)
    pool.emplace_back([&, g, held] {
      HoldDiagnostics route(held);
      codes[g] = compileGroup(*parts[g], target, libdevicePath, false);
    });
  codes[0] = compileGroup(*parts[0], target, libdevicePath, false);
  for (std::thread &t : pool)
    t.join();
  std::vector<std::string> ptxParts;
  for (GroupCode &code : codes) {
    if (!code.ok)
      return failure();
    sumInto(code);
    ptxParts.push_back(code.ptx);
  }
  out.ptx = mergePtxModules(ptxParts, kernelOrder, globalOrder(kernelOrder, codes));
  if (out.ptx.empty())
    return emitError(module.getLoc(), "internal: merging the PTX of a module's kernels failed");
  // The threads' phases share the wall time as they share the threads' time.
  double wall = msSince(start), total = out.loweringMs + out.translateMs + out.optimizeMs + out.codegenMs;
  for (double *phase : {&out.loweringMs, &out.translateMs, &out.optimizeMs, &out.codegenMs})
    *phase = wall * *phase / std::max(total, 1e-9);
  out.threads = unsigned(groups.size());
  return out;
}

} // namespace megac
