// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// Within a thread, argmax (and argmin) combine the thread's values pairwise,
// a tree of log2(n) dependent steps: a second-level pick takes two picks of
// the first. A sum adds in register order (its rounding is part of the
// result), and so does max: each step takes the previous one.

// CHECK-LABEL: llvm.func @row_argmax
// CHECK: %[[A:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: %[[B:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, i32
// CHECK: llvm.icmp "slt" %[[B]], %[[A]] : i32
// CHECK: nvvm.shfl.sync bfly
func.func @row_argmax(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 256 : tensor<256xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<256x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<256x!tile.ptr<f32>>, tensor<256xi32>
  %v = tile.load %a : tensor<256x!tile.ptr<f32>> -> tensor<256xf32>
  %m = tile.reduce "argmax" %v {axis = 0 : i32} : tensor<256xf32> -> i32
  tile.store %out, %m : !tile.ptr<i32>, i32
  return
}

// CHECK-LABEL: llvm.func @row_max
// CHECK: %[[M1:.*]] = llvm.intr.maximum(%{{.*}}, %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT: %[[M2:.*]] = llvm.intr.maximum(%[[M1]], %{{.*}}) : (f32, f32) -> f32
// CHECK-NEXT: llvm.intr.maximum(%[[M2]], %{{.*}}) : (f32, f32) -> f32
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
