#ifndef TILE_TYPES_TD
#define TILE_TYPES_TD

include "Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"

// A pointer to global memory (PTX state space .global, LLVM address space 1).
def Tile_PtrType : TypeDef<Tile_Dialect, "Ptr"> {
  let mnemonic = "ptr";
  let summary = "pointer to global memory";
  let parameters = (ins "::mlir::Type":$pointeeType);
  let assemblyFormat = "`<` $pointeeType `>`";
}

#endif
