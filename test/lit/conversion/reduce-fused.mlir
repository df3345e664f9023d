// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// tile.fused_reductions (@fused_reductions): two sums across the same 32
// lanes share one reduce-scatter butterfly. The second sum's operand (the
// square, computed after the first sum) moves above it, so both threads'
// partials are ready; at the first mask (1) the lanes with its bit set keep
// the second partial and send the first, the others the reverse, and each
// adds what it keeps to what it receives, as its own butterfly would. The
// one partial left takes the other four masks, then each sum is read from a
// lane that holds it: the lane's bits but the first, then with it set.

// CHECK-LABEL: llvm.func @two_sums
// CHECK-COUNT-6: llvm.fadd
// CHECK-NEXT: %[[BIT:.*]] = llvm.and %[[LANE:.*]], %[[ONE:.*]] : i32
// CHECK-NEXT: %[[HIGH:.*]] = llvm.icmp "ne" %[[BIT]], %{{.*}} : i32
// CHECK-NEXT: %[[SENT:.*]] = llvm.select %[[HIGH]], %[[A:.*]], %[[B:.*]] : i1, f32
// CHECK-NEXT: %[[KEPT:.*]] = llvm.select %[[HIGH]], %[[B]], %[[A]] : i1, f32
// CHECK: %[[GOT:.*]] = nvvm.shfl.sync bfly %{{.*}}, %[[SENT]], %{{.*}}, %{{.*}} : f32 -> f32
// CHECK-NEXT: %[[S1:.*]] = llvm.fadd %[[KEPT]], %[[GOT]] : f32
// CHECK: nvvm.shfl.sync bfly %{{.*}}, %[[S1]],
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.shfl.sync bfly
// CHECK: nvvm.shfl.sync bfly
// CHECK: %[[LAST:.*]] = llvm.fadd
// CHECK-NEXT: %[[OTHERS:.*]] = llvm.and %[[LANE]], %{{.*}} : i32
// CHECK-NOT: nvvm.shfl.sync bfly
// CHECK: %[[SUM:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[LAST]], %[[OTHERS]], %{{.*}} : f32 -> f32
// CHECK-NEXT: %[[FROM:.*]] = llvm.or %[[OTHERS]], %[[ONE]] : i32
// CHECK: %[[SQUARES:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[LAST]], %[[FROM]], %{{.*}} : f32 -> f32
// CHECK: llvm.bitcast %[[SUM]] : f32 to i32
// CHECK: st.global
// CHECK: llvm.bitcast %[[SQUARES]] : f32 to i32
// CHECK: st.global
func.func @two_sums(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32, tile.fused_reductions} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %a : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %s = tile.reduce "sum" %v {axis = 0 : i32} : tensor<128xf32> -> f32
  tile.store %out, %s : !tile.ptr<f32>, f32
  %sq = arith.mulf %v, %v : tensor<128xf32>
  %t = tile.reduce "sum" %sq {axis = 0 : i32} : tensor<128xf32> -> f32
  %c1 = arith.constant 1 : i32
  %o1 = tile.addptr %out, %c1 : !tile.ptr<f32>, i32
  tile.store %o1, %t : !tile.ptr<f32>, f32
  return
}

// Without the attribute: a butterfly each, in the order written.
// CHECK-LABEL: llvm.func @two_sums_plain
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK: st.global
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
func.func @two_sums_plain(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %a : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %s = tile.reduce "sum" %v {axis = 0 : i32} : tensor<128xf32> -> f32
  tile.store %out, %s : !tile.ptr<f32>, f32
  %sq = arith.mulf %v, %v : tensor<128xf32>
  %t = tile.reduce "sum" %sq {axis = 0 : i32} : tensor<128xf32> -> f32
  %c1 = arith.constant 1 : i32
  %o1 = tile.addptr %out, %c1 : !tile.ptr<f32>, i32
  tile.store %o1, %t : !tile.ptr<f32>, f32
  return
}

// Reductions across warps too: the lanes' part is shared, then each crosses
// the warps through shared memory as before (one barrier pair each).
// CHECK-LABEL: llvm.func @across_warps
// CHECK-COUNT-5: nvvm.shfl.sync bfly
// CHECK-COUNT-2: nvvm.shfl.sync idx
// CHECK: nvvm.barrier
// CHECK: nvvm.barrier
// CHECK: nvvm.barrier
// CHECK: nvvm.barrier
// CHECK-NOT: nvvm.shfl.sync
// CHECK: llvm.return
func.func @across_warps(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32, tile.fused_reductions} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %s = tile.reduce "sum" %v {axis = 0 : i32} : tensor<512xf32> -> f32
  %sq = arith.mulf %v, %v : tensor<512xf32>
  %t = tile.reduce "sum" %sq {axis = 0 : i32} : tensor<512xf32> -> f32
  %u = arith.addf %s, %t : f32
  tile.store %out, %u : !tile.ptr<f32>, f32
  return
}
