// RUN: megac-opt %s | megac-opt | FileCheck %s

// The shared-memory layouts print as they parse, on a tile.convert_layout.
#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>

// CHECK-LABEL: func.func @swizzled
// CHECK: tile.convert_layout %{{.*}} {shared = #tile.swizzled_shared<vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]>}
func.func @swizzled(%v: tensor<32x32xf32, #R>) -> tensor<32x32xf32, #C> {
  %c = tile.convert_layout %v {shared = #tile.swizzled_shared<vec = 4, perPhase = 2, maxPhase = 8, order = [1, 0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return %c : tensor<32x32xf32, #C>
}

// CHECK-LABEL: func.func @padded
// CHECK: tile.convert_layout %{{.*}} {shared = #tile.padded_shared<interval = 32, padding = 1, order = [0, 1]>}
func.func @padded(%v: tensor<32x32xf32, #R>) -> tensor<32x32xf32, #C> {
  %c = tile.convert_layout %v {shared = #tile.padded_shared<interval = 32, padding = 1, order = [0, 1]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  return %c : tensor<32x32xf32, #C>
}
