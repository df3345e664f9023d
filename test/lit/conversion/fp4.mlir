// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm=target=sm_100a | FileCheck %s --check-prefix=HW
// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm=target=sm_90a | FileCheck %s --check-prefix=SW

// f32 -> E2M1 (rne, satfinite). sm_100a has cvt.rn.satfinite.e2m1x2.f32:
// one conversion per register pair, each nibble in its own i8.
// HW-LABEL: llvm.func @to_fp4
// HW-COUNT-2: nvvm.convert.f32x2.to.f4x2 %{{.*}}, %{{.*}} : i8(f4E2M1FN)
// HW-NOT: nvvm.convert
// HW-NOT: llvm.fcmp
// HW: llvm.return

// sm_90a has no FP4 conversion: the exact software rounding compares |x|
// against the 7 midpoints of {0, .5, 1, 1.5, 2, 3, 4, 6} (ties to even: > on
// odd-to-even steps, >= on even-to-odd), maps NaN to the saturated code 7
// and ors in the sign bit (bit 3).
// SW-LABEL: llvm.func @to_fp4
// SW-NOT: nvvm.convert
// SW: %[[AX:.*]] = llvm.intr.fabs(%[[X:.*]]) : (f32) -> f32
// SW: %[[B0:.*]] = llvm.mlir.constant(2.500000e-01 : f32) : f32
// SW-NEXT: llvm.fcmp "ogt" %[[AX]], %[[B0]] : f32
// SW: %[[B1:.*]] = llvm.mlir.constant(7.500000e-01 : f32) : f32
// SW-NEXT: llvm.fcmp "oge" %[[AX]], %[[B1]] : f32
// SW: %[[B2:.*]] = llvm.mlir.constant(1.250000e+00 : f32) : f32
// SW-NEXT: llvm.fcmp "ogt" %[[AX]], %[[B2]] : f32
// SW: %[[B3:.*]] = llvm.mlir.constant(1.750000e+00 : f32) : f32
// SW-NEXT: llvm.fcmp "oge" %[[AX]], %[[B3]] : f32
// SW: %[[B4:.*]] = llvm.mlir.constant(2.500000e+00 : f32) : f32
// SW-NEXT: llvm.fcmp "ogt" %[[AX]], %[[B4]] : f32
// SW: %[[B5:.*]] = llvm.mlir.constant(3.500000e+00 : f32) : f32
// SW-NEXT: llvm.fcmp "oge" %[[AX]], %[[B5]] : f32
// SW: %[[B6:.*]] = llvm.mlir.constant(5.000000e+00 : f32) : f32
// SW-NEXT: llvm.fcmp "ogt" %[[AX]], %[[B6]] : f32
// SW: llvm.bitcast %[[X]] : f32 to i32
// SW: llvm.lshr %{{.*}}, %{{.*}} : i32
// SW: llvm.or %{{.*}}, %{{.*}} : i8
// SW: llvm.return
func.func @to_fp4(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %y: !tile.ptr<f4E2M1FN> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %f4 = tile.fp_trunc %v {rounding = "rne", saturate = true} : tensor<512xf32> -> tensor<512xf4E2M1FN>
  %q = tile.splat %y : !tile.ptr<f4E2M1FN> -> tensor<512x!tile.ptr<f4E2M1FN>>
  %b = tile.addptr %q, %r : tensor<512x!tile.ptr<f4E2M1FN>>, tensor<512xi32>
  tile.store %b, %f4 : tensor<512x!tile.ptr<f4E2M1FN>>, tensor<512xf4E2M1FN>
  return
}
