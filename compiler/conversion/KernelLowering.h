//===- KernelLowering.h - one tile kernel to the LLVM dialect ---*- C++ -*-===//
//
// The lowering's state and its helpers, shared by its translation units, one
// op family each: TileToLLVM.cpp (the kernel, the op dispatch, elementwise
// ops and math, control flow, the pass), MemoryLowering.cpp (loads, stores,
// atomics), ReduceLowering.cpp,
// LayoutLowering.cpp (layout conversions, reshapes), DivisionLowering.cpp
// (f32 division), QuantLowering.cpp (FP8/FP4/E8M0 conversions) and
// DotLowering.cpp (tile.dot: its operands in shared memory, copies, prefetch
// pipelines, mma). Internal to compiler/conversion.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "../target/Target.h"

#include "Tile/Analysis/AxisInfo.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/Layout/BlockedLayout.h"
#include "Tile/Layout/ReduceScatter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace megac::lowering {

using namespace mlir;
using namespace mlir::tile;
namespace layout = megac::layout;

// The registers one thread holds of a tile value (a scalar: one).
using Regs = SmallVector<Value, 8>;

inline constexpr unsigned kGlobal = 1, kShared = 3;

inline bool isNarrowFloat(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType,
             Float8E8M0FNUType>(t);
}

// How an element lives in a register: narrow floats as their bits in an i8,
// pointers as LLVM global pointers.
inline Type storageType(Type elem) {
  if (isNarrowFloat(elem))
    return IntegerType::get(elem.getContext(), 8);
  if (isa<PtrType>(elem))
    return LLVM::LLVMPointerType::get(elem.getContext(), kGlobal);
  return elem;
}

inline int64_t storageBytes(Type elem) {
  Type s = storageType(elem);
  if (isa<LLVM::LLVMPointerType>(s))
    return 8;
  return std::max<int64_t>(1, s.getIntOrFloatBitWidth() / 8);
}

// A tile type's distribution: its blocked layout (the parent, for slices),
// and which of the blocked layout's registers the tile keeps.
struct Dist {
  layout::Blocked blocked;
  int sliceDim = -1;
  layout::Shape shape;       // the tile's shape
  layout::Shape parentShape; // `shape` with the sliced dimension put back as 1
  std::vector<int64_t> parentRegs;

  int64_t numRegs() const { return parentRegs.size(); }
  layout::Index offset(int64_t reg) const {
    return blocked.registerOffset(parentShape, parentRegs[reg]);
  }
  // True when threads hold replicas of elements: along a dimension the CTA
  // tile exceeds (a small tile, or a slice's removed dimension).
  bool replicates() const {
    for (unsigned pd = 0; pd < parentShape.size(); ++pd)
      if (blocked.ctaTile(pd) > parentShape[pd])
        return true;
    return false;
  }
  // Maps a tile dimension to its dimension in the blocked layout.
  unsigned parentDim(unsigned dim) const {
    return sliceDim >= 0 && int(dim) >= sliceDim ? dim + 1 : dim;
  }
};

inline FailureOr<Dist> distOf(Operation *op, RankedTensorType type) {
  Dist d;
  d.shape.assign(type.getShape().begin(), type.getShape().end());
  Attribute enc = type.getEncoding();
  if (auto blocked = dyn_cast_or_null<BlockedEncodingAttr>(enc)) {
    d.blocked = toLayout(blocked);
    d.parentShape = d.shape;
    for (int64_t r = 0, n = d.blocked.numRegisters(d.shape); r < n; ++r)
      d.parentRegs.push_back(r);
  } else if (auto slice = dyn_cast_or_null<SliceEncodingAttr>(enc)) {
    d.blocked = toLayout(slice.getParent());
    d.sliceDim = int(slice.getDim());
    d.parentShape = d.shape;
    d.parentShape.insert(d.parentShape.begin() + d.sliceDim, 1);
    d.parentRegs = layout::TileLayout{d.blocked, d.sliceDim}.parentRegisters(d.shape);
  } else {
    return op->emitError("tile ") << type
                                  << " has no layout: run tile-assign-layouts "
                                     "before lowering";
  }
  if (d.blocked.rank() != d.parentShape.size())
    return op->emitError("layout rank does not match tile ") << type;
  return d;
}

// How wide one thread's accesses through `ptr` can be: `width` elements when
// pointers allow it, and whether the mask is uniform over each vector
// (otherwise vectors whose lanes are all enabled take the vector path and the
// others fall back to element accesses).
struct AccessPlan {
  int64_t width = 1;
  bool maskUniform = true;
};

inline AccessPlan planAccess(AxisInfoAnalysis &axisInfo, Operation *op,
                             Value ptr, Value mask, Type valueType,
                             int64_t bytes) {
  AccessPlan plan;
  auto tensor = dyn_cast<RankedTensorType>(valueType);
  // i1 lives in memory as a byte of 0 or 1 (torch.bool), which LLVM loads
  // and stores one at a time; a vector of i1 would be bits.
  if (!tensor || tensor.getElementType().isInteger(1))
    return plan;
  auto d = distOf(op, tensor);
  if (failed(d) || d->sliceDim >= 0)
    return plan;
  unsigned fastest = d->blocked.order[0];
  int64_t perThread = d->blocked.sizePerThread[fastest];
  plan.width = axisInfo.vectorWidth(ptr, Value(), fastest, perThread, bytes);
  if (mask)
    plan.maskUniform =
        axisInfo.vectorWidth(ptr, mask, fastest, perThread, bytes) == plan.width;
  return plan;
}

// A reduction's source registers grouped by their offset off the axis, in
// the order first seen, replicas left out: a thread reduces each group to
// one partial (ReduceLowering.cpp).
struct RegisterGroups {
  std::vector<layout::Index> order;
  std::map<layout::Index, SmallVector<int64_t>> members;
};
RegisterGroups registerGroupsOffAxis(const Dist &src, unsigned axis);

// @fused_reductions (ReductionGroups.cpp): the reductions of each block of
// `func` that may share one butterfly, in groups (each group's first first),
// with the plan of their partials. With `moveOperands`, the ops a later
// member's operand needs are moved above the first of each group whose plan
// is worth it (`plan.worthIt()`), where the lowering reduces them all; the
// other groups' reductions stay where they are and are lowered one by one.
struct ReductionGroup {
  SmallVector<ReduceOp> members;
  layout::ReduceScatterPlan plan;
};
std::vector<ReductionGroup> groupReductions(func::FuncOp func, bool moveOperands);

class KernelLowering {
public:
  KernelLowering(func::FuncOp func, const Target &target)
      : func(func), target(target), b(func.getContext()),
        ctx(func.getContext()) {}

  LogicalResult run();

private:
  // --- small builders -----------------------------------------------------
  // Scalar constants are made once per kernel, at the top of its entry block
  // (they dominate every use there): the lowering asks for the same few
  // constants thousands of times, and each copy would cost the conversion
  // passes and the translation time, for the same LLVM IR (constants are
  // uniqued there).
  Value constant(TypedAttr value) {
    Value &c = constants[value];
    if (!c) {
      OpBuilder cb = OpBuilder::atBlockBegin(entryBlock);
      c = arith::ConstantOp::create(cb, func.getLoc(), value);
    }
    return c;
  }
  Value i32(int64_t v) { return constant(b.getI32IntegerAttr(int32_t(v))); }
  Value constantLike(Type type, double v) {
    if (isa<FloatType>(type))
      return constant(b.getFloatAttr(type, v));
    return constant(b.getIntegerAttr(type, int64_t(v)));
  }

  Regs &lookup(Value v) {
    auto it = values.find(v);
    assert(it != values.end() && "value lowered before use");
    return it->second;
  }
  // Register `i` of `v`; scalars have one register used for every element.
  Value reg(Value v, int64_t i) {
    Regs &r = lookup(v);
    return r.size() == 1 ? r[0] : r[i];
  }
  int64_t numRegsOf(Value v) { return lookup(v).size(); }

  // --- thread coordinates and element indices -----------------------------
  // Digit `dim` of `id` in the mixed radix of `sizes`, its digits split over
  // dimensions fastest-first in `order` (a lane's or a warp's coordinate).
  Value digit(Value id, ArrayRef<unsigned> sizes, ArrayRef<unsigned> order, unsigned dim) {
    int64_t below = 1;
    for (unsigned d : order) {
      if (d == dim)
        break;
      below *= sizes[d];
    }
    return reuseOrMake(digits[{id, below, int64_t(sizes[dim])}], [&] {
      Value v = arith::DivUIOp::create(b, loc, id, i32(below));
      return Value(arith::RemUIOp::create(b, loc, v, i32(sizes[dim])));
    });
  }
  // `slot` (a memo's entry) when it was made earlier in the block the builder
  // inserts into, before the insertion point, so that it dominates what is
  // made there now; else what `make` makes, kept in `slot`. `make` must not
  // add to the map `slot` lives in.
  template <typename Make>
  Value reuseOrMake(Value &slot, Make make) {
    if (!slot || !madeEarlierHere(slot))
      slot = make();
    return slot;
  }
  bool madeEarlierHere(Value v) {
    Operation *def = v.getDefiningOp();
    Block *block = b.getInsertionBlock();
    if (!def || def->getBlock() != block)
      return false;
    return b.getInsertionPoint() == block->end() || def->isBeforeInBlock(&*b.getInsertionPoint());
  }
  Value laneDigit(const layout::Blocked &l, unsigned dim) {
    return digit(lane, l.threadsPerWarp, l.order, dim);
  }
  Value warpDigit(const layout::Blocked &l, unsigned dim) {
    return digit(warp, l.warpsPerCTA, l.order, dim);
  }
  // The unwrapped index of the thread's register 0 along each blocked dim.
  SmallVector<Value> threadBase(const layout::Blocked &l) {
    SmallVector<Value> base;
    for (unsigned d = 0; d < l.rank(); ++d) {
      Value lanes = i32(l.threadsPerWarp[d]); // (own statement: argument order)
      Value w = arith::MulIOp::create(b, loc, warpDigit(l, d), lanes);
      Value t = arith::AddIOp::create(b, loc, w, laneDigit(l, d));
      base.push_back(arith::MulIOp::create(b, loc, t, i32(l.sizePerThread[d])));
    }
    return base;
  }
  // indices[reg][dim] of every register, in the tile's own dimensions.
  SmallVector<SmallVector<Value>> elementIndices(const Dist &d) {
    SmallVector<Value> base = threadBase(d.blocked);
    SmallVector<SmallVector<Value>> out;
    for (int64_t r = 0; r < d.numRegs(); ++r) {
      layout::Index off = d.offset(r);
      SmallVector<Value> idx;
      for (unsigned dim = 0; dim < d.shape.size(); ++dim) {
        unsigned pd = d.parentDim(dim);
        Value v = arith::AddIOp::create(b, loc, base[pd], i32(off[pd]));
        if (d.blocked.ctaTile(pd) > d.parentShape[pd])
          v = arith::RemUIOp::create(b, loc, v, i32(d.parentShape[pd]));
        idx.push_back(v);
      }
      out.push_back(idx);
    }
    return out;
  }
  // True in the program's first thread (the one that stores a scalar).
  Value isThreadZero() {
    Value tid = arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, warp, i32(32)), lane);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, i32(0));
  }
  // True in the one thread that owns each element among its replicas, a
  // value per register; none for a layout without replicas.
  SmallVector<Value> ownerPredicates(const Dist &d) {
    if (!d.replicates())
      return {};
    SmallVector<Value> base = threadBase(d.blocked);
    SmallVector<Value> out;
    for (int64_t r = 0; r < d.numRegs(); ++r) {
      layout::Index off = d.offset(r);
      Value all;
      for (unsigned pd = 0; pd < d.parentShape.size(); ++pd) {
        if (d.blocked.ctaTile(pd) <= d.parentShape[pd])
          continue;
        Value v = arith::AddIOp::create(b, loc, base[pd], i32(off[pd]));
        Value ok = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, v,
                                           i32(d.parentShape[pd]));
        all = all ? arith::AndIOp::create(b, loc, all, ok).getResult() : ok;
      }
      out.push_back(all); // some dimension replicates: never null
    }
    return out;
  }

  // --- shared memory --------------------------------------------------------
  // The kernel's scratch buffer (exchanges between threads: layout
  // conversions, dots, reductions).
  Value sharedBase() {
    lastExchangeAlternate = false;
    return LLVM::AddressOfOp::create(b, 
        loc, LLVM::LLVMPointerType::get(ctx, kShared), smemName);
  }
  // The scratch buffer for a reduction of `bytes`: the one the previous
  // exchange did not use, so that no thread can still be reading what its
  // stores overwrite and the barrier before them goes (BarrierElision.h).
  Value reductionScratch(int64_t bytes) {
    if (lastExchangeAlternate) {
      smemBytes = std::max(smemBytes, bytes);
      return sharedBase();
    }
    altBytes = std::max(altBytes, bytes);
    lastExchangeAlternate = true;
    return LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, kShared),
                                     smemName + "_alt");
  }
  Value sharedSlot(Value base, Type elem, Value index) {
    return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, kShared),
                                 elem, base, ValueRange{index});
  }

  // --- op lowering ------------------------------------------------------------
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerElementwise(Operation *op);
  std::optional<std::vector<int64_t>> constantRunRepresentatives(Value v);
  LogicalResult lowerConstant(arith::ConstantOp op);
  LogicalResult lowerLoad(LoadOp op);
  LogicalResult lowerStore(StoreOp op);
  void lowerStreamingStore(StoreOp op, int64_t n, int64_t width, int64_t bytes, bool perElement,
                           llvm::function_ref<Value(int64_t)> maskOf);
  Value storedVector(StoreOp op, int64_t r, int64_t width);
  void storeRunEitherWay(llvm::function_ref<Value(int64_t)> maskOf, int64_t r, int64_t width,
                         llvm::function_ref<void()> whole, llvm::function_ref<void(int64_t)> element);
  LogicalResult lowerAtomic(AtomicRMWOp op);
  LogicalResult lowerReduce(ReduceOp op);
  // A reduction's stages (ReduceLowering.cpp): a thread's own values, then
  // the lanes (here or in a group's butterfly), the warps, and the result's
  // registers. `partials` has one entry per group of the thread's registers
  // that share their offset off the axis (`groupOrder`).
  struct ReducePartial {
    Value value, index; // index: argmax and argmin only
  };
  struct ThreadReduction {
    std::vector<layout::Index> groupOrder;
    SmallVector<ReducePartial> partials;
  };
  ReducePartial pickPartial(StringRef kind, ReducePartial a, ReducePartial c);
  LogicalResult checkReducible(ReduceOp op);
  ThreadReduction reduceWithinThread(ReduceOp op, const Dist &src, unsigned axis);
  void reduceAcrossWarps(StringRef kind, const Dist &src, unsigned axis,
                         SmallVector<ReducePartial> &partials);
  LogicalResult handOutPartials(ReduceOp op, const Dist &src, unsigned axis,
                                const ThreadReduction &t);
  // @fused_reductions (ReductionGroups.cpp): reductions of a block that
  // combine across the same lanes share one reduce-scatter butterfly.
  void findReductionGroups();
  LogicalResult lowerReductionGroup(const ReductionGroup &group);
  LogicalResult lowerConvert(ConvertLayoutOp op);
  LogicalResult lowerReshape(ReshapeOp op);
  LogicalResult lowerDot(DotOp op);
  // A dot operand that is a load (or trans of a load) used only there, in the
  // dot's block or an enclosing one with no store between, copyable: it goes
  // from global to shared memory by cp.async, never through registers.
  LoadOp copiedOperand(Value operand);
  // A load cp.async can stand for: a tile of 16-bit elements in vectors of
  // at least 4 bytes with uniform masks, +0.0 where masked.
  bool copyable(LoadOp load);
  // A dot operand carried around a loop and prefetched (see Pipeline): its
  // two loads, or nothing.
  std::optional<std::pair<LoadOp, LoadOp>> pipelinedLoads(DotOp dot, Value operand);
  void findCopiedLoads();
  // Issues the cp.async of a copied operand (tile distribution `dist`, as
  // the dot sees it) to a buffer of layout `at` at shared address `base`.
  void copyToShared(LoadOp load, const Dist &dist, const layout::SharedLayout &at, Value base);
  // Where a dot keeps operand a (isA) or b in shared memory.
  layout::SharedLayout dotOperandLayout(const Dist &operand, bool isA);
  // A copied load, lowered where it stands: a barrier (earlier readers of
  // its buffer are done), its cp.async into its own buffer, one commit
  // group; its dot waits for that group. So the copy's latency overlaps
  // whatever comes between the load and the dot.
  LogicalResult lowerCopiedLoad(LoadOp load);
  // The copy of a copied or pipelined load (the dot's `operand`) to `at`:
  // a barrier, its cp.async, one commit group.
  LogicalResult issueCopy(LoadOp load, Value operand, bool isA, Value at);
  // A shared buffer of its own for a copy (a global): its name.
  std::string addCopyBuffer(int64_t bytes);
  // A pipelined load: the same, into the half of its pipeline's buffer that
  // the previous iteration's dot does not read (half 0 before the loop);
  // its value is that half's number.
  LogicalResult lowerPipelinedLoad(LoadOp load);
  // The shared buffer holding a dot operand that is copied or pipelined, or
  // nothing; `pending` lowers to the groups that may stay in flight.
  Value dotOperandBuffer(Value operand, int64_t &pending);
  // Writes register regAt(r) of a tile of distribution `src` at its place in a
  // shared buffer of layout `at` that starts at `base` (runs of registers
  // that are consecutive there go as one vector store).
  void storeToShared(const Dist &src, Type elem, unsigned bytes, const layout::SharedLayout &at,
                     Value base, function_ref<Value(int64_t)> regAt);
  Regs exchangeThroughShared(Value source, const Dist &src, const Dist &dst,
                             const layout::SharedLayout &writeAt,
                             const layout::SharedLayout &readAt);
  Value sharedOffset(const layout::SharedLayout &s, const layout::Shape &shape,
                     ArrayRef<Value> idx);
  LogicalResult lowerConvertByShuffles(ConvertLayoutOp op, const Dist &src,
                                       const Dist &dst,
                                       const layout::ShufflePlan &plan);
  Value shuffleIdxAny(Value v, Value srcLane);
  std::pair<Value, Value> locate(const Dist &d, ArrayRef<Value> idx);
  LogicalResult lowerBroadcastLike(Operation *op, Value src,
                                   RankedTensorType dstType);
  LogicalResult lowerNarrowTrunc(Operation *op, Value src, Type dstElem);
  LogicalResult lowerNarrowExt(Operation *op, Value src, Type dstElem);
  LogicalResult lowerMath(Operation *op);
  LogicalResult lowerQuantize(QuantizeOp op);
  LogicalResult lowerDequantize(DequantizeOp op);
  Value decodeE4M3(Value bits);
  Value decodeE2M1(Value nibble);
  LogicalResult lowerFor(scf::ForOp op);
  LogicalResult lowerIf(scf::IfOp op);
  Value combine(StringRef kind, Value a, Value b);

  void declareLibdevice(StringRef name, Type elem, unsigned arity);
  LogicalResult lowerDivide(arith::DivFOp op);
  // A division's registers: the larger operand's (a scalar one is broadcast).
  int64_t quotientRegs(arith::DivFOp op) {
    return std::max(numRegsOf(op.getLhs()), numRegsOf(op.getRhs()));
  }
  LogicalResult lowerFastDivide(arith::DivFOp op);
  LogicalResult lowerFp8Quotient(arith::DivFOp op);
  LogicalResult lowerIeeeDivide(arith::DivFOp op);
  LogicalResult lowerTileDivide(arith::DivFOp op);
  struct LogisticQuotient {
    Value x;   // the argument
    bool silu; // x / (1 + exp(-x)), else 1 / (1 + exp(-x))
  };
  std::optional<LogisticQuotient> matchLogisticQuotient(arith::DivFOp op);
  LogicalResult lowerLogisticQuotient(arith::DivFOp op, LogisticQuotient form);
  // A stored vector of FP8 bytes built from their conversions' i16 pairs.
  Value bytePairsVector(Value value, int64_t r, int64_t width);
  // v in [lo, hi] (false for NaN).
  Value inClosedRange(Value v, float lo, float hi);
  // n f32 values: fast(i) where `take` holds, exact(i) otherwise, behind one
  // branch, so that a thread computes only one of the two.
  Regs fastOrExact(Value take, int64_t n, function_ref<Value(int64_t)> fast,
                   function_ref<Value(int64_t)> exact);
  LogicalResult lowerBf16ToF32(Operation *op);
  Value softwareF4(Value x); // exact E2M1 rounding for targets without cvt: i32 code
  Value softwareF4Pair(Value lo, Value hi); // two codes in a byte, lo in the low nibble
  // The same, lo and hi scaled by a non-negative factor from two bf16 of a
  // loaded word (their signs then come from the word at once).
  Value softwareF4Pair(Value lo, Value hi, Value loNarrow, Value hiNarrow);

  func::FuncOp func;
  const Target &target;
  OpBuilder b;
  MLIRContext *ctx;
  Location loc = UnknownLoc::get(ctx);
  DenseMap<Value, Regs> values;
  // f32 registers widened from bf16 ones (lowerBf16ToF32), to the bf16.
  DenseMap<Value, Value> widenedFrom;
  // The maxima (minima) an argmax (argmin) computed on the way, by its
  // source and axis: a max (min) of the same tile in the same block after it
  // reuses them instead of reducing again (route's top-k asks for both).
  std::map<std::tuple<void *, unsigned, std::string>, std::pair<Operation *, Regs>> argValues;
  Block *entryBlock = nullptr;
  DenseMap<TypedAttr, Value> constants;
  // A lane's or warp's digits (digit()), made once a block: every tile op's
  // lowering asks for its layout's thread coordinates (the same PTX; reusing
  // whole thread bases or element indices too changed some kernels' PTX).
  DenseMap<std::tuple<Value, int64_t, int64_t>, Value> digits;
  AxisInfoAnalysis axisInfo;
  // @fused_reductions: each group's reductions, by its first (the others'
  // operands were moved above it), which lowers them all.
  DenseMap<Operation *, ReductionGroup> reductionGroups;
  // Loads (and their trans) that go to shared memory by cp.async for a dot.
  struct Copy {
    Value operand;      // the dot's operand (the load, or its trans)
    bool isA = false;   // operand a of the dot, else b
    std::string buffer; // its own shared buffer (a global)
    int64_t group = -1; // commit-group number, once issued
  };
  DenseMap<Operation *, Copy> copies;     // by load
  DenseSet<Operation *> copiedTransposes; // lowered with their load
  // A dot operand prefetched around a loop: `kt = load(..)` before it,
  // `kn = load(..)` in its body and `kt = kn` at its end, kt used only by the
  // dot (or a trans for it). Both loads are copied into the two halves of one
  // buffer; the loop carries which half holds this iteration's tile (an i32),
  // so the next iteration's copy is in flight during this one's dot.
  struct Pipeline {
    Value operand;          // the dot's operand (the carried tile, or its trans)
    bool isA = false;
    std::string buffer;     // two halves of `half` bytes
    int64_t half = 0;
    int64_t padGroups = 0;  // empty groups after the first copy (see findPipeline)
    int64_t pendingAtDot = 0;
  };
  std::vector<Pipeline> pipelines;
  DenseMap<Operation *, size_t> pipelineOfLoad; // both loads
  DenseMap<Value, size_t> pipelineOfOperand;    // the dot's operand
  int64_t committedGroups = 0;
  std::vector<std::pair<std::string, int64_t>> copyBuffers; // name, bytes
  Value lane, warp;
  std::string smemName;
  int64_t smemBytes = 0;
  int64_t altBytes = 0;                // smemName + "_alt", reductions only
  // The last exchange used the _alt buffer; true at first, so that a
  // kernel's first reduction takes the main one.
  bool lastExchangeAlternate = true;
};

} // namespace megac::lowering
