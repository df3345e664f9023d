// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s

// A reduction across warps keeps one f32 slot per (partial, thread) in shared
// memory: the warps along the axis share a key, the warp's axis digit taken
// out of it (here the middle bit: wpc = [2, 2], order = [1, 0], the axis-0
// digit is bit 1 of the warp id). [8, 256] in 4 warps: 4 partials per thread
// (its 4 columns), 2 warps along axis 0, so 4 * (4 / 2 * 32) * 2 slots of 4
// bytes = 2048 bytes (not 4 * 128 * 2 * 4 = 4096).

#A = #tile.blocked<spt = [1, 4], tpw = [1, 32], wpc = [2, 2], order = [1, 0]>

// CHECK: llvm.mlir.global internal @__megac_smem_col_sum() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
// CHECK-LABEL: llvm.func @col_sum
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
func.func @col_sum(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %v = arith.constant dense<1.0> : tensor<8x256xf32, #A>
  %s = tile.reduce "sum" %v {axis = 0 : i32} : tensor<8x256xf32, #A> -> tensor<256xf32, #tile.slice<dim = 0, parent = #A>>
  %r = tile.arange 0, 256 : tensor<256xi32, #tile.slice<dim = 0, parent = #A>>
  %o = tile.splat %out : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>, #tile.slice<dim = 0, parent = #A>>
  %optrs = tile.addptr %o, %r : tensor<256x!tile.ptr<f32>, #tile.slice<dim = 0, parent = #A>>, tensor<256xi32, #tile.slice<dim = 0, parent = #A>>
  tile.store %optrs, %s : tensor<256x!tile.ptr<f32>, #tile.slice<dim = 0, parent = #A>>, tensor<256xf32, #tile.slice<dim = 0, parent = #A>>
  return
}
