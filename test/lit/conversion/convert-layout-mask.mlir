// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// A mask (i1) changes layout through shared memory as bytes: widened to i8
// before the store (the thread's 4 consecutive bytes as one vector), narrowed
// back after the load. 512 x i8 = 512 bytes.
// CHECK: llvm.mlir.global internal @__megac_smem_convert_mask() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<512 x i8>
// CHECK-LABEL: llvm.func @convert_mask
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.zext %{{.*}} : i1 to i8
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : vector<4xi8>, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// CHECK-NEXT: llvm.trunc %{{.*}} : i8 to i1
// CHECK: llvm.return
func.func @convert_mask(%p: !tile.ptr<f32> {tile.alignment = 16 : i64}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32, #A>
  %ns = tile.splat %n : i32 -> tensor<512xi32, #A>
  %m = arith.cmpi slt, %r, %ns : tensor<512xi32, #A>
  %mb = tile.convert_layout %m : tensor<512xi1, #A> -> tensor<512xi1, #B>
  %rb = tile.arange 0, 512 : tensor<512xi32, #B>
  %sb = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #B>
  %b = tile.addptr %sb, %rb : tensor<512x!tile.ptr<f32>, #B>, tensor<512xi32, #B>
  %z = arith.constant dense<0.0> : tensor<512xf32, #B>
  tile.store %b, %z mask %mb : tensor<512x!tile.ptr<f32>, #B>, tensor<512xf32, #B>, tensor<512xi1, #B>
  return
}
