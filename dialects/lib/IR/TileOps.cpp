// Verifiers: every structural rule of the tile ops, with messages that name
// both sides of a mismatch.
#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::tile;

namespace {

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

LogicalResult verifyTileShape(Operation *op, Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return success();
  if (tensor.getRank() < 1 || tensor.getRank() > 3)
    return op->emitOpError("tiles have 1 to 3 dimensions, got ") << type;
  for (int64_t d : tensor.getShape())
    if (!isPow2(d))
      return op->emitOpError("tile dimensions must be powers of two, got ")
             << type;
  return success();
}

// Shapes match (a scalar matches a scalar); encodings are not compared: the
// layout pass makes them agree and lowering checks that.
bool sameShape(Type a, Type b) {
  auto ta = dyn_cast<RankedTensorType>(a), tb = dyn_cast<RankedTensorType>(b);
  if (!ta || !tb)
    return !ta && !tb;
  return ta.getShape() == tb.getShape();
}

LogicalResult verifyMask(Operation *op, Value ptr, Value mask) {
  if (!mask)
    return success();
  if (!getElementTypeOrSelf(mask.getType()).isInteger(1))
    return op->emitOpError("mask must be i1, got ") << mask.getType();
  if (!sameShape(ptr.getType(), mask.getType()))
    return op->emitOpError("mask shape ")
           << mask.getType() << " does not match pointer shape "
           << ptr.getType();
  return success();
}

FailureOr<Type> pointee(Operation *op, Value ptr) {
  auto p = dyn_cast<PtrType>(getElementTypeOrSelf(ptr.getType()));
  if (!p)
    return op->emitOpError("expects a pointer or a tile of pointers, got ")
           << ptr.getType();
  return p.getPointeeType();
}

bool isNarrowFloat(Type t) {
  return isa<Float8E4M3FNType, Float8E5M2Type, Float4E2M1FNType,
             Float8E8M0FNUType>(t);
}

} // namespace

LogicalResult ProgramIdOp::verify() {
  if (getAxis() > 2)
    return emitOpError("axis must be 0, 1 or 2, got ") << getAxis();
  return success();
}

LogicalResult NumProgramsOp::verify() {
  if (getAxis() > 2)
    return emitOpError("axis must be 0, 1 or 2, got ") << getAxis();
  return success();
}

LogicalResult ArangeOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 1 || !type.getElementType().isInteger(32))
    return emitOpError("result must be a 1-D tile of i32, got ") << type;
  int64_t n = int64_t(getEnd()) - int64_t(getStart());
  if (n != type.getDimSize(0))
    return emitOpError("range [") << getStart() << ", " << getEnd()
                                  << ") has " << n << " elements but the tile has "
                                  << type.getDimSize(0);
  return verifyTileShape(*this, type);
}

LogicalResult SplatOp::verify() {
  if (getResult().getType().getElementType() != getSrc().getType())
    return emitOpError("splat of ") << getSrc().getType() << " cannot make "
                                    << getResult().getType();
  return verifyTileShape(*this, getResult().getType());
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), dst = getResult().getType();
  if (src.getElementType() != dst.getElementType() ||
      src.getRank() != dst.getRank())
    return emitOpError("cannot broadcast ") << src << " to " << dst;
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (src.getDimSize(d) != dst.getDimSize(d) && src.getDimSize(d) != 1)
      return emitOpError("cannot broadcast ")
             << src << " to " << dst << ": dimension " << d
             << " is neither equal nor 1";
  return verifyTileShape(*this, dst);
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), dst = getResult().getType();
  if (getAxis() > src.getRank())
    return emitOpError("axis ") << getAxis() << " out of range for " << src;
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + getAxis(), 1);
  if (dst.getShape() != ArrayRef<int64_t>(shape) ||
      dst.getElementType() != src.getElementType())
    return emitOpError("expanding ") << src << " at axis " << getAxis()
                                     << " cannot give " << dst;
  return success();
}

LogicalResult AddPtrOp::verify() {
  if (failed(pointee(*this, getPtr())))
    return failure();
  if (!getElementTypeOrSelf(getOffset().getType()).isSignlessInteger())
    return emitOpError("offset must be an integer, got ")
           << getOffset().getType();
  if (!sameShape(getPtr().getType(), getOffset().getType()))
    return emitOpError("pointer ") << getPtr().getType() << " and offset "
                                   << getOffset().getType()
                                   << " have different shapes";
  // The result's type is the pointer's by the op's AllTypesMatch trait.
  return verifyTileShape(*this, getPtr().getType());
}

LogicalResult LoadOp::verify() {
  auto elem = pointee(*this, getPtr());
  if (failed(elem))
    return failure();
  if (!sameShape(getPtr().getType(), getResult().getType()) ||
      getElementTypeOrSelf(getResult().getType()) != *elem)
    return emitOpError("loading through ")
           << getPtr().getType() << " cannot give " << getResult().getType();
  if (getOther() && getOther().getType() != getResult().getType())
    return emitOpError("other has type ") << getOther().getType()
                                          << " but the load gives "
                                          << getResult().getType();
  return verifyMask(*this, getPtr(), getMask());
}

LogicalResult StoreOp::verify() {
  auto elem = pointee(*this, getPtr());
  if (failed(elem))
    return failure();
  if (!sameShape(getPtr().getType(), getValue().getType()) ||
      getElementTypeOrSelf(getValue().getType()) != *elem)
    return emitOpError("cannot store ") << getValue().getType() << " through "
                                        << getPtr().getType();
  return verifyMask(*this, getPtr(), getMask());
}

// The wait and the trigger belong to kernels the runtime may launch early,
// which it does only for kernels marked so (the manifest's early_launch).
static LogicalResult verifyInEarlyLaunchKernel(Operation *op) {
  Operation *func = op->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
  if (!func || !func->hasAttr(attr::kEarlyLaunch))
    return op->emitOpError("needs a kernel with ") << attr::kEarlyLaunch;
  return success();
}

LogicalResult WaitPriorKernelOp::verify() { return verifyInEarlyLaunchKernel(*this); }

LogicalResult LaunchDependentsOp::verify() { return verifyInEarlyLaunchKernel(*this); }

LogicalResult AtomicRMWOp::verify() {
  if (getKind() != "add" && getKind() != "max")
    return emitOpError("kind must be add or max, got '") << getKind() << "'";
  auto elem = pointee(*this, getPtr());
  if (failed(elem))
    return failure();
  if (!elem->isF32() && !elem->isInteger(32))
    return emitOpError("atomics support f32 and i32, got ") << *elem;
  if (getKind() == "max" && !elem->isInteger(32))
    return emitOpError("atomic max supports i32, got ") << *elem;
  if (!sameShape(getPtr().getType(), getValue().getType()) ||
      getElementTypeOrSelf(getValue().getType()) != *elem ||
      getResult().getType() != getValue().getType())
    return emitOpError("value ") << getValue().getType()
                                 << " does not match pointer "
                                 << getPtr().getType();
  return verifyMask(*this, getPtr(), getMask());
}

LogicalResult ReduceOp::verify() {
  StringRef kind = getKind();
  bool isArg = kind == "argmax" || kind == "argmin";
  if (!isArg && kind != "sum" && kind != "max" && kind != "min")
    return emitOpError("kind must be sum, max, min, argmax or argmin, got '")
           << kind << "'";
  auto src = getSrc().getType();
  if (getAxis() >= src.getRank())
    return emitOpError("axis ") << getAxis() << " out of range for " << src;
  Type elem = isArg ? IntegerType::get(getContext(), 32) : src.getElementType();
  SmallVector<int64_t> shape(src.getShape());
  shape.erase(shape.begin() + getAxis());
  Type result = getResult().getType();
  if (!result)
    return emitOpError("has no result type");
  if (shape.empty()) {
    if (result != elem)
      return emitOpError("reducing ") << src << " must give " << elem
                                      << ", not " << result;
    return success();
  }
  auto tensor = dyn_cast<RankedTensorType>(result);
  if (!tensor || tensor.getShape() != ArrayRef<int64_t>(shape) ||
      tensor.getElementType() != elem)
    return emitOpError("reducing ") << src << " along axis " << getAxis()
                                    << " cannot give " << result;
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto src = getSrc().getType(), dst = getResult().getType();
  if (src.getShape() != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError("layout conversion cannot change shape or element "
                       "type: ")
           << src << " vs " << dst;
  if (Attribute shared = (*this)->getAttr(attr::kShared)) {
    auto layout = sharedLayoutOf(shared);
    if (!layout)
      return emitOpError("'shared' must be a #tile.swizzled_shared or "
                         "#tile.padded_shared layout, got ")
             << shared;
    if (layout->order.size() != size_t(src.getRank()))
      return emitOpError("shared layout order has ")
             << layout->order.size() << " dimensions, the tile " << src.getRank();
  }
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSrc().getType() == getResult().getType())
    return getSrc();
  if (auto inner = getSrc().getDefiningOp<ConvertLayoutOp>())
    if (inner.getSrc().getType() == getResult().getType())
      return inner.getSrc();
  return {};
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), dst = getResult().getType();
  if (src.getNumElements() != dst.getNumElements() ||
      src.getElementType() != dst.getElementType())
    return emitOpError("cannot reshape ") << src << " to " << dst
                                          << ": element counts or types differ";
  return verifyTileShape(*this, dst);
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType(), dst = getResult().getType();
  if (src.getRank() != 2 || dst.getRank() != 2 ||
      src.getDimSize(0) != dst.getDimSize(1) || src.getDimSize(1) != dst.getDimSize(0) ||
      src.getElementType() != dst.getElementType())
    return emitOpError("transposes a 2-D tile: ") << src << " cannot give " << dst;
  auto a = dyn_cast_or_null<BlockedEncodingAttr>(src.getEncoding());
  auto b = dyn_cast_or_null<BlockedEncodingAttr>(dst.getEncoding());
  if (a && b && megac::layout::transposed(toLayout(a)) != toLayout(b))
    return emitOpError("result layout must be the source layout transposed, got ")
           << dst.getEncoding();
  return success();
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), acc = getAcc().getType();
  Type elem = a.getElementType();
  if (!elem.isBF16() && !elem.isF16())
    return emitOpError("operands must be bf16 or f16, got ") << a;
  if (b.getElementType() != elem)
    return emitOpError("operands must have one element type, got ") << a << " and " << b;
  if (!acc.getElementType().isF32())
    return emitOpError("accumulator must be f32, got ") << acc;
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError("operands must be 2-D tiles");
  int64_t M = a.getDimSize(0), K = a.getDimSize(1), N = b.getDimSize(1);
  if (b.getDimSize(0) != K || acc.getDimSize(0) != M || acc.getDimSize(1) != N)
    return emitOpError("shapes do not compose: ") << a << " times " << b << " plus " << acc;
  if (M % 16 != 0 || N % 8 != 0 || K % 16 != 0)
    return emitOpError("needs M a multiple of 16, N of 8 and K of 16, got M = ")
           << M << ", N = " << N << ", K = " << K;
  if (getResult().getType() != acc)
    return emitOpError("result type ") << getResult().getType()
                                       << " must be the accumulator's " << acc;
  if (Attribute enc = acc.getEncoding()) {
    auto blocked = dyn_cast<BlockedEncodingAttr>(enc);
    if (!blocked || !megac::layout::isDotLayout(toLayout(blocked), M, N))
      return emitOpError("accumulator must be in a dot layout (spt = [1, 2], tpw = [8, 4], "
                         "order = [1, 0], warps tiling [")
             << M << ", " << N << "] in 16 x 8 blocks), got " << enc;
  }
  return success();
}

LogicalResult FpTruncOp::verify() {
  Type src = getElementTypeOrSelf(getSrc().getType());
  Type dst = getElementTypeOrSelf(getResult().getType());
  if (!sameShape(getSrc().getType(), getResult().getType()))
    return emitOpError("shape changes from ") << getSrc().getType() << " to "
                                              << getResult().getType();
  if (!src.isF32() && !src.isF16() && !src.isBF16())
    return emitOpError("source must be f32, f16 or bf16, got ") << src;
  if (!isNarrowFloat(dst))
    return emitOpError("result must be an 8- or 4-bit float, got ") << dst;
  if (getRounding() != "rne")
    return emitOpError("only round-to-nearest-even (rne) is supported for ")
           << dst << ", got '" << getRounding() << "'";
  return success();
}

namespace {

// Block size and scale type of a block-scaled FP4 scheme.
LogicalResult fp4Scheme(Operation *op, StringRef scheme, bool hasGlobalScale,
                        int64_t &block, Type &scaleType) {
  MLIRContext *ctx = op->getContext();
  if (scheme == "nvfp4") {
    block = 16;
    scaleType = Float8E4M3FNType::get(ctx);
    if (!hasGlobalScale)
      return op->emitOpError("nvfp4 needs an f32 global scale");
    return success();
  }
  if (scheme == "mxfp4") {
    block = 32;
    scaleType = Float8E8M0FNUType::get(ctx);
    if (hasGlobalScale)
      return op->emitOpError("mxfp4 takes no global scale");
    return success();
  }
  return op->emitOpError("scheme must be nvfp4, mxfp4, fp8, fp8_group or fp8_group_ue8m0, got '")
         << scheme << "'";
}

// values [.., K/2] i8 and scales [.., K/block] for an f32-like tile [.., K].
LogicalResult verifyFp4Shapes(Operation *op, RankedTensorType full,
                              RankedTensorType values, RankedTensorType scales,
                              int64_t block, Type scaleType) {
  int64_t k = full.getShape().back();
  if (k % block != 0)
    return op->emitOpError("the last dimension (")
           << k << ") must be a multiple of the block size " << block;
  SmallVector<int64_t> vshape(full.getShape()), sshape(full.getShape());
  vshape.back() = k / 2;
  sshape.back() = k / block;
  if (values.getShape() != ArrayRef<int64_t>(vshape) ||
      !values.getElementType().isInteger(8))
    return op->emitOpError("packed values must be ")
           << RankedTensorType::get(vshape, IntegerType::get(op->getContext(), 8))
           << ", got " << values;
  if (scales.getShape() != ArrayRef<int64_t>(sshape) ||
      scales.getElementType() != scaleType)
    return op->emitOpError("scales must be ")
           << RankedTensorType::get(sshape, scaleType) << ", got " << scales;
  return success();
}

} // namespace

namespace {

// An FP8 tile (E4M3 or E5M2) of the shape of `full`.
LogicalResult verifyFp8Values(Operation *op, RankedTensorType full,
                              RankedTensorType values) {
  if (fp8::maxFinite(values.getElementType()) == 0)
    return op->emitOpError("FP8 values must be f8E4M3FN or f8E5M2, got ") << values;
  if (values.getShape() != full.getShape())
    return op->emitOpError("FP8 values ") << values << " must have the shape of " << full;
  return success();
}

// The scales of groups of 128 along the last dimension of `full`: an f32 tile
// [.., K/128]. Several groups per row are reshaped to one more dimension by
// tile-expand-fp8, so such a tile has at most two.
LogicalResult verifyFp8Groups(Operation *op, RankedTensorType full, Type scales) {
  int64_t k = full.getShape().back();
  if (k % fp8::kGroup != 0)
    return op->emitOpError("the last dimension (")
           << k << ") must be a multiple of the group size " << fp8::kGroup;
  if (k > fp8::kGroup && full.getRank() == 3)
    return op->emitOpError("several groups per row need a tile of rank 1 or 2, got ") << full;
  SmallVector<int64_t> shape(full.getShape());
  shape.back() = k / fp8::kGroup;
  auto want = RankedTensorType::get(shape, Float32Type::get(op->getContext()));
  auto got = dyn_cast<RankedTensorType>(scales);
  if (!got || got.getShape() != want.getShape() || !got.getElementType().isF32())
    return op->emitOpError("scales must be ") << want << ", got " << scales;
  return success();
}

// fp8: the dequantization scale comes in, nothing else goes out; the group
// schemes compute their scales and return them.
LogicalResult verifyFp8Quantize(QuantizeOp op) {
  if (failed(verifyFp8Values(op, op.getSrc().getType(), op.getValues().getType())))
    return failure();
  if (!fp8::isGroupScheme(op.getScheme())) {
    if (!op.getScale())
      return op.emitOpError("fp8 needs an f32 scale operand (the dequantization scale)");
    if (op.getScales())
      return op.emitOpError("fp8 has no scales result: its scale is an operand");
    return success();
  }
  if (op.getScale())
    return op.emitOpError(op.getScheme()) << " computes its scales: it takes no scale operand";
  if (!op.getScales())
    return op.emitOpError(op.getScheme()) << " needs a scales result";
  return verifyFp8Groups(op, op.getSrc().getType(), op.getScales().getType());
}

LogicalResult verifyFp8Dequantize(DequantizeOp op) {
  RankedTensorType result = op.getResult().getType();
  if (!result.getElementType().isF32() && !result.getElementType().isBF16())
    return op.emitOpError("FP8 dequantizes to f32 or bf16, got ") << result;
  if (failed(verifyFp8Values(op, result, op.getValues().getType())))
    return failure();
  if (op.getGlobalScale())
    return op.emitOpError(op.getScheme()) << " takes no global scale";
  Type scales = op.getScales().getType();
  if (fp8::isGroupScheme(op.getScheme()))
    return verifyFp8Groups(op, result, scales);
  if (!scales.isF32())
    return op.emitOpError("fp8 dequantizes with an f32 scalar scale, got ") << scales;
  return success();
}

} // namespace

LogicalResult QuantizeOp::verify() {
  Type elem = getSrc().getType().getElementType();
  if (!elem.isF32() && !elem.isBF16() && !elem.isF16())
    return emitOpError("quantizes f32, bf16 or f16 tiles, got ") << elem;
  if (fp8::isScheme(getScheme()))
    return verifyFp8Quantize(*this);
  int64_t block;
  Type scaleType;
  if (failed(fp4Scheme(*this, getScheme(), bool(getScale()), block, scaleType)))
    return failure();
  if (!getScales())
    return emitOpError(getScheme()) << " needs a scales result";
  return verifyFp4Shapes(*this, getSrc().getType(), getValues().getType(),
                         getScales().getType(), block, scaleType);
}

LogicalResult DequantizeOp::verify() {
  if (fp8::isScheme(getScheme()))
    return verifyFp8Dequantize(*this);
  int64_t block;
  Type scaleType;
  if (failed(fp4Scheme(*this, getScheme(), bool(getGlobalScale()), block, scaleType)))
    return failure();
  if (!getResult().getType().getElementType().isF32())
    return emitOpError("dequantizes to f32, got ") << getResult().getType();
  auto scales = dyn_cast<RankedTensorType>(getScales().getType());
  if (!scales)
    return emitOpError(getScheme()) << " scales must be a tile, got " << getScales().getType();
  return verifyFp4Shapes(*this, getResult().getType(), getValues().getType(),
                         scales, block, scaleType);
}

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.cpp.inc"
