// tile.reduce: a thread's own values first (in register order, or pairwise),
// then butterfly shuffles across the lanes, then shared memory across warps
// (docs/dialect.md, "Reductions within a thread").
#include "KernelLowering.h"
#include "NVVMBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace megac::lowering {

Value KernelLowering::combine(StringRef kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  if (kind == "sum")
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  if (kind == "max")
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                 : arith::MinSIOp::create(b, loc, x, y).getResult();
}

KernelLowering::ReducePartial KernelLowering::pickPartial(StringRef kind, ReducePartial a,
                                                          ReducePartial c) {
  bool isArg = kind == "argmax" || kind == "argmin";
  StringRef valueKind = kind == "argmax" ? "max" : kind == "argmin" ? "min" : kind;
  if (!isArg)
    return {combine(valueKind, a.value, c.value), Value()};
  bool isFloat = isa<FloatType>(a.value.getType());
  auto pred = kind == "argmax" ? arith::CmpFPredicate::OGT
                               : arith::CmpFPredicate::OLT;
  auto ipred = kind == "argmax" ? arith::CmpIPredicate::sgt
                                : arith::CmpIPredicate::slt;
  Value better = isFloat
                     ? arith::CmpFOp::create(b, loc, pred, c.value, a.value)
                           .getResult()
                     : arith::CmpIOp::create(b, loc, ipred, c.value, a.value)
                           .getResult();
  Value equal = isFloat
                    ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                              c.value, a.value)
                          .getResult()
                    : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              c.value, a.value)
                          .getResult();
  Value lower = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                        c.index, a.index);
  Value tieWin = arith::AndIOp::create(b, loc, equal, lower);
  Value take = arith::OrIOp::create(b, loc, better, tieWin);
  // The value as max (min) combines it, NaN and signed zeros included, so
  // that it is exactly the max (min) a sibling reduction would give.
  return {combine(valueKind, a.value, c.value),
          arith::SelectOp::create(b, loc, take, c.index, a.index)};
}

LogicalResult KernelLowering::checkReducible(ReduceOp op) {
  Type elem = op.getSrc().getType().getElementType();
  if (!elem.isF32() && !elem.isInteger(32)) {
    InFlightDiagnostic diag = op.emitError("reductions need an f32 or i32 tile, got ") << elem;
    diag.attachNote() << kHintPrefix << "reduce a converted tile, e.g. sum(x as f32)";
    return diag;
  }
  return success();
}

LogicalResult KernelLowering::lowerReduce(ReduceOp op) {
  // A reduction of a group (@fused_reductions) is lowered with the group's
  // first, which gave it its registers already.
  if (values.count(op))
    return success();
  if (auto group = reductionGroups.find(op); group != reductionGroups.end())
    return lowerReductionGroup(group->second);
  if (failed(checkReducible(op)))
    return failure();
  auto srcType = op.getSrc().getType();
  auto src = distOf(op, srcType);
  if (failed(src))
    return failure();
  // A sliced 1-D tile reduces like its parent, over the parent's dimension
  // (threads that differ only along the sliced dimension hold replicas).
  if (src->sliceDim >= 0 && isa<RankedTensorType>(op.getType()))
    return op.emitError("internal: partially reducing a sliced tile");
  StringRef kind = op.getKind();
  bool isArg = kind == "argmax" || kind == "argmin";
  StringRef valueKind = kind == "argmax" ? "max" : kind == "argmin" ? "min" : kind;
  unsigned tileAxis = op.getAxis();
  auto argKey = std::make_tuple(op.getSrc().getAsOpaquePointer(), tileAxis, valueKind.str());
  if (!isArg) {
    auto known = argValues.find(argKey);
    if (known != argValues.end() && known->second.first->getBlock() == op->getBlock() &&
        known->second.first->isBeforeInBlock(op)) {
      values[op] = known->second.second;
      return success();
    }
  }
  unsigned axis = src->parentDim(tileAxis);
  ThreadReduction t = reduceWithinThread(op, *src, axis);
  // 2. Across lanes of the warp that hold other elements along the axis.
  for (unsigned mask : src->blocked.laneXorMasks(src->parentShape, axis))
    for (ReducePartial &p : t.partials) {
      ReducePartial other{nvvm::shuffleXor(b, loc, p.value, mask),
                          isArg ? nvvm::shuffleXor(b, loc, p.index, mask) : Value()};
      p = pickPartial(kind, p, other);
    }
  reduceAcrossWarps(kind, *src, axis, t.partials);
  return handOutPartials(op, *src, axis, t);
}

RegisterGroups registerGroupsOffAxis(const Dist &src, unsigned axis) {
  RegisterGroups groups;
  for (int64_t r = 0; r < src.numRegs(); ++r) {
    layout::Index off = src.offset(r);
    int64_t along = off[axis] % src.parentShape[axis];
    off[axis] = 0;
    auto &g = groups.members[off];
    if (g.empty())
      groups.order.push_back(off);
    // Registers that wrap onto an element already in the group are replicas.
    bool replica = false;
    for (int64_t other : g)
      if (src.offset(other)[axis] % src.parentShape[axis] == along)
        replica = true;
    if (!replica)
      g.push_back(r);
  }
  return groups;
}

// 1. Within the thread: group registers by their offset off the axis.
KernelLowering::ThreadReduction KernelLowering::reduceWithinThread(ReduceOp op, const Dist &src,
                                                                   unsigned axis) {
  StringRef kind = op.getKind();
  bool isArg = kind == "argmax" || kind == "argmin";
  ThreadReduction t;
  RegisterGroups groups = registerGroupsOffAxis(src, axis);
  t.groupOrder = groups.order;
  SmallVector<SmallVector<Value>> indices;
  if (isArg)
    indices = elementIndices(src);

  // argmax and argmin give the same result in any order, and each step of
  // theirs is five dependent operations: they combine a thread's values
  // pairwise, log2(n) steps instead of n - 1 (route's ten argmax rounds over
  // 16 values a thread wait on that chain). Sums add in register order (the
  // rounding is part of the result); max and min too: one instruction a step,
  // and a tree's partials cost registers (softmax_small 72 -> 76, and slower
  // at M = 16384). `@tree_reductions` makes them pairwise too where the
  // chain is what a program waits on (softmax at M = 4096: 0.97 -> 1.00 of
  // Triton; results/tuning_tree_reductions_95ad055.md).
  bool pairwise = isArg || func->hasAttr(tile::attr::kTreeReductions);
  for (auto &off : t.groupOrder) {
    auto &g = groups.members[off];
    SmallVector<ReducePartial> level;
    for (int64_t r : g)
      level.push_back({lookup(op.getSrc())[r], isArg ? indices[r][op.getAxis()] : Value()});
    if (!pairwise) {
      for (size_t k = 1; k < level.size(); ++k)
        level[0] = pickPartial(kind, level[0], level[k]);
    } else {
      while (level.size() > 1) {
        SmallVector<ReducePartial> next;
        for (size_t k = 0; k + 1 < level.size(); k += 2)
          next.push_back(pickPartial(kind, level[k], level[k + 1]));
        if (level.size() % 2)
          next.push_back(level.back());
        level = std::move(next);
      }
    }
    t.partials.push_back(level[0]);
  }
  return t;
}

// 3. Across warps, through shared memory.
void KernelLowering::reduceAcrossWarps(StringRef kind, const Dist &src, unsigned axis,
                                       SmallVector<ReducePartial> &partials) {
  bool isArg = kind == "argmax" || kind == "argmin";
  Type elem = partials.front().value.getType();
  const layout::Blocked &l = src.blocked;
  layout::Shape shape = src.parentShape;
  auto warpMasks = l.warpXorMasks(shape, axis);
  if (warpMasks.empty())
    return;
  int64_t ways = int64_t(1) << warpMasks.size();
  // Threads that differ only in the axis digits share a result: name the
  // group by the thread's lane and warp bits with the axis bits removed
  // (Blocked::reductionKey), so there is one slot per group, not per thread.
  int64_t keys = l.numReductionKeys(shape, axis);
  int64_t slots = int64_t(partials.size()) * keys * ways;
  int64_t fields = isArg ? 2 : 1;
  auto compress = [&](Value v, std::vector<unsigned> masks) {
    std::sort(masks.rbegin(), masks.rend());
    for (unsigned m : masks) {
      Value below = arith::AndIOp::create(b, loc, v, i32(m - 1));
      Value factor = i32(m); // (before the quotient: argument order is the compiler's)
      Value above = arith::MulIOp::create(
          b, loc, arith::DivUIOp::create(b, loc, v, i32(2 * int64_t(m))), factor);
      v = arith::OrIOp::create(b, loc, below, above);
    }
    return v;
  };
  auto laneMasks = l.laneXorMasks(shape, axis);
  Value laneKey = compress(lane, laneMasks);
  Value warpKey = compress(
      arith::RemUIOp::create(b, loc, warp, i32(l.numWarps())), warpMasks);
  Value key = arith::AddIOp::create(b, 
      loc, arith::MulIOp::create(b, loc, warpKey, i32(32 >> laneMasks.size())),
      laneKey);
  Value digit = warpDigit(l, axis);
  digit = arith::RemUIOp::create(b, loc, digit, i32(ways));
  // Slots ordered (partial, way, key): the lanes of a warp have
  // consecutive keys, so each store and each load of one way touches
  // consecutive words, free of bank conflicts (keyed innermost, one
  // warp's stores would land `ways` words apart). Slot (k, way) is word
  // (k * ways + way) * keys + key: one variable address for the stores and
  // one for the loads, then constant offsets (smaller IR, less for LLVM).
  Type i32t = b.getI32Type();
  Value storeAt = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, digit, i32(keys)), key);
  Value scratch = reductionScratch(slots * 4 * fields);
  Value valuesAtStore = sharedSlot(scratch, elem, storeAt);
  Value valuesAtLoad = sharedSlot(scratch, elem, key);
  Value indicesAtStore, indicesAtLoad;
  if (isArg) {
    // (The offset before the base: argument order is the compiler's.
    // Constants are made once a kernel: one value serves both.)
    Value indicesAt = i32(slots);
    indicesAtStore = sharedSlot(sharedSlot(scratch, i32t, indicesAt), i32t, storeAt);
    indicesAtLoad = sharedSlot(sharedSlot(scratch, i32t, indicesAt), i32t, key);
  }
  nvvm::barrier(b, loc);
  for (size_t k = 0; k < partials.size(); ++k) {
    Value offset = i32(int64_t(k) * ways * keys);
    LLVM::StoreOp::create(b, loc, partials[k].value, sharedSlot(valuesAtStore, elem, offset));
    if (isArg)
      LLVM::StoreOp::create(b, loc, partials[k].index,
                              sharedSlot(indicesAtStore, i32t, offset));
  }
  nvvm::barrier(b, loc);
  for (size_t k = 0; k < partials.size(); ++k) {
    ReducePartial acc{};
    for (int64_t w = 0; w < ways; ++w) {
      Value offset = i32((int64_t(k) * ways + w) * keys);
      ReducePartial p{LLVM::LoadOp::create(b, loc, elem, sharedSlot(valuesAtLoad, elem, offset)),
                Value()};
      if (isArg)
        p.index = LLVM::LoadOp::create(b, loc, i32t, sharedSlot(indicesAtLoad, i32t, offset));
      acc = w == 0 ? p : pickPartial(kind, acc, p);
    }
    partials[k] = acc;
  }
}

// 4. Hand the partials to the result's registers (the slice layout keeps
// the parent registers at offset 0 along the axis, in order).
LogicalResult KernelLowering::handOutPartials(ReduceOp op, const Dist &src, unsigned axis,
                                              const ThreadReduction &t) {
  StringRef kind = op.getKind();
  bool isArg = kind == "argmax" || kind == "argmin";
  const SmallVector<ReducePartial> &partials = t.partials;
  const std::vector<layout::Index> &groupOrder = t.groupOrder;
  Regs out;
  auto resultType = dyn_cast<RankedTensorType>(op.getType());
  std::map<layout::Index, size_t> partialOf;
  for (size_t k = 0; k < groupOrder.size(); ++k)
    partialOf[groupOrder[k]] = k;
  Regs maxima;
  if (!resultType) {
    out.push_back(isArg ? partials[0].index : partials[0].value);
    maxima.push_back(partials[0].value);
  } else {
    auto dst = distOf(op, resultType);
    if (failed(dst))
      return failure();
    for (int64_t r = 0; r < dst->numRegs(); ++r) {
      layout::Index off = dst->offset(r);
      off[axis] = 0;
      auto it = partialOf.find(off);
      if (it == partialOf.end())
        return op.emitError("internal: reduction result register unmatched");
      out.push_back(isArg ? partials[it->second].index
                          : partials[it->second].value);
      maxima.push_back(partials[it->second].value);
    }
  }
  if (isArg) {
    auto argKey = std::make_tuple(op.getSrc().getAsOpaquePointer(), unsigned(op.getAxis()),
                                  std::string(kind == "argmax" ? "max" : "min"));
    argValues[argKey] = {op.getOperation(), maxima};
  }
  values[op] = out;
  return success();
}

} // namespace megac::lowering
