// Removal of barriers with no shared-memory hazard across them
// (BarrierElision.h). Two data-flow problems over each kernel's blocks: which
// shared-memory accesses may have happened since the last barrier (forward),
// and which may happen before the next one (backward). A barrier whose two
// sets conflict nowhere is removed, and both are solved again with it gone.
#include "BarrierElision.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

namespace megac {
namespace {

// Address spaces whose memory no other thread of the CTA reaches through
// shared memory: global, constant, local.
bool isNotShared(unsigned space) { return space == 1 || space == 4 || space == 5; }
constexpr unsigned kSharedSpace = 3;

// Shared-memory accesses of a stretch of code: which buffers (shared globals)
// it may read and write; `unknown` when it may touch any shared byte.
struct Accesses {
  bool unknown = false;
  llvm::SmallVector<StringAttr, 2> reads, writes;

  bool empty() const { return !unknown && reads.empty() && writes.empty(); }
  void add(StringAttr buffer, bool write) {
    auto &set = write ? writes : reads;
    if (!llvm::is_contained(set, buffer))
      set.push_back(buffer);
  }
  void join(const Accesses &other) {
    unknown |= other.unknown;
    for (StringAttr r : other.reads)
      add(r, false);
    for (StringAttr w : other.writes)
      add(w, true);
  }
  bool operator==(const Accesses &o) const {
    return unknown == o.unknown && reads.size() == o.reads.size() &&
           writes.size() == o.writes.size() &&
           llvm::all_of(reads, [&](StringAttr r) { return llvm::is_contained(o.reads, r); }) &&
           llvm::all_of(writes, [&](StringAttr w) { return llvm::is_contained(o.writes, w); });
  }
};

// Whether some access of `a` and some access of `b` touch the same buffer
// with at least one write: the pair a barrier between them orders.
bool conflict(const Accesses &a, const Accesses &b) {
  if (a.empty() || b.empty())
    return false;
  if (a.unknown || b.unknown)
    return true;
  for (StringAttr w : a.writes)
    if (llvm::is_contained(b.reads, w) || llvm::is_contained(b.writes, w))
      return true;
  for (StringAttr w : b.writes)
    if (llvm::is_contained(a.reads, w))
      return true;
  return false;
}

bool isBarrier(Operation *op) { return op->getName().getStringRef() == "nvvm.barrier0"; }

// The access through pointer `ptr`: none outside shared memory, the shared
// global it is an offset of, or unknown.
void addPointerAccess(Value ptr, bool write, Accesses &acc) {
  auto type = dyn_cast<LLVM::LLVMPointerType>(ptr.getType());
  if (type && isNotShared(type.getAddressSpace()))
    return;
  if (type && type.getAddressSpace() == kSharedSpace) {
    while (auto gep = ptr.getDefiningOp<LLVM::GEPOp>())
      ptr = gep.getBase();
    if (auto global = ptr.getDefiningOp<LLVM::AddressOfOp>()) {
      acc.add(global.getGlobalNameAttr().getAttr(), write);
      return;
    }
  }
  acc.unknown = true;
}

// Inline assembly that may touch shared memory: it names it, synchronizes,
// or accesses memory outside the global space.
bool asmMayTouchShared(StringRef text) {
  for (StringRef word : {"shared", "bar", "fence", "matrix", "cp.", "wgmma", "tcgen05"})
    if (text.contains(word))
      return true;
  for (StringRef memoryOp : {"ld.", "st.", "atom.", "red."})
    if (text.contains(memoryOp) && !text.contains(".global"))
      return true;
  return false;
}

// NVVM intrinsics that compute on registers only.
bool isRegisterIntrinsic(StringRef name) {
  for (StringRef prefix :
       {"llvm.nvvm.mma.", "llvm.nvvm.div.", "llvm.nvvm.rcp.", "llvm.nvvm.ex2.", "llvm.nvvm.lg2.",
        "llvm.nvvm.sqrt.", "llvm.nvvm.rsqrt.", "llvm.nvvm.fma.", "llvm.nvvm.f2", "llvm.nvvm.ff2",
        "llvm.nvvm.e4m3", "llvm.nvvm.e5m2", "llvm.nvvm.e2m1", "llvm.nvvm.ue8m0"})
    if (name.starts_with(prefix))
      return true;
  return false;
}

// NVVM dialect ops that compute on registers only (their ODS declares no
// memory effects for some of them).
bool isRegisterNVVMOp(StringRef name) {
  for (StringRef prefix : {"nvvm.shfl.", "nvvm.read.ptx.sreg.", "nvvm.convert.", "nvvm.rcp."})
    if (name.starts_with(prefix))
      return true;
  return false;
}

// Adds the shared-memory accesses of `op` (not a barrier) to `acc`.
void addAccesses(Operation *op, Accesses &acc) {
  if (auto load = dyn_cast<LLVM::LoadOp>(op))
    return addPointerAccess(load.getAddr(), false, acc);
  if (auto store = dyn_cast<LLVM::StoreOp>(op))
    return addPointerAccess(store.getAddr(), true, acc);
  if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op))
    return addPointerAccess(rmw.getPtr(), true, acc);
  if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op))
    return addPointerAccess(cas.getPtr(), true, acc);
  if (auto inlineAsm = dyn_cast<LLVM::InlineAsmOp>(op)) {
    acc.unknown |= asmMayTouchShared(inlineAsm.getAsmString());
    return;
  }
  if (auto call = dyn_cast<LLVM::CallOp>(op)) {
    // libdevice's math reads no memory of ours.
    auto callee = call.getCallee();
    acc.unknown |= !callee || !callee->starts_with("__nv_");
    return;
  }
  if (auto intrinsic = dyn_cast<LLVM::CallIntrinsicOp>(op)) {
    acc.unknown |= !isRegisterIntrinsic(intrinsic.getIntrin());
    return;
  }
  if (op->getNumRegions() == 0 &&
      (isMemoryEffectFree(op) || isRegisterNVVMOp(op->getName().getStringRef())))
    return;
  acc.unknown = true;
}

// A block as the stretches between its barriers: segments[i] runs up to
// barriers[i] (the last segment to the block's end).
struct BlockSummary {
  SmallVector<Operation *> barriers;
  SmallVector<Accesses> segments;
};

class FunctionBarriers {
public:
  explicit FunctionBarriers(LLVM::LLVMFuncOp func) {
    for (Block &block : func.getBody()) {
      BlockSummary &s = blocks[&block];
      s.segments.emplace_back();
      for (Operation &op : block) {
        if (isBarrier(&op)) {
          s.barriers.push_back(&op);
          s.segments.emplace_back();
          continue;
        }
        addAccesses(&op, s.segments.back());
      }
      order.push_back(&block);
    }
    entry = &func.getBody().front();
  }

  // Removes the barriers that order no conflicting accesses, in program
  // order; returns how many.
  int run() {
    int removed = 0;
    solve();
    for (Block *block : order) {
      BlockSummary &s = blocks[block];
      for (size_t i = 0; i < s.barriers.size(); ++i) {
        if (conflict(before(block, i), until(block, i + 1)))
          continue;
        dropped.insert(s.barriers[i]);
        ++removed;
        solve();
      }
    }
    for (Operation *barrier : dropped)
      barrier->erase();
    return removed;
  }

private:
  bool kept(Operation *barrier) const { return !dropped.contains(barrier); }

  // Accesses since the last kept barrier (or from the predecessors), up to
  // barrier i of `block` (i = its segment count - 1: to the block's end).
  Accesses before(Block *block, size_t i) {
    BlockSummary &s = blocks[block];
    size_t start = i;
    while (start > 0 && !kept(s.barriers[start - 1]))
      --start;
    Accesses acc = start == 0 ? inSince[block] : Accesses{};
    for (size_t k = start; k <= i; ++k)
      acc.join(s.segments[k]);
    return acc;
  }

  // Accesses from segment `first` of `block` to the next kept barrier (or
  // on into the successors): after barrier first - 1, or from the block's
  // start for 0.
  Accesses until(Block *block, size_t first) {
    BlockSummary &s = blocks[block];
    Accesses acc;
    for (size_t k = first; k < s.segments.size(); ++k) {
      acc.join(s.segments[k]);
      if (k < s.barriers.size() && kept(s.barriers[k]))
        return acc;
    }
    acc.join(outUntil[block]);
    return acc;
  }

  // inSince[b]: accesses since the last barrier when b starts (from its
  // predecessors; none at the kernel's entry). outUntil[b]: accesses before
  // the next barrier once b ends (from its successors; none where the kernel
  // returns). Unions to a fixed point; a removed barrier only adds accesses,
  // so each solve starts from the previous one's.
  void solve() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Block *block : order) {
        Accesses in;
        if (block != entry)
          for (Block *pred : block->getPredecessors())
            in.join(before(pred, blocks[pred].segments.size() - 1));
        if (!(in == inSince[block])) {
          inSince[block] = in;
          changed = true;
        }
        Accesses out;
        for (Block *succ : block->getSuccessors())
          out.join(until(succ, 0));
        if (!(out == outUntil[block])) {
          outUntil[block] = out;
          changed = true;
        }
      }
    }
  }

  llvm::DenseMap<Block *, BlockSummary> blocks;
  SmallVector<Block *> order;
  Block *entry = nullptr;
  llvm::DenseSet<Operation *> dropped;
  llvm::DenseMap<Block *, Accesses> inSince, outUntil;
};

struct ElideBarriersPass
    : PassWrapper<ElideBarriersPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ElideBarriersPass)
  StringRef getArgument() const override { return "elide-redundant-barriers"; }
  StringRef getDescription() const override {
    return "Remove CTA barriers with no shared-memory hazard across them";
  }
  void runOnOperation() override { elideRedundantBarriers(getOperation()); }
};

} // namespace

int elideRedundantBarriers(ModuleOp module) {
  int removed = 0;
  module.walk([&](LLVM::LLVMFuncOp func) {
    if (!func.isExternal())
      removed += FunctionBarriers(func).run();
  });
  return removed;
}

void registerElideBarriersPass() { PassRegistration<ElideBarriersPass>(); }

} // namespace megac
