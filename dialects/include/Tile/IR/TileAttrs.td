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

#endif
