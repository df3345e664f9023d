#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "Tile/IR/TileDialect.td"
include "mlir/IR/AttrTypeBase.td"

// Element (i_0..i_{r-1}) of a tile lives in thread (lane, warp), register reg:
// per dimension d, index_d = rep_d * ctaTile_d + (warp_d * tpw_d + lane_d) * spt_d
// + within_d (mod shape_d), where ctaTile_d = spt_d * tpw_d * wpc_d. Lanes, warps
// and registers are split over dimensions fastest-first in `order`. Threads
// that land outside the shape hold replicas. See docs/dialect.md.
def Tile_BlockedEncodingAttr : AttrDef<Tile_Dialect, "BlockedEncoding"> {
  let mnemonic = "blocked";
  let summary = "tile distributed in blocks over registers, lanes and warps";
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `spt` `=` `[` $sizePerThread `]` `,` `tpw` `=` `[` $threadsPerWarp `]` `,`
        `wpc` `=` `[` $warpsPerCTA `]` `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

// The layout of the result of reducing dimension `dim` of a tile in `parent`:
// each thread keeps the elements it held, with that dimension removed.
def Tile_SliceEncodingAttr : AttrDef<Tile_Dialect, "SliceEncoding"> {
  let mnemonic = "slice";
  let summary = "parent layout with one dimension removed";
  let parameters = (ins "unsigned":$dim, "BlockedEncodingAttr":$parent);
  let assemblyFormat = "`<` `dim` `=` $dim `,` `parent` `=` $parent `>`";
}

// Shared-memory layouts: where each element of a tile sits in a shared-memory
// buffer (a layout conversion through shared memory writes the source tile in
// it and reads the result from it). Elements are linearized along `order`
// (fastest first): col = index[order[0]], row = the other dimensions.
// See Tile/Layout/SharedLayout.h and docs/dialect.md.

// offset = row * cols + ((col / vec) xor phase) * vec + col mod vec,
// phase = (row / perPhase) mod min(maxPhase, cols / vec): Triton's
// SwizzledSharedEncoding. vec = perPhase = maxPhase = 1 is the plain buffer.
def Tile_SwizzledSharedEncodingAttr : AttrDef<Tile_Dialect, "SwizzledSharedEncoding"> {
  let mnemonic = "swizzled_shared";
  let summary = "shared-memory buffer with XOR-swizzled vectors of each row";
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase,
                        "unsigned":$maxPhase, ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `vec` `=` $vec `,` `perPhase` `=` $perPhase `,` `maxPhase` `=` $maxPhase
        `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

// L = row * cols + col, offset = L + (L / interval) * padding.
def Tile_PaddedSharedEncodingAttr : AttrDef<Tile_Dialect, "PaddedSharedEncoding"> {
  let mnemonic = "padded_shared";
  let summary = "shared-memory buffer padded by `padding` every `interval` elements";
  let parameters = (ins "unsigned":$interval, "unsigned":$padding,
                        ArrayRefParameter<"unsigned">:$order);
  let assemblyFormat = [{
    `<` `interval` `=` $interval `,` `padding` `=` $padding `,` `order` `=` `[` $order `]` `>`
  }];
  let genVerifyDecl = 1;
}

#endif
