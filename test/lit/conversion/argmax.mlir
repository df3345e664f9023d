// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// argmax over a 1-D tile of 4 warps: within a thread, then 5 butterfly
// shuffles of value and index, then across warps through shared memory
// (value and index slots), with the lower index winning ties. The value
// combines as max does (llvm.intr.maximum), so that it is that max exactly.
// Every thread reduces to the same scalar: one key, 4 ways, a value and an
// index slot each (4 x 2 x 4 bytes).
// CHECK: llvm.mlir.global internal @__megac_smem_argmax() {{.*}} : !llvm.array<32 x i8>
// CHECK-LABEL: llvm.func @argmax
// CHECK: %[[GT:.*]] = llvm.fcmp "ogt"
// CHECK: %[[EQ:.*]] = llvm.fcmp "oeq"
// CHECK: %[[LT:.*]] = llvm.icmp "slt"
// CHECK: %[[TIE:.*]] = llvm.and %[[EQ]], %[[LT]]
// CHECK: %[[TAKE:.*]] = llvm.or %[[GT]], %[[TIE]]
// CHECK: llvm.intr.maximum
// CHECK: llvm.select %[[TAKE]]
// CHECK-COUNT-5: nvvm.shfl.sync bfly %{{.*}} : f32 -> f32
// CHECK: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// The scalar result is stored by thread 0 alone (every thread holds it).
// CHECK: %[[ST0:.*]] = llvm.icmp "eq"
// CHECK: llvm.inline_asm has_side_effects {{.*}}"@$0 st.global.b32 [$1], $2;", "b,l,r" %[[ST0]]
func.func @argmax(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 1024 : tensor<1024xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %a : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %i = tile.reduce "argmax" %v {axis = 0 : i32} : tensor<1024xf32> -> i32
  tile.store %out, %i : !tile.ptr<i32>, i32
  return
}

// A max of the same tile after its argmax, in the same block, is the value
// the argmax reduced on the way: one reduction (5 f32 and 5 i32 shuffles
// within the warp), not two.
// CHECK-LABEL: llvm.func @argmax_then_max
// CHECK-COUNT-5: nvvm.shfl.sync bfly %{{.*}} : f32 -> f32
// CHECK-NOT: nvvm.shfl.sync bfly %{{.*}} : f32 -> f32
// CHECK: llvm.return
func.func @argmax_then_max(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<i32>, %best: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %i = tile.reduce "argmax" %v {axis = 0 : i32} : tensor<512xf32> -> i32
  %m = tile.reduce "max" %v {axis = 0 : i32} : tensor<512xf32> -> f32
  tile.store %out, %i : !tile.ptr<i32>, i32
  tile.store %best, %m : !tile.ptr<f32>, f32
  return
}

// A max before the argmax reduces on its own (the argmax comes later).
// CHECK-LABEL: llvm.func @max_then_argmax
// CHECK-COUNT-10: nvvm.shfl.sync bfly %{{.*}} : f32 -> f32
// CHECK: llvm.return
func.func @max_then_argmax(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<i32>, %best: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %m = tile.reduce "max" %v {axis = 0 : i32} : tensor<512xf32> -> f32
  %i = tile.reduce "argmax" %v {axis = 0 : i32} : tensor<512xf32> -> i32
  tile.store %out, %i : !tile.ptr<i32>, i32
  tile.store %best, %m : !tile.ptr<f32>, f32
  return
}
