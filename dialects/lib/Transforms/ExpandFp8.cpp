// tile-expand-fp8: the FP8 schemes of tile.quantize / tile.dequantize become
// the ops a hand-written kernel uses (absf, a max reduction, IEEE divisions,
// tile.fp_trunc), before layouts are assigned. Reductions, broadcasts and
// layouts then need nothing FP8-specific, and the bits are those of the
// references (python/megac/reference/): the division stays x / s, never a
// multiply by 1 / s (the lowering may divide by a shared s faster, with the
// same bytes: see Tile/Quant/Fp8Quotient.h), and tile.fp_trunc is cvt.rn.satfinite.{e4m3,e5m2}x2.f32,
// which rounds to nearest even and clamps to +-fmax like the references.
// A hand-written division by one scale whose only uses are such roundings is
// marked as the schemes' own quotients are.
#include "Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEEXPANDFP8
#include "Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

namespace {

class Fp8Expander {
public:
  explicit Fp8Expander(Operation *op) : b(op), loc(op->getLoc()) {}

  // values = fp_trunc(x / scale); the group schemes also return the scales.
  void expand(QuantizeOp op) {
    Type fp8 = op.getValues().getType().getElementType();
    Value x = toF32(op.getSrc());
    if (!fp8::isGroupScheme(op.getScheme())) {
      Value q = quotient(x, splat(op.getScale(), x.getType()));
      op.getValues().replaceAllUsesWith(truncate(q, fp8));
      return;
    }
    Value groups = toGroups(x);
    Value s = groupScales(groups, fp8::maxFinite(fp8), op.getScheme() == "fp8_group_ue8m0");
    // The reduction drops the group dimension; a tile one group wide gets it
    // back as a 1, so the scales are always [.., K/128].
    if (rankOf(s) < tileOf(x).getRank())
      s = withUnitDim(s);
    Value q = quotient(groups, perElement(s, tileOf(groups)));
    op.getValues().replaceAllUsesWith(fromGroups(truncate(q, fp8), op.getValues().getType()));
    op.getScales().replaceAllUsesWith(s);
  }

  // result = float(q) * scale, rounded to the result type.
  void expand(DequantizeOp op) {
    RankedTensorType type = op.getResult().getType();
    Value x;
    if (fp8::isGroupScheme(op.getScheme())) {
      Value groups = widen(toGroups(op.getValues()));
      x = arith::MulFOp::create(b, loc, groups, perElement(op.getScales(), tileOf(groups)));
    } else {
      Value wide = widen(op.getValues());
      x = arith::MulFOp::create(b, loc, wide, splat(op.getScales(), wide.getType()));
    }
    if (!type.getElementType().isF32())
      x = arith::TruncFOp::create(b, loc, tileOf(x).clone(type.getElementType()), x);
    op.getResult().replaceAllUsesWith(fromGroups(x, type));
  }

private:
  OpBuilder b;
  Location loc;

  static RankedTensorType tileOf(Value v) { return cast<RankedTensorType>(v.getType()); }

  Value splat(Value scalar, Type tile) { return SplatOp::create(b, loc, tile, scalar); }
  // A constant of `like`'s shape (a scalar or a splat tile).
  Value constLike(TypedAttr value, Type like) {
    Value c = arith::ConstantOp::create(b, loc, value);
    return isa<RankedTensorType>(like) ? splat(c, like) : c;
  }
  Value f32Like(double v, Type like) { return constLike(b.getF32FloatAttr(v), like); }
  Value i32Like(int32_t v, Type like) { return constLike(b.getI32IntegerAttr(v), like); }

  Value toF32(Value x) {
    return tileOf(x).getElementType().isF32() ? x : widen(x);
  }
  // x / s, marked as feeding only an FP8 rounding: the lowering may then
  // divide by a shared s with a reciprocal and one correction
  // (Tile/Quant/Fp8Quotient.h), which rounds to the same FP8 bytes.
  Value quotient(Value x, Value s) {
    auto div = arith::DivFOp::create(b, loc, x, s);
    div->setAttr(attr::kFp8Quotient, b.getUnitAttr());
    return div;
  }

  Value widen(Value x) {
    return arith::ExtFOp::create(b, loc, tileOf(x).clone(b.getF32Type()), x);
  }
  Value truncate(Value x, Type fp8) {
    return FpTruncOp::create(b, loc, tileOf(x).clone(fp8), x, b.getStringAttr("rne"),
                               b.getBoolAttr(true));
  }

  // [.., K] as [.., K/128, 128], one group per row of the new last dimension
  // (a tile of one group per row is already that).
  Value toGroups(Value x) {
    ArrayRef<int64_t> shape = tileOf(x).getShape();
    if (shape.back() == fp8::kGroup)
      return x;
    SmallVector<int64_t> grouped(shape.drop_back());
    grouped.append({shape.back() / fp8::kGroup, fp8::kGroup});
    return ReshapeOp::create(b, loc, tileOf(x).clone(grouped), x);
  }
  Value fromGroups(Value x, RankedTensorType type) {
    return tileOf(x).getShape() == type.getShape()
               ? x
               : ReshapeOp::create(b, loc, type.clone(tileOf(x).getElementType()), x).getResult();
  }

  // One scale per group, s = max(amax, 1e-10) / fmax (KERNELS.md): the
  // shape of `groups` without its last dimension (a scalar for one group).
  Value groupScales(Value groups, double fmax, bool ue8m0) {
    RankedTensorType type = tileOf(groups);
    int64_t axis = type.getRank() - 1;
    Type reduced = b.getF32Type();
    if (axis > 0)
      reduced = RankedTensorType::get(type.getShape().drop_back(), reduced);
    Value amax = ReduceOp::create(b, loc, reduced, math::AbsFOp::create(b, loc, groups),
                                    b.getI32IntegerAttr(axis), b.getStringAttr("max"));
    Value floored = arith::MaximumFOp::create(b, loc, amax, f32Like(fp8::kMinAmax, reduced));
    Value s = arith::DivFOp::create(b, loc, floored, f32Like(fmax, reduced));
    return ue8m0 ? roundUpToPow2(s) : s;
  }

  // The smallest power of two >= s, s a positive normal f32: drop the
  // mantissa and, unless it was zero already, step the exponent up.
  Value roundUpToPow2(Value s) {
    Type bitsType = withElementType(s.getType(), b.getI32Type());
    Value bits = arith::BitcastOp::create(b, loc, bitsType, s);
    Value mantissa = arith::AndIOp::create(b, loc, bits, i32Like(0x7fffff, bitsType));
    Value inexact = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, mantissa,
                                            i32Like(0, bitsType));
    // One op a statement: C++ leaves the order of a call's arguments open.
    Value exponentBits = i32Like(0x7f800000, bitsType);
    Value stepped = arith::AddIOp::create(b, loc, bits, i32Like(0x800000, bitsType));
    Value up = arith::AndIOp::create(b, loc, stepped, exponentBits);
    Value rounded = arith::SelectOp::create(b, loc, inexact, up, bits);
    return arith::BitcastOp::create(b, loc, s.getType(), rounded);
  }

  static int64_t rankOf(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    return t ? t.getRank() : 0;
  }

  // v with a last dimension of 1 (a scalar becomes a [1] tile).
  Value withUnitDim(Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t)
      return splat(v, RankedTensorType::get({1}, v.getType()));
    SmallVector<int64_t> shape(t.getShape());
    shape.push_back(1);
    return ExpandDimsOp::create(b, loc, t.clone(shape), v, b.getI32IntegerAttr(t.getRank()));
  }

  // The scales [.., K/128] as a tile of the grouped shape: every element
  // gets its group's scale.
  Value perElement(Value scales, RankedTensorType groupsType) {
    if (rankOf(scales) < groupsType.getRank()) // [.., G] -> [.., G, 1]
      scales = withUnitDim(scales);
    return BroadcastOp::create(b, loc, groupsType, scales);
  }
};

// True for the rounding of quantization: to E4M3 or E5M2, to nearest even,
// saturating (what `x as f8e4m3` and the FP8 schemes emit).
bool isFp8Rounding(Operation *user) {
  auto t = dyn_cast<FpTruncOp>(user);
  if (!t || t.getRounding() != "rne" || !t.getSaturate())
    return false;
  Type elem = getElementTypeOrSelf(t.getResult().getType());
  return isa<Float8E4M3FNType, Float8E5M2Type>(elem);
}

// A hand-written `x / s as f8e4m3` with one s for the whole tile (a splat)
// is the same quotient as the per-tensor scheme's: mark it likewise, so the
// lowering may take the reciprocal path (same FP8 bytes, Fp8Quotient.h).
// Only when every use is such a rounding: an f32 use needs IEEE's bits.
void markHandWrittenQuotients(func::FuncOp func) {
  func.walk([](arith::DivFOp div) {
    auto type = dyn_cast<RankedTensorType>(div.getType());
    if (!type || !type.getElementType().isF32() || div->hasAttr(attr::kFp8Quotient) ||
        !div.getRhs().getDefiningOp<SplatOp>() || div->use_empty())
      return;
    if (llvm::all_of(div->getUsers(), isFp8Rounding))
      div->setAttr(attr::kFp8Quotient, UnitAttr::get(div.getContext()));
  });
}

struct TileExpandFp8 : public tile::impl::TileExpandFp8Base<TileExpandFp8> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (fp8::isFp8Op(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      Fp8Expander expander(op);
      if (auto q = dyn_cast<QuantizeOp>(op))
        expander.expand(q);
      else
        expander.expand(cast<DequantizeOp>(op));
      op->erase();
    }
    markHandWrittenQuotients(getOperation());
  }
};

} // namespace
