#ifndef TILE_PASSES_TD
#define TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileExpandFp8 : Pass<"tile-expand-fp8", "::mlir::func::FuncOp"> {
  let summary = "expand the FP8 schemes of tile.quantize / tile.dequantize";
  let description = [{
    Rewrites `fp8`, `fp8_group` and `fp8_group_ue8m0` quantization into
    absf, a max reduction per group of 128, IEEE divisions and tile.fp_trunc
    (dequantization into extf, mulf and truncf): the ops a kernel writes by
    hand, with the same bits. A hand-written f32 division by a splat scalar
    whose only uses are saturating round-to-nearest-even truncations to E4M3
    or E5M2 gets the same `tile.fp8_quotient` mark as the schemes' divisions.
    Runs before tile-assign-layouts.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::func::FuncOp"> {
  let summary = "give every tile a distributed layout";
  let description = [{
    Chooses a blocked layout per tile shape from the kernel's memory accesses
    (vectors of up to 16 bytes per thread along the contiguous dimension,
    coalesced across lanes), gives reduction results the slice of their input's
    layout, and inserts tile.convert_layout where an operand's layout differs
    from the one its user expects.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileRemoveLayoutConversions : Pass<"tile-remove-layout-conversions", "::mlir::func::FuncOp"> {
  let summary = "fold away layout conversions that change nothing or cancel out";
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileAssignSharedLayouts : Pass<"tile-assign-shared-layouts", "::mlir::func::FuncOp"> {
  let summary = "choose the shared-memory layout of each conversion through shared memory";
  let description = [{
    Every tile.convert_layout whose layouts are not equivalent and that warp
    shuffles cannot do moves through a shared-memory buffer. This pass gives
    it the buffer layout (`shared = #tile.swizzled_shared<...>` or
    `#tile.padded_shared<...>`) with the fewest bank-conflict wavefronts on
    its write and read sides together, among the row-major buffer, XOR
    swizzles and paddings. Conversions that already carry one keep it.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

def TileUnrollLoops : Pass<"tile-unroll-loops", "::mlir::func::FuncOp"> {
  let summary = "unroll the loops marked tile.unroll = N";
  let description = [{
    Unrolls every scf.for with a `tile.unroll` attribute (from the
    language's `range(.., unroll = N)`) by that factor, with a remainder
    loop when the trip count is not a known multiple, and drops the
    attribute. Runs before layouts are assigned.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileFoldConstantMasks : Pass<"tile-fold-constant-masks", "::mlir::func::FuncOp"> {
  let summary = "drop masks that constants make all true or all false";
  let description = [{
    An i1 `arith.ori` / `arith.andi` with an operand that is the same constant
    in every lane (an arith.constant, or a tile.splat, broadcast, expand_dims,
    reshape or convert_layout of one) becomes that
    constant or its other operand; an `arith.select` with such a condition
    becomes the chosen operand; a `tile.load` whose mask is all true loses
    its mask and `other`, one whose mask is all false becomes its `other`; a
    `tile.store` whose mask is all true loses it, one whose mask is all false
    is erased. Nothing else is folded. Runs before tile-assign-layouts, so
    that the layouts see the accesses without the masks.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect", "::mlir::arith::ArithDialect"];
}

def TileHoistScalarLoads : Pass<"tile-hoist-scalar-loads", "::mlir::func::FuncOp"> {
  let summary = "move scalar loads up to just after what they depend on";
  let description = [{
    A tile.load of a scalar moves up its block to just after the ops that
    compute its address and mask (pure ones move up with it) and the last op
    before it that may write memory, so that it is in flight with the tile
    loads instead of starting after the arithmetic that precedes its use.
  }];
  let dependentDialects = ["::mlir::tile::TileDialect"];
}

#endif
