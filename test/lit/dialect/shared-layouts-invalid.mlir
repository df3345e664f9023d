// RUN: megac-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of #tile.swizzled_shared, #tile.padded_shared
// and the `shared` attribute of tile.convert_layout.

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>
func.func @vec_not_pow2(%v: tensor<32x32xf32, #R>) {
  // expected-error @+1 {{invalid #tile.swizzled_shared layout: vec, perPhase and maxPhase must be powers of two}}
  %c = tile.convert_layout %v {shared = #tile.swizzled_shared<vec = 3, perPhase = 1, maxPhase = 8, order = [1, 0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return
}

// -----

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>
func.func @order_not_permutation(%v: tensor<32x32xf32, #R>) {
  // expected-error @+1 {{invalid #tile.swizzled_shared layout: order must be a permutation of the dimensions}}
  %c = tile.convert_layout %v {shared = #tile.swizzled_shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 1]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return
}

// -----

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>
func.func @interval_not_pow2(%v: tensor<32x32xf32, #R>) {
  // expected-error @+1 {{invalid #tile.padded_shared layout: interval must be a power of two}}
  %c = tile.convert_layout %v {shared = #tile.padded_shared<interval = 24, padding = 1, order = [1, 0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return
}

// -----

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>
func.func @no_padding(%v: tensor<32x32xf32, #R>) {
  // expected-error @+1 {{invalid #tile.padded_shared layout: padding must be at least 1}}
  %c = tile.convert_layout %v {shared = #tile.padded_shared<interval = 32, padding = 0, order = [1, 0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return
}

// -----

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>
func.func @rank_mismatch(%v: tensor<32x32xf32, #R>) {
  // expected-error @+1 {{shared layout order has 1 dimensions, the tile 2}}
  %c = tile.convert_layout %v {shared = #tile.padded_shared<interval = 32, padding = 1, order = [0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return
}

// -----

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>
func.func @not_shared(%v: tensor<32x32xf32, #R>) {
  // expected-error @+1 {{'shared' must be a #tile.swizzled_shared or #tile.padded_shared layout, got #tile.blocked}}
  %c = tile.convert_layout %v {shared = #R} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return
}
