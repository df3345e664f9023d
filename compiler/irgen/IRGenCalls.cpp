// Builtin calls to tile, arith and math ops (Sema has checked their
// arguments, shapes and types).
#include "IRGenImpl.h"

namespace megac::irgen {

Value IRGen::emitCall(const fe::CallExpr &e) {
  using B = fe::Builtin;
  Location l = loc(e.range);
  Type result = e.type.isValue() ? toMLIR(e.type) : Type();
  auto arg = [&](size_t i) -> Value {
    const fe::Expr *a = e.arg(i);
    return a ? emit(*a) : Value();
  };
  switch (e.builtin) {
  case B::ProgramId:
    return tile::ProgramIdOp::create(b, l, b.getI32Type(), e.axis);
  case B::NumPrograms:
    return tile::NumProgramsOp::create(b, l, b.getI32Type(), e.axis);
  case B::Arange:
    return tile::ArangeOp::create(b, l, result, int32_t(e.start), int32_t(e.start + e.shape[0]));
  case B::Zeros:
    return constant(result, 0);
  case B::Full: {
    const fe::Expr *v = e.arg(0);
    if (v->constValue)
      return constant(result, v->constValue->asDouble());
    Value s = emit(*v);
    return s ? tile::SplatOp::create(b, l, result, s).getResult() : Value();
  }
  case B::Dot: {
    // Sema checked the shapes; tile-assign-layouts checks that the kernel's
    // warps can split the result (all dots of a kernel at once).
    Value a = arg(0), bm = arg(1), acc = arg(2);
    if (!a || !bm)
      return nullptr;
    if (!acc)
      acc = constant(result, 0);
    return tile::DotOp::create(b, l, result, a, bm, acc);
  }
  case B::Load: {
    Value ptr = arg(0), mask = arg(1), other = arg(2);
    if (!ptr)
      return nullptr;
    return tile::LoadOp::create(b, l, result, ptr, mask, other);
  }
  case B::Store: {
    Value ptr = arg(0), value = arg(1), mask = arg(2);
    if (!ptr || !value)
      return nullptr;
    tile::StoreOp::create(b, l, ptr, value, mask, e.streaming);
    return ptr; // statements discard it
  }
  case B::WaitPriorKernel:
    // A variant with early_launch = 0 is launched plainly: no wait.
    if (earlyLaunch)
      emitWait(l);
    return Value(); // a statement: nothing to discard
  case B::LaunchDependents:
    if (earlyLaunch)
      tile::LaunchDependentsOp::create(b, l);
    return Value();
  case B::AtomicAdd:
  case B::AtomicMax: {
    Value ptr = arg(0), value = arg(1), mask = arg(2);
    if (!ptr || !value)
      return nullptr;
    // value types: checked by sema (atom.add f32/i32, atom.max i32)
    return tile::AtomicRMWOp::create(b, l, value.getType(),
                                     b.getStringAttr(e.builtin == B::AtomicAdd ? "add" : "max"),
                                     ptr, value, mask);
  }
  default:
    break;
  }

  SmallVector<Value> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Value v = arg(i);
    if (!v)
      return nullptr;
    args.push_back(v);
  }
  const fe::Type &argType = e.args.empty() ? e.type : e.arg(0)->type;
  bool isF = isFloatType(argType), isS = isSignedType(argType);
  Value x = args.empty() ? Value() : args[0];
  switch (e.builtin) {
  case B::Exp:
    return math::ExpOp::create(b, l, x);
  case B::Exp2:
    return math::Exp2Op::create(b, l, x);
  case B::Log:
    return math::LogOp::create(b, l, x);
  case B::Log2:
    return math::Log2Op::create(b, l, x);
  case B::Sqrt:
    return math::SqrtOp::create(b, l, x);
  case B::Rsqrt:
    return math::RsqrtOp::create(b, l, x);
  case B::Tanh:
    return math::TanhOp::create(b, l, x);
  case B::Abs:
    return isF ? math::AbsFOp::create(b, l, x).getResult()
               : math::AbsIOp::create(b, l, x).getResult();
  case B::Sigmoid:
  case B::Silu: {
    // x / (1 + exp(-x)): the formula PyTorch's kernels use, so results match
    // to the bit.
    Value one = constant(x.getType(), 1.0);
    Value e1 = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
    Value den = arith::AddFOp::create(b, l, one, e1);
    return arith::DivFOp::create(b, l, e.builtin == B::Silu ? x : one, den);
  }
  case B::Softplus: {
    // PyTorch's default: x above the threshold 20 passes through.
    Value ex = math::ExpOp::create(b, l, x);
    Value lp = math::Log1pOp::create(b, l, ex);
    Value big =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, constant(x.getType(), 20.0));
    return arith::SelectOp::create(b, l, big, x, lp);
  }
  case B::Fma:
    return math::FmaOp::create(b, l, args[0], args[1], args[2]);
  case B::Minimum:
    if (isF)
      return arith::MinimumFOp::create(b, l, args[0], args[1]);
    return isS ? arith::MinSIOp::create(b, l, args[0], args[1]).getResult()
               : arith::MinUIOp::create(b, l, args[0], args[1]).getResult();
  case B::Maximum:
    if (isF)
      return arith::MaximumFOp::create(b, l, args[0], args[1]);
    return isS ? arith::MaxSIOp::create(b, l, args[0], args[1]).getResult()
               : arith::MaxUIOp::create(b, l, args[0], args[1]).getResult();
  case B::Where:
    return arith::SelectOp::create(b, l, args[0], args[1], args[2]);
  case B::Cdiv: {
    Value one = constant(args[1].getType(), 1);
    Value num = arith::AddIOp::create(b, l, args[0], arith::SubIOp::create(b, l, args[1], one));
    return isS ? arith::DivSIOp::create(b, l, num, args[1]).getResult()
               : arith::DivUIOp::create(b, l, num, args[1]).getResult();
  }
  case B::Sum:
  case B::ReduceMax:
  case B::ReduceMin:
  case B::Argmax:
  case B::Argmin: {
    const char *kind = e.builtin == B::Sum         ? "sum"
                       : e.builtin == B::ReduceMax ? "max"
                       : e.builtin == B::ReduceMin ? "min"
                       : e.builtin == B::Argmax    ? "argmax"
                                                   : "argmin";
    // The result drops the reduced axis (a scalar for a 1-D tile).
    auto src = cast<RankedTensorType>(x.getType());
    int axis = std::max(0, e.axis);
    Type elem = e.builtin == B::Argmax || e.builtin == B::Argmin ? Type(b.getI32Type())
                                                                 : src.getElementType();
    SmallVector<int64_t> shape(src.getShape());
    shape.erase(shape.begin() + axis);
    result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
    return tile::ReduceOp::create(b, l, result, x, b.getI32IntegerAttr(std::max(0, e.axis)),
                                  b.getStringAttr(kind));
  }
  case B::BroadcastTo:
    if (!isa<RankedTensorType>(x.getType()))
      return tile::SplatOp::create(b, l, result, x);
    return x.getType() == result ? x : tile::BroadcastOp::create(b, l, result, x).getResult();
  case B::ExpandDims:
    if (!isa<RankedTensorType>(x.getType())) // a scalar: a tile of one
      return tile::SplatOp::create(b, l, result, x);
    return tile::ExpandDimsOp::create(b, l, result, x, b.getI32IntegerAttr(e.axis));
  case B::Bitcast:
    if (isa<tile::PtrType>(result)) // bitcast(p, *T): the same address
      return tile::PtrCastOp::create(b, l, result, x);
    return arith::BitcastOp::create(b, l, result, x);
  case B::WithLayout: {
    // Sema checked each entry (powers of two up to 4096, order a
    // permutation); here the rules across entries that the #tile.blocked
    // verifier applies, plus the kernel's warp count, so a mistake is
    // reported at the call.
    size_t rank = e.layout.size() / 4;
    auto part = [&](int k) {
      return std::vector<unsigned>(e.layout.begin() + k * rank, e.layout.begin() + (k + 1) * rank);
    };
    megac::layout::Blocked blocked = {part(0), part(1), part(2), part(3)};
    std::string why = blocked.validate();
    if (!why.empty())
      return fail(e.range, "invalid layout: " + why), nullptr;
    if (int64_t(blocked.numWarps()) != numWarps)
      return fail(e.range, "invalid layout: wpc multiplies to " +
                               std::to_string(blocked.numWarps()) + " warps but the kernel has " +
                               std::to_string(numWarps)),
             nullptr;
    auto type = cast<RankedTensorType>(x.getType());
    auto encoding = tile::BlockedEncodingAttr::get(
        &ctx, blocked.sizePerThread, blocked.threadsPerWarp, blocked.warpsPerCTA, blocked.order);
    // The layout rides as an attribute until tile-assign-layouts gives the
    // result that encoding: until then no tile type has one, so the tile
    // placed here mixes freely with others (casts, where, arithmetic).
    auto placed = tile::ConvertLayoutOp::create(b, l, type, x);
    placed->setAttr(tile::attr::kWantedLayout, encoding);
    return placed;
  }
  case B::QuantizeNvfp4:
  case B::Nvfp4Scales:
  case B::QuantizeMxfp4:
  case B::Mxfp4Scales: {
    // Values and scales are the two results of one op; asking for each
    // separately makes two identical ops that CSE merges.
    bool nv = e.builtin == B::QuantizeNvfp4 || e.builtin == B::Nvfp4Scales;
    auto src = cast<RankedTensorType>(x.getType());
    int64_t block = nv ? 16 : 32;
    SmallVector<int64_t> vshape(src.getShape()), sshape(src.getShape());
    vshape.back() /= 2;
    sshape.back() /= block;
    Type scaleElem =
        nv ? Type(b.getType<Float8E4M3FNType>()) : Type(b.getType<Float8E8M0FNUType>());
    auto op =
        tile::QuantizeOp::create(b, l, RankedTensorType::get(vshape, b.getI8Type()),
                                 RankedTensorType::get(sshape, scaleElem), x,
                                 nv ? args[1] : Value(), b.getStringAttr(nv ? "nvfp4" : "mxfp4"));
    bool values = e.builtin == B::QuantizeNvfp4 || e.builtin == B::QuantizeMxfp4;
    return values ? op.getValues() : op.getScales();
  }
  case B::DequantizeNvfp4:
  case B::DequantizeMxfp4: {
    bool nv = e.builtin == B::DequantizeNvfp4;
    return tile::DequantizeOp::create(b, l, result, args[0], args[1], nv ? args[2] : Value(),
                                      b.getStringAttr(nv ? "nvfp4" : "mxfp4"));
  }
  case B::QuantizeFp8:
    return tile::QuantizeOp::create(b, l, result, Type(), x, args[1], b.getStringAttr("fp8"))
        .getValues();
  case B::QuantizeFp8Group:
  case B::Fp8GroupScales: {
    // One op gives both results, as for FP4: CSE merges the two calls.
    auto src = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> sshape(src.getShape());
    sshape.back() /= tile::fp8::kGroup;
    auto op = tile::QuantizeOp::create(b, l, src.clone(scalarType(e.fp8)),
                                       RankedTensorType::get(sshape, b.getF32Type()), x, Value(),
                                       b.getStringAttr(e.ue8m0 ? "fp8_group_ue8m0" : "fp8_group"));
    return e.builtin == B::QuantizeFp8Group ? op.getValues() : op.getScales();
  }
  case B::DequantizeFp8:
  case B::DequantizeFp8Group:
    return tile::DequantizeOp::create(
        b, l, result, args[0], args[1], Value(),
        b.getStringAttr(e.builtin == B::DequantizeFp8 ? "fp8" : "fp8_group"));
  case B::Reshape:
    return tile::ReshapeOp::create(b, l, result, x);
  case B::Trans:
    return tile::TransOp::create(b, l, result, x);
  default:
    break;
  }
  return fail(e.range, "'" + e.callee + "' is not supported by code generation"), nullptr;
}

} // namespace megac::irgen
