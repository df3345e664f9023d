// megac-opt: the tile dialect, its passes and its lowering, for lit tests.
#include "../conversion/BarrierElision.h"
#include "../conversion/TileToLLVM.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/Transforms/Passes.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::tile::TileDialect, mlir::func::FuncDialect>();
  megac::registerLoweringDialects(registry);
  mlir::tile::registerTilePasses();
  megac::registerTileToLLVMPass();
  megac::registerElideBarriersPass();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "megac tile dialect driver\n", registry));
}
