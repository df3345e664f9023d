// tile.convert_layout and tile.reshape: registers moved between layouts, by
// warp shuffles where the two layouts share a warp's elements, otherwise
// through (swizzled or padded) shared memory (docs/dialect.md).
#include "KernelLowering.h"
#include "NVVMBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace megac::lowering {

LogicalResult KernelLowering::lowerConvert(ConvertLayoutOp op) {
  auto srcType = op.getSrc().getType(), dstType = op.getType();
  auto src = distOf(op, srcType), dst = distOf(op, dstType);
  if (failed(src) || failed(dst))
    return failure();
  unsigned numWarps = unsigned(getNumWarps(func));
  layout::TileLayout srcLayout{src->blocked, src->sliceDim},
      dstLayout{dst->blocked, dst->sliceDim};
  switch (layout::classifyConversion(srcLayout, dstLayout, src->shape,
                                     numWarps)) {
  case layout::ConversionKind::NoOp: {
    Regs same = lookup(op.getSrc());
    values[op] = same;
    return success();
  }
  case layout::ConversionKind::WarpShuffles:
    return lowerConvertByShuffles(
        op, *src, *dst,
        *layout::planWarpShuffles(srcLayout, dstLayout, src->shape, numWarps));
  case layout::ConversionKind::SharedMemory:
    break;
  }
  // The buffer's layout: the one tile-assign-shared-layouts chose (or that
  // the IR names), else the same choice made here.
  auto shared = sharedLayoutOf(op->getAttr(attr::kShared));
  if (!shared)
    shared = layout::chooseSharedLayout(
                 srcLayout, dstLayout, src->shape, numWarps,
                 sharedElementBytes(srcType.getElementType()))
                 .layout;
  values[op] = exchangeThroughShared(op.getSrc(), *src, *dst, *shared, *shared);
  return success();
}

LogicalResult KernelLowering::lowerReshape(ReshapeOp op) {
  auto src = distOf(op, op.getSrc().getType()), dst = distOf(op, op.getType());
  if (failed(src) || failed(dst))
    return failure();
  // Row-major on both sides: a reshape keeps the row-major order.
  values[op] = exchangeThroughShared(
      op.getSrc(), *src, *dst, layout::SharedLayout::rowMajor(src->shape.size()),
      layout::SharedLayout::rowMajor(dst->shape.size()));
  return success();
}


// The element offset of `idx` in a buffer of layout `s` (SharedLayout::offsetOf
// in IR); divisions and remainders are by powers of two.
Value KernelLowering::sharedOffset(const layout::SharedLayout &s,
                                   const layout::Shape &shape,
                                   ArrayRef<Value> idx) {
  auto mul = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, i32(c));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value row = i32(0);
  for (size_t k = s.order.size(); k-- > 1;)
    row = add(mul(row, shape[s.order[k]]), idx[s.order[k]]);
  Value col = idx[s.order[0]];
  int64_t cols = shape[s.order[0]];
  if (s.kind == layout::SharedLayout::Kind::Padded) {
    Value linear = add(mul(row, cols), col);
    Value pads = arith::DivUIOp::create(b, loc, linear, i32(s.interval));
    return add(linear, mul(pads, s.padding));
  }
  int64_t phases = s.phaseCount(shape);
  if (phases == 1)
    return add(mul(row, cols), col);
  Value phaseCount = i32(phases);
  Value phase = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, row, i32(s.perPhase)), phaseCount);
  Value chunk = arith::DivUIOp::create(b, loc, col, i32(s.vec));
  Value swizzled = mul(arith::XOrIOp::create(b, loc, chunk, phase), s.vec);
  Value within = arith::RemUIOp::create(b, loc, col, i32(s.vec));
  return add(add(mul(row, cols), swizzled), within);
}

void KernelLowering::storeToShared(const Dist &src, Type elem, unsigned bytes,
                                   const layout::SharedLayout &at, Value base,
                                   function_ref<Value(int64_t)> regAt) {
  auto srcIdx = elementIndices(src);
  int64_t width = layout::sharedAccessWidth(layout::TileLayout{src.blocked, src.sliceDim},
                                            src.shape, at, bytes);
  for (int64_t r = 0; r < src.numRegs(); r += width) {
    Value slot = sharedSlot(base, elem, sharedOffset(at, src.shape, srcIdx[r]));
    Value v;
    if (width == 1) {
      v = regAt(r);
    } else {
      v = LLVM::UndefOp::create(b, loc, VectorType::get({width}, elem));
      for (int64_t k = 0; k < width; ++k) {
        Value position = i32(k); // (before regAt, which may build: argument order)
        v = LLVM::InsertElementOp::create(b, loc, v, regAt(r + k), position);
      }
    }
    LLVM::StoreOp::create(b, loc, v, slot, width * bytes);
  }
}

// Every thread writes its registers into a shared buffer of layout `writeAt`
// (replicas write the same value to the same place), then reads what its new
// layout holds at `readAt` (the shapes may differ: a reshape). Runs of
// registers that are consecutive in the buffer move as one vector access
// (layout::sharedAccessWidth, the width the bank-conflict count assumes).
Regs KernelLowering::exchangeThroughShared(Value source, const Dist &src,
                                          const Dist &dst,
                                          const layout::SharedLayout &writeAt,
                                          const layout::SharedLayout &readAt) {
  Type elemType = getElementTypeOrSelf(source.getType());
  Type stor = storageType(elemType);
  // Masks travel as bytes, pointers as i64 (vectors of integers).
  Type elem = stor.isInteger(1) ? b.getI8Type()
              : isa<LLVM::LLVMPointerType>(stor) ? b.getI64Type()
                                                  : stor;
  unsigned bytes = sharedElementBytes(elemType);
  smemBytes = std::max({smemBytes, writeAt.allocationElems(src.shape) * bytes,
                        readAt.allocationElems(dst.shape) * bytes});
  auto toShared = [&](Value v) -> Value {
    if (stor.isInteger(1))
      return arith::ExtUIOp::create(b, loc, elem, v);
    if (isa<LLVM::LLVMPointerType>(stor))
      return LLVM::PtrToIntOp::create(b, loc, elem, v);
    return v;
  };
  auto fromShared = [&](Value v) -> Value {
    if (stor.isInteger(1))
      return arith::TruncIOp::create(b, loc, stor, v);
    if (isa<LLVM::LLVMPointerType>(stor))
      return LLVM::IntToPtrOp::create(b, loc, stor, v);
    return v;
  };
  auto widthOf = [&](const Dist &d, const layout::SharedLayout &s) {
    return int64_t(layout::sharedAccessWidth(
        layout::TileLayout{d.blocked, d.sliceDim}, d.shape, s, bytes));
  };
  Value base = sharedBase();
  nvvm::barrier(b, loc);
  storeToShared(src, elem, bytes, writeAt, base,
                [&](int64_t r) { return toShared(lookup(source)[r]); });
  nvvm::barrier(b, loc);
  auto dstIdx = elementIndices(dst);
  int64_t width = widthOf(dst, readAt);
  Regs out;
  for (int64_t r = 0; r < dst.numRegs(); r += width) {
    Value slot = sharedSlot(base, elem, sharedOffset(readAt, dst.shape, dstIdx[r]));
    if (width == 1) {
      out.push_back(fromShared(LLVM::LoadOp::create(b, loc, elem, slot, bytes)));
      continue;
    }
    Value v = LLVM::LoadOp::create(b, loc, VectorType::get({width}, elem), slot,
                                     width * bytes);
    for (int64_t k = 0; k < width; ++k)
      out.push_back(fromShared(LLVM::ExtractElementOp::create(b, loc, v, i32(k))));
  }
  return out;
}


Value KernelLowering::shuffleIdxAny(Value v, Value srcLane) {
  Type t = v.getType();
  Type i32t = b.getI32Type(), i64t = b.getI64Type();
  if (t.isF32() || t.isInteger(32))
    return nvvm::shuffleIdx(b, loc, v, srcLane);
  auto asI64 = [&](Value x) -> Value {
    if (isa<LLVM::LLVMPointerType>(x.getType()))
      return LLVM::PtrToIntOp::create(b, loc, i64t, x);
    return LLVM::BitcastOp::create(b, loc, i64t, x); // f64 (i64 passes through)
  };
  if (isa<LLVM::LLVMPointerType>(t) || t.isF64() || t.isInteger(64)) {
    Value x = t.isInteger(64) ? v : asI64(v);
    Value lo = arith::TruncIOp::create(b, loc, i32t, x);
    Value hi = arith::TruncIOp::create(b, 
        loc, i32t,
        arith::ShRUIOp::create(b, loc, x, arith::ConstantIntOp::create(b, loc, i64t, 32)));
    lo = nvvm::shuffleIdx(b, loc, lo, srcLane);
    hi = nvvm::shuffleIdx(b, loc, hi, srcLane);
    Value c32 = arith::ConstantIntOp::create(b, loc, i64t, 32);
    Value high = arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64t, hi), c32);
    Value low = arith::ExtUIOp::create(b, loc, i64t, lo);
    Value y = arith::OrIOp::create(b, loc, low, high);
    if (t.isInteger(64))
      return y;
    if (isa<LLVM::LLVMPointerType>(t))
      return LLVM::IntToPtrOp::create(b, loc, t, y);
    return LLVM::BitcastOp::create(b, loc, t, y);
  }
  // Narrower: widen the bits to 32.
  unsigned bits = t.getIntOrFloatBitWidth();
  Type bitsType = b.getIntegerType(bits);
  Value x = isa<FloatType>(t) ? LLVM::BitcastOp::create(b, loc, bitsType, v).getResult() : v;
  x = arith::ExtUIOp::create(b, loc, i32t, x);
  x = nvvm::shuffleIdx(b, loc, x, srcLane);
  x = arith::TruncIOp::create(b, loc, bitsType, x);
  return isa<FloatType>(t) ? LLVM::BitcastOp::create(b, loc, t, x).getResult() : x;
}

// The lane (within the warp) and the parent register that hold element
// `idx` (the tile's dimensions) in `d`: Blocked::locate in IR.
std::pair<Value, Value> KernelLowering::locate(const Dist &d, ArrayRef<Value> idx) {
  const layout::Blocked &l = d.blocked;
  SmallVector<Value> e(idx.begin(), idx.end());
  if (d.sliceDim >= 0)
    e.insert(e.begin() + d.sliceDim, i32(0));
  auto div = [&](Value v, int64_t c) -> Value {
    return c == 1 ? v : arith::DivUIOp::create(b, loc, v, i32(c)).getResult();
  };
  auto rem = [&](Value v, int64_t c) -> Value {
    return c == 1 ? i32(0) : arith::RemUIOp::create(b, loc, v, i32(c)).getResult();
  };
  Value laneV = i32(0), within = i32(0), rep = i32(0);
  int64_t laneScale = 1, withinScale = 1, repScale = 1;
  for (unsigned dim : l.order) {
    int64_t spt = l.sizePerThread[dim], tpw = l.threadsPerWarp[dim];
    int64_t reps = l.repetitions(d.parentShape, dim);
    // (The scale first: argument order is the compiler's, the IR must not be.)
    if (tpw > 1) {
      Value scale = i32(laneScale);
      laneV = arith::AddIOp::create(
          b, loc, laneV, arith::MulIOp::create(b, loc, rem(div(e[dim], spt), tpw), scale));
    }
    if (spt > 1) {
      Value scale = i32(withinScale);
      within = arith::AddIOp::create(
          b, loc, within, arith::MulIOp::create(b, loc, rem(e[dim], spt), scale));
    }
    if (reps > 1) {
      Value scale = i32(repScale);
      rep = arith::AddIOp::create(
          b, loc, rep,
          arith::MulIOp::create(b, loc, rem(div(e[dim], l.ctaTile(dim)), reps), scale));
    }
    laneScale *= tpw;
    withinScale *= spt;
    repScale *= reps;
  }
  Value regV = arith::AddIOp::create(b, 
      loc, within, arith::MulIOp::create(b, loc, rep, i32(withinScale)));
  return {laneV, regV};
}

LogicalResult KernelLowering::lowerConvertByShuffles(
    ConvertLayoutOp op, const Dist &src, const Dist &dst,
    const layout::ShufflePlan &plan) {
  Regs in = lookup(op.getSrc());
  auto dstIdx = elementIndices(dst);
  Regs out;
  for (int64_t r = 0; r < dst.numRegs(); ++r) {
    auto [fromLane, fromReg] = locate(src, dstIdx[r]);
    const auto &sources = plan.sources[r];
    Value acc;
    for (int64_t s : sources) {
      Value got = shuffleIdxAny(in[s], fromLane);
      if (!acc) {
        acc = got;
        continue;
      }
      Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           fromReg, i32(src.parentRegs[s]));
      acc = arith::SelectOp::create(b, loc, mine, got, acc);
    }
    out.push_back(acc);
  }
  values[op] = out;
  return success();
}

} // namespace megac::lowering
