// Dialect registration, the pointer type and the layout attributes.
#include "Tile/IR/TileDialect.h"
#include "Tile/Layout/SharedLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "Tile/IR/TileDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/IR/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Tile/IR/TileTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Tile/IR/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "Tile/IR/TileOps.cpp.inc"
      >();
}

LogicalResult
BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            ArrayRef<unsigned> spt, ArrayRef<unsigned> tpw,
                            ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
  megac::layout::Blocked layout{{spt.begin(), spt.end()},
                                {tpw.begin(), tpw.end()},
                                {wpc.begin(), wpc.end()},
                                {order.begin(), order.end()}};
  std::string why = layout.validate();
  if (!why.empty())
    return emitError() << "invalid #tile.blocked layout: " << why;
  return success();
}

LogicalResult SwizzledSharedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned vec,
    unsigned perPhase, unsigned maxPhase, ArrayRef<unsigned> order) {
  auto layout = megac::layout::SharedLayout::swizzled(
      vec, perPhase, maxPhase, {order.begin(), order.end()});
  std::string why = layout.validate();
  if (!why.empty())
    return emitError() << "invalid #tile.swizzled_shared layout: " << why;
  return success();
}

LogicalResult PaddedSharedEncodingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, unsigned interval,
    unsigned padding, ArrayRef<unsigned> order) {
  auto layout = megac::layout::SharedLayout::padded(
      interval, padding, {order.begin(), order.end()});
  std::string why = layout.validate();
  if (!why.empty())
    return emitError() << "invalid #tile.padded_shared layout: " << why;
  return success();
}

namespace mlir::tile {

std::optional<megac::layout::SharedLayout> sharedLayoutOf(Attribute attr) {
  if (auto s = dyn_cast_or_null<SwizzledSharedEncodingAttr>(attr))
    return megac::layout::SharedLayout::swizzled(
        s.getVec(), s.getPerPhase(), s.getMaxPhase(),
        {s.getOrder().begin(), s.getOrder().end()});
  if (auto p = dyn_cast_or_null<PaddedSharedEncodingAttr>(attr))
    return megac::layout::SharedLayout::padded(
        p.getInterval(), p.getPadding(),
        {p.getOrder().begin(), p.getOrder().end()});
  return std::nullopt;
}

Attribute sharedLayoutAttr(MLIRContext *ctx,
                           const megac::layout::SharedLayout &layout) {
  if (layout.kind == megac::layout::SharedLayout::Kind::Padded)
    return PaddedSharedEncodingAttr::get(ctx, layout.interval, layout.padding,
                                         layout.order);
  return SwizzledSharedEncodingAttr::get(ctx, layout.vec, layout.perPhase,
                                         layout.maxPhase, layout.order);
}

megac::layout::Blocked toLayout(BlockedEncodingAttr attr) {
  return {{attr.getSizePerThread().begin(), attr.getSizePerThread().end()},
          {attr.getThreadsPerWarp().begin(), attr.getThreadsPerWarp().end()},
          {attr.getWarpsPerCTA().begin(), attr.getWarpsPerCTA().end()},
          {attr.getOrder().begin(), attr.getOrder().end()}};
}

BlockedEncodingAttr blockedAttr(MLIRContext *ctx, const megac::layout::Blocked &l) {
  return BlockedEncodingAttr::get(ctx, l.sizePerThread, l.threadsPerWarp, l.warpsPerCTA,
                                  l.order);
}

ArrayRef<int64_t> getShapeOrEmpty(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getShape();
  return {};
}

Type withElementType(Type type, Type element) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), element,
                                 tensor.getEncoding());
  return element;
}

unsigned sharedElementBytes(Type elem) {
  if (isa<PtrType>(elem) || !elem.isIntOrFloat())
    return 8;
  return std::max(1u, elem.getIntOrFloatBitWidth() / 8);
}

int getNumWarps(Operation *op) {
  Operation *func = isa<func::FuncOp>(op) ? op : op->getParentOfType<func::FuncOp>();
  if (func)
    if (auto n = func->getAttrOfType<IntegerAttr>(attr::kNumWarps))
      return int(n.getInt());
  return 4;
}

} // namespace mlir::tile
