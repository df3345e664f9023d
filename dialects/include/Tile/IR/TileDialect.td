#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Tiles distributed over the threads of one CTA";
  let description = [{
    Values are tiles (ranked tensors with a static shape whose encoding attribute
    says how elements are spread over registers, lanes and warps) and scalars.
    Pointers are `!tile.ptr<T>` (global memory). Elementwise arithmetic and math
    use the `arith` and `math` dialects directly on tiles.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect", "::mlir::func::FuncDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif
