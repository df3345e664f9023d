// Dialect registration, the pointer type and the layout attributes.
#include "Tile/IR/TileDialect.h"
#include "Tile/Layout/BlockedLayout.h"

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

namespace mlir::tile {

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

int getNumWarps(Operation *op) {
  Operation *func = isa<func::FuncOp>(op) ? op : op->getParentOfType<func::FuncOp>();
  if (func)
    if (auto n = func->getAttrOfType<IntegerAttr>(attr::kNumWarps))
      return int(n.getInt());
  return 4;
}

} // namespace mlir::tile
