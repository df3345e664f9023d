// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
#C = #tile.blocked<spt = [4, 1], tpw = [8, 4], wpc = [1, 4], order = [0, 1]>

// A transpose through a swizzled buffer: each thread writes its two runs of 4
// consecutive elements as 16-byte vectors at (row, ((col / 4) xor (row / 4
// mod 8)) * 4), and reads its 8 elements one by one from the same places.
// The buffer is the tile, 32 x 32 x 4 = 4096 bytes. (The loads and stores
// of global memory, through splat pointers, only frame the conversion.)
// CHECK-DAG: llvm.mlir.global internal @__megac_smem_swizzled() {{.*}} : !llvm.array<4096 x i8>
// CHECK-DAG: llvm.mlir.global internal @__megac_smem_padded() {{.*}} : !llvm.array<4592 x i8>
// CHECK-LABEL: llvm.func @swizzled
// CHECK: nvvm.barrier0
// CHECK: llvm.xor
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: llvm.xor
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: llvm.load
// CHECK: llvm.return
func.func @swizzled(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #R>
  %v = tile.load %xs : tensor<32x32x!tile.ptr<f32>, #R> -> tensor<32x32xf32, #R>
  %c = tile.convert_layout %v {shared = #tile.swizzled_shared<vec = 4, perPhase = 4, maxPhase = 8, order = [1, 0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #C>
  tile.store %ys, %c : tensor<32x32x!tile.ptr<f32>, #C>, tensor<32x32xf32, #C>
  return
}

// A padded buffer: 4 elements after every 32 (so the 16-byte vectors stay
// aligned), 1024 + 31 * 4 elements = 4592 bytes; no xor.
// CHECK-LABEL: llvm.func @padded
// CHECK-NOT: llvm.xor
// CHECK-COUNT-2: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-8: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK: llvm.return
func.func @padded(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %xs = tile.splat %x : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #R>
  %v = tile.load %xs : tensor<32x32x!tile.ptr<f32>, #R> -> tensor<32x32xf32, #R>
  %c = tile.convert_layout %v {shared = #tile.padded_shared<interval = 32, padding = 4, order = [1, 0]>} : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  %ys = tile.splat %y : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #C>
  tile.store %ys, %c : tensor<32x32x!tile.ptr<f32>, #C>, tensor<32x32xf32, #C>
  return
}
