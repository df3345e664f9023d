// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// Within a thread, max (and min, argmax, argmin) combine the thread's values
// pairwise, a tree of log2(n) dependent steps: the second level takes two
// results of the first. A sum adds them in register order (its rounding is
// part of the result): each add takes the previous one.

// CHECK-LABEL: llvm.func @row_max
// CHECK: %[[A:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT: %[[B:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK: llvm.intr.maximum(%[[A]], %[[B]]) : (f32, f32) -> f32
// CHECK: nvvm.shfl.sync bfly
func.func @row_max(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 256 : tensor<256xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %a : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %m = tile.reduce "max" %v {axis = 0 : i32} : tensor<256xf32> -> f32
  tile.store %out, %m : !tile.ptr<f32>, f32
  return
}

// CHECK-LABEL: llvm.func @row_sum
// CHECK: %[[S1:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[S2:.*]] = llvm.fadd %[[S1]], %{{.*}} : f32
// CHECK-NEXT: llvm.fadd %[[S2]], %{{.*}} : f32
func.func @row_sum(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 256 : tensor<256xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %a : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %s = tile.reduce "sum" %v {axis = 0 : i32} : tensor<256xf32> -> f32
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}
