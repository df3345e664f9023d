// RUN: megac-opt %s -split-input-file -tile-assign-shared-layouts | FileCheck %s

// The transpose of a 32x32 f32 tile on 4 warps: 16-byte vectors along the
// rows in, 4 registers down the columns out. A row-major buffer would make
// the reads 8-way bank conflicts; vectors of 4 XOR-swizzled with the row / 4
// make both sides conflict-free.
#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>

// CHECK-LABEL: func.func @transpose
// CHECK: tile.convert_layout %{{.*}} {shared = #tile.swizzled_shared<vec = 4, perPhase = 4, maxPhase = 8, order = [1, 0]>}
func.func @transpose(%v: tensor<32x32xf32, #R>) -> tensor<32x32xf32, #C> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c = tile.convert_layout %v : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return %c : tensor<32x32xf32, #C>
}

// -----

// Lanes along the rows in, lanes down the columns out, one element each: the
// search settles on a layout that spreads a column over the 32 banks.
#R = #tile.blocked<spt = [1, 1], tpw = [1, 32], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [1, 1], tpw = [32, 1], wpc = [1, 4], order = [0, 1]>

// CHECK-LABEL: func.func @columns
// CHECK: tile.convert_layout %{{.*}} {shared = #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 32, order = [1, 0]>}
func.func @columns(%v: tensor<32x32xf32, #R>) -> tensor<32x32xf32, #C> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c = tile.convert_layout %v : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return %c : tensor<32x32xf32, #C>
}

// -----

// Already conflict-free in a row-major buffer: it stays row-major.
#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// CHECK-LABEL: func.func @rows
// CHECK: tile.convert_layout %{{.*}} {shared = #tile.swizzled_shared<vec = 1, perPhase = 1, maxPhase = 1, order = [0]>}
func.func @rows(%v: tensor<512xf32, #A>) -> tensor<512xf32, #B> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c = tile.convert_layout %v : tensor<512xf32, #A> -> tensor<512xf32, #B>
  return %c : tensor<512xf32, #B>
}

// -----

// Conversions that need no shared memory get no layout: inside each warp
// (shuffles), and between equivalent layouts (nothing moves).
#R = #tile.blocked<spt = [1, 1], tpw = [4, 8], wpc = [1, 4], order = [1, 0]>
#C = #tile.blocked<spt = [1, 1], tpw = [4, 8], wpc = [1, 4], order = [0, 1]>
#S = #tile.slice<dim = 0, parent = #tile.blocked<spt = [1, 4], tpw = [1, 32], wpc = [1, 4], order = [1, 0]>>
#L = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>

// CHECK-LABEL: func.func @no_shared
// CHECK-NOT: shared =
// CHECK: return
func.func @no_shared(%v: tensor<32x32xf32, #R>, %s: tensor<512xf32, #S>) -> (tensor<32x32xf32, #C>, tensor<512xf32, #L>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c = tile.convert_layout %v : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  %l = tile.convert_layout %s : tensor<512xf32, #S> -> tensor<512xf32, #L>
  return %c, %l : tensor<32x32xf32, #C>, tensor<512xf32, #L>
}

// -----

// A layout written in the IR is kept.
#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>

// CHECK-LABEL: func.func @by_hand
// CHECK: tile.convert_layout %{{.*}} {shared = #tile.padded_shared<interval = 32, padding = 4, order = [1, 0]>}
func.func @by_hand(%v: tensor<32x32xf32, #R>) -> tensor<32x32xf32, #C> attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c = tile.convert_layout %v {shared = #tile.padded_shared<interval = 32, padding = 4, order = [1, 0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return %c : tensor<32x32xf32, #C>
}
