// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// A layout conversion goes through shared memory: a barrier, every thread
// writes its 4 registers at their row-major positions, a barrier, every
// thread reads what the new layout gives it. The buffer holds the whole tile
// (512 x f32 = 2048 bytes).
// CHECK: llvm.mlir.global internal @__megac_smem_convert() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
// CHECK-LABEL: llvm.func @convert
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @__megac_smem_convert : !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-COUNT-4: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @convert(%p: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32, #A>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #A>
  %a = tile.addptr %s, %r : tensor<512x!tile.ptr<f32>, #A>, tensor<512xi32, #A>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>, #A> -> tensor<512xf32, #A>
  %c = tile.convert_layout %v : tensor<512xf32, #A> -> tensor<512xf32, #B>
  %rb = tile.arange 0, 512 : tensor<512xi32, #B>
  %sb = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #B>
  %b = tile.addptr %sb, %rb : tensor<512x!tile.ptr<f32>, #B>, tensor<512xi32, #B>
  tile.store %b, %c : tensor<512x!tile.ptr<f32>, #B>, tensor<512xf32, #B>
  return
}
