// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm=target=sm_90a | FileCheck %s

// A divf that tile-expand-fp8 marked {tile.fp8_quotient}, by a shared
// divisor: one reciprocal per distinct divisor (rcp.rn's fast path: the
// approximate reciprocal and a fused Newton step), a range check on the divisor,
// then per value min(|x|, 2^70) keeping NaN, a multiply, two fmas and
// copysign; out of range, every value divides (llvm.fdiv).
// CHECK-LABEL: llvm.func @shared_scale
// CHECK: %[[A:.*]] = nvvm.rcp.approx.ftz.f %[[S:.*]] : f32
// CHECK: %[[E:.*]] = llvm.intr.fma(%{{.*}}, %[[A]], %{{.*}})
// CHECK: %[[Y:.*]] = llvm.intr.fma(%[[A]], %[[E]], %[[A]])
// CHECK-DAG: llvm.fcmp "oge" %[[S]]
// CHECK-DAG: llvm.fcmp "ole" %[[S]]
// CHECK: llvm.cond_br
// CHECK: llvm.intr.minimum
// CHECK: %[[Q0:.*]] = llvm.fmul %{{.*}}, %[[Y]] : f32
// CHECK: %[[R:.*]] = llvm.intr.fma(%[[Q0]], %[[S]], %{{.*}})
// CHECK: llvm.intr.fma(%{{.*}}, %[[Y]], %[[Q0]])
// CHECK: llvm.intr.copysign
// CHECK: llvm.br
// CHECK-COUNT-4: llvm.fdiv %{{.*}}, %[[S]] : f32
// CHECK: llvm.return
func.func @shared_scale(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %s: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %scale = tile.load %s : !tile.ptr<f32> -> f32
  %d = tile.splat %scale : f32 -> tensor<512xf32>
  %q = arith.divf %v, %d {tile.fp8_quotient} : tensor<512xf32>
  tile.store %a, %q : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// Every value with its own divisor: a reciprocal each would cost more than
// the divisions, so each value divides, with no branch.
// CHECK-LABEL: llvm.func @own_divisors
// CHECK-NOT: llvm.cond_br
// CHECK-COUNT-4: llvm.fdiv
// CHECK-NOT: llvm.intr.copysign
// CHECK: llvm.return
func.func @own_divisors(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %q = arith.divf %v, %v {tile.fp8_quotient} : tensor<512xf32>
  tile.store %a, %q : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// Unmarked, a division by a shared divisor stays an IEEE division per value.
// CHECK-LABEL: llvm.func @unmarked
// CHECK-NOT: llvm.cond_br
// CHECK-COUNT-4: llvm.fdiv
// CHECK-NOT: llvm.intr.copysign
// CHECK: llvm.return
func.func @unmarked(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %s: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %scale = tile.load %s : !tile.ptr<f32> -> f32
  %d = tile.splat %scale : f32 -> tensor<512xf32>
  %q = arith.divf %v, %d : tensor<512xf32>
  tile.store %a, %q : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
