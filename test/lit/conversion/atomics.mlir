// RUN: megac-opt %s -split-input-file -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// 16 elements over 128 threads (16 registers each, no memory access to size
// vectors by): every thread holds the whole tile, and only the owner of an
// element (the thread whose index does not wrap) may add it.
// CHECK-LABEL: llvm.func @replicated
// CHECK: %[[OWN:.*]] = llvm.icmp "ult" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.cond_br %[[OWN]], ^[[DO:bb[0-9]+]], ^[[SKIP:bb[0-9]+]]
// CHECK: ^[[DO]]:
// CHECK-NEXT: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK-COUNT-15: llvm.atomicrmw fadd
// CHECK-NOT: llvm.atomicrmw
// CHECK: llvm.return
func.func @replicated(%p: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<16x!tile.ptr<f32>>
  %a = tile.addptr %s, %r : tensor<16x!tile.ptr<f32>>, tensor<16xi32>
  %one = arith.constant dense<1.0> : tensor<16xf32>
  %old = tile.atomic_rmw "add" %a, %one : tensor<16x!tile.ptr<f32>>, tensor<16xf32> -> tensor<16xf32>
  return
}

// -----

// A masked i32 max: the owner predicate and the mask are both required.
// CHECK-LABEL: llvm.func @masked_max
// CHECK: %[[OWN:.*]] = llvm.icmp "ult"
// CHECK: %[[BOTH:.*]] = llvm.and %[[OWN]], %{{.*}} : i1
// CHECK: llvm.cond_br %[[BOTH]]
// CHECK: llvm.atomicrmw max %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, i32
func.func @masked_max(%p: !tile.ptr<i32> {tile.alignment = 16 : i64}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 16 : tensor<16xi32>
  %s = tile.splat %p : !tile.ptr<i32> -> tensor<16x!tile.ptr<i32>>
  %a = tile.addptr %s, %r : tensor<16x!tile.ptr<i32>>, tensor<16xi32>
  %b = tile.splat %n : i32 -> tensor<16xi32>
  %m = arith.cmpi slt, %r, %b : tensor<16xi32>
  %old = tile.atomic_rmw "max" %a, %r mask %m : tensor<16x!tile.ptr<i32>>, tensor<16xi32>, tensor<16xi1> -> tensor<16xi32>
  return
}

// -----

// A scalar atomic is one operation per program: thread 0 performs it (not
// all 128 threads), and hands the old value to the others through shared
// memory.
// CHECK-LABEL: llvm.func @scalar
// CHECK: nvvm.read.ptx.sreg.tid.x
// CHECK: %[[T0:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK: llvm.cond_br %[[T0]], ^[[DO:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK: ^[[DO]]:
// CHECK-NEXT: llvm.atomicrmw fadd %{{.*}}, %{{.*}} monotonic : !llvm.ptr<1>, f32
// CHECK-NOT: llvm.atomicrmw
// CHECK: nvvm.barrier0
// CHECK: llvm.cond_br %[[T0]]
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK: nvvm.barrier0
// CHECK: %[[OLD:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// A scalar store is thread 0's (every thread holds the scalar).
// CHECK: %[[ST0:.*]] = llvm.icmp "eq"
// CHECK: %[[BITS:.*]] = llvm.bitcast %[[OLD]] : f32 to i32
// CHECK: llvm.inline_asm has_side_effects {{.*}}"@$0 st.global.b32 [$1], $2;", "b,l,r" %[[ST0]], %{{.*}}, %[[BITS]]
func.func @scalar(%p: !tile.ptr<f32>, %q: !tile.ptr<f32>, %v: f32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %old = tile.atomic_rmw "add" %p, %v : !tile.ptr<f32>, f32 -> f32
  tile.store %q, %old : !tile.ptr<f32>, f32
  return
}
