// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// Row sums of a 128x128 f32 tile: along axis 1 the lanes of a warp shuffle;
// along axis 0 the warps meet in shared memory.

// Column sums: each thread keeps 4 partials (its 4 columns), 4 warps meet
// along the axis, and the 32 lanes are the distinct keys (the warp bits are
// all axis bits): 4 partials x 32 keys x 4 ways x 4 bytes = 2048 bytes
// (one slot per thread and way would be 8192).
// CHECK: llvm.mlir.global internal @__megac_smem_col_sum() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
// CHECK-LABEL: llvm.func @row_sum
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @row_sum(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %c = tile.arange 0, 128 : tensor<128xi32>
  %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %c1 = tile.expand_dims %c {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<128x1xi32>
  %rowoff = arith.muli %r1, %c128 : tensor<128x1xi32>
  %rb = tile.broadcast %rowoff : tensor<128x1xi32> -> tensor<128x128xi32>
  %cb = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %off = arith.addi %rb, %cb : tensor<128x128xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %ptrs = tile.addptr %p, %off : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  %v = tile.load %ptrs : tensor<128x128x!tile.ptr<f32>> -> tensor<128x128xf32>
  %s = tile.reduce "sum" %v {axis = 1 : i32} : tensor<128x128xf32> -> tensor<128xf32>
  %o = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %o, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %s : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// CHECK-LABEL: llvm.func @col_sum
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load {{.*}} : !llvm.ptr<3> -> f32
func.func @col_sum(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<128xi32> -> tensor<128x1xi32>
  %c1 = tile.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %c128 = arith.constant dense<128> : tensor<128x1xi32>
  %rowoff = arith.muli %r1, %c128 : tensor<128x1xi32>
  %rb = tile.broadcast %rowoff : tensor<128x1xi32> -> tensor<128x128xi32>
  %cb = tile.broadcast %c1 : tensor<1x128xi32> -> tensor<128x128xi32>
  %off = arith.addi %rb, %cb : tensor<128x128xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x128x!tile.ptr<f32>>
  %ptrs = tile.addptr %p, %off : tensor<128x128x!tile.ptr<f32>>, tensor<128x128xi32>
  %v = tile.load %ptrs : tensor<128x128x!tile.ptr<f32>> -> tensor<128x128xf32>
  %s = tile.reduce "sum" %v {axis = 0 : i32} : tensor<128x128xf32> -> tensor<128xf32>
  %o = tile.splat %out : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %optrs = tile.addptr %o, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %optrs, %s : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}
