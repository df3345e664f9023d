// The tile dialect: tiles distributed over the threads of one CTA.
#ifndef MEGAC_TILE_IR_TILEDIALECT_H
#define MEGAC_TILE_IR_TILEDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "Tile/Layout/SharedLayout.h"

#include <optional>

#include "Tile/IR/TileDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Tile/IR/TileTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Tile/IR/TileAttrs.h.inc"

#define GET_OP_CLASSES
#include "Tile/IR/TileOps.h.inc"

namespace mlir::tile {

/// A note of a diagnostic whose text starts with this is the diagnostic's
/// hint: megac prints it as the hint line under the caret, as it does the
/// frontend's (megac-opt prints it as a note).
inline constexpr char kHintPrefix[] = "hint: ";

/// Names of the discardable attributes that carry kernel launch settings on a
/// func.func, and hints on its arguments.
namespace attr {
inline constexpr char kKernel[] = "tile.kernel";
inline constexpr char kNumWarps[] = "tile.num_warps";
inline constexpr char kMaxNReg[] = "tile.maxnreg";
inline constexpr char kMinCtasPerSM[] = "tile.min_ctas_per_sm";
// Unit: approximate exp/log/log2/tanh and f32 division (`@fast_math`).
inline constexpr char kFastMath[] = "tile.fast_math";
// Unit: approximate f32 division only; exp, log, tanh and sqrt stay accurate
// (`@fast_division`).
inline constexpr char kFastDivision[] = "tile.fast_division";
// Unit: emit each value's chain of pure operations together (`@value_major`;
// compiler/codegen/ValueMajorOrder.h).
inline constexpr char kValueMajor[] = "tile.value_major";
// Unit: a thread's f32 divisions of one tile operation take div.rn's fast
// path under one range check (`@tile_division`; Tile/Math/ExactQuotient.h).
inline constexpr char kTileDivision[] = "tile.tile_division";
// Unit: a thread's values of a sum, max or min combine pairwise, log2(n)
// dependent steps instead of n - 1 (`@tree_reductions`).
inline constexpr char kTreeReductions[] = "tile.tree_reductions";
// Unit: a block's reductions that combine across the same lanes share one
// reduce-scatter butterfly (`@fused_reductions`).
inline constexpr char kFusedReductions[] = "tile.fused_reductions";
// Unit: launched while the kernel before it on the stream still runs
// (`@early_launch`, programmatic dependent launch); its tile.wait_prior_kernel
// waits for that kernel.
inline constexpr char kEarlyLaunch[] = "tile.early_launch";
// Unit, on an arith.divf that tile-expand-fp8 made: its quotients only feed an
// FP8 rounding, so the lowering may use Tile/Quant/Fp8Quotient.h.
inline constexpr char kFp8Quotient[] = "tile.fp8_quotient";
inline constexpr char kDivisibility[] = "tile.divisibility"; // on int arguments
inline constexpr char kAlignment[] = "tile.alignment";       // bytes, on pointers
inline constexpr char kSharedBytes[] = "tile.shared_bytes";  // set by lowering
// On an scf.for: unroll by this factor (range(.., unroll = N));
// tile-unroll-loops does it and drops the attribute.
inline constexpr char kUnroll[] = "tile.unroll";
// On a tile.convert_layout that with_layout made: the layout its result
// gets from tile-assign-layouts (tile types carry no encoding before).
inline constexpr char kWantedLayout[] = "tile.wanted_layout";
// Left on that convert_layout by tile-assign-layouts: its layout is the
// user's, so a load it converts is made in it even with narrower vectors
// (tile-remove-layout-conversions, which then drops the marker).
inline constexpr char kExplicitLayout[] = "tile.explicit_layout";
// On a tile.convert_layout through shared memory: its buffer's layout.
inline constexpr char kShared[] = "shared";
} // namespace attr

/// The algebra's view of a #tile.blocked attribute, and back.
megac::layout::Blocked toLayout(BlockedEncodingAttr attr);
BlockedEncodingAttr blockedAttr(MLIRContext *ctx, const megac::layout::Blocked &layout);
/// The shape of a tile, or {} for a scalar.
ArrayRef<int64_t> getShapeOrEmpty(Type type);
/// `type` with its element type replaced (keeps shape and encoding).
Type withElementType(Type type, Type element);
/// The algebra's view of a #tile.swizzled_shared or #tile.padded_shared
/// attribute (nothing for other attributes), and back.
std::optional<megac::layout::SharedLayout> sharedLayoutOf(Attribute attr);
Attribute sharedLayoutAttr(MLIRContext *ctx,
                           const megac::layout::SharedLayout &layout);
/// Bytes an element of `elem` takes in shared memory (masks travel as
/// bytes, narrow floats as their byte, pointers as 8).
unsigned sharedElementBytes(Type elem);
/// Number of warps of the kernel enclosing `op` (the tile.num_warps attribute).
int getNumWarps(Operation *op);

/// The FP8 schemes of tile.quantize / tile.dequantize (docs/dialect.md).
namespace fp8 {
/// Elements per scale along the last dimension in the group schemes.
inline constexpr int64_t kGroup = 128;
/// The floor of a group's absolute maximum, so an all-zero group gets a
/// finite scale (KERNELS.md, group_quant).
inline constexpr float kMinAmax = 1e-10f;
inline bool isGroupScheme(StringRef s) {
  return s == "fp8_group" || s == "fp8_group_ue8m0";
}
inline bool isScheme(StringRef s) { return s == "fp8" || isGroupScheme(s); }
/// The largest finite value of an FP8 type (E4M3 448, E5M2 57344); 0 for
/// any other type.
inline double maxFinite(Type t) {
  return isa<Float8E4M3FNType>(t) ? 448.0 : isa<Float8E5M2Type>(t) ? 57344.0 : 0.0;
}
/// A tile.quantize or tile.dequantize of an FP8 scheme.
inline bool isFp8Op(Operation *op) {
  if (auto q = dyn_cast<QuantizeOp>(op))
    return isScheme(q.getScheme());
  auto d = dyn_cast<DequantizeOp>(op);
  return d && isScheme(d.getScheme());
}
} // namespace fp8

} // namespace mlir::tile

#endif
