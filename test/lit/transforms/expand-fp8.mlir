// RUN: megac-opt %s -split-input-file -tile-expand-fp8 | FileCheck %s
// RUN: not megac-opt %s -split-input-file -tile-assign-layouts -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNEXPANDED

// FP8 quantization becomes the ops a kernel writes by hand: a division (never a
// multiply by the reciprocal), marked {tile.fp8_quotient} so that the lowering
// may divide by a shared scale faster with the same FP8 bytes, and
// tile.fp_trunc. The group scale's own division is not marked.
// UNEXPANDED: must be expanded by tile-expand-fp8 before layouts are assigned
// CHECK-LABEL: func.func @per_tensor
// CHECK: %[[S:.*]] = tile.splat %arg1 : f32 -> tensor<128xf32>
// CHECK: %[[Q:.*]] = arith.divf %arg0, %[[S]] {tile.fp8_quotient} : tensor<128xf32>
// CHECK: tile.fp_trunc %[[Q]] {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf8E5M2>
// CHECK-NOT: tile.quantize
func.func @per_tensor(%x: tensor<128xf32>, %s: f32) -> tensor<128xf8E5M2> {
  %q = tile.quantize "fp8" %x scale %s : tensor<128xf32> -> tensor<128xf8E5M2>
  return %q : tensor<128xf8E5M2>
}

// -----

// One group per row: the max reduction along it, s = max(amax, 1e-10) / 448,
// and the scales [8, 1] are the reduction with its dimension put back.
// CHECK-LABEL: func.func @one_group_per_row
// CHECK: %[[X:.*]] = arith.extf %arg0 : tensor<8x128xbf16> to tensor<8x128xf32>
// CHECK: %[[A:.*]] = math.absf %[[X]]
// CHECK: %[[M:.*]] = tile.reduce "max" %[[A]] {axis = 1 : i32} : tensor<8x128xf32> -> tensor<8xf32>
// CHECK: arith.constant 1.000000e-10 : f32
// CHECK: %[[F:.*]] = arith.maximumf %[[M]]
// CHECK: arith.constant 4.480000e+02 : f32
// CHECK: %[[S:.*]] = arith.divf %[[F]], %{{[^ ]*}} : tensor<8xf32>
// CHECK: %[[E:.*]] = tile.expand_dims %[[S]] {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
// CHECK: %[[B:.*]] = tile.broadcast %[[E]] : tensor<8x1xf32> -> tensor<8x128xf32>
// CHECK: %[[D:.*]] = arith.divf %[[X]], %[[B]] {tile.fp8_quotient} : tensor<8x128xf32>
// CHECK: %[[Q:.*]] = tile.fp_trunc %[[D]]
// CHECK: return %[[Q]], %[[E]]
func.func @one_group_per_row(%x: tensor<8x128xbf16>) -> (tensor<8x128xf8E4M3FN>, tensor<8x1xf32>) {
  %q, %s = tile.quantize "fp8_group" %x : tensor<8x128xbf16> -> tensor<8x128xf8E4M3FN>, tensor<8x1xf32>
  return %q, %s : tensor<8x128xf8E4M3FN>, tensor<8x1xf32>
}

// -----

// Several groups per row are regrouped into one more dimension; UE8M0 rounds
// the scale up to a power of two on its bits; E5M2's largest value is 57344.
// CHECK-LABEL: func.func @groups_ue8m0
// CHECK: %[[G:.*]] = tile.reshape %arg0 : tensor<4x512xf32> -> tensor<4x4x128xf32>
// CHECK: tile.reduce "max" %{{.*}} {axis = 2 : i32} : tensor<4x4x128xf32> -> tensor<4x4xf32>
// CHECK: arith.constant 5.734400e+04 : f32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : tensor<4x4xf32> to tensor<4x4xi32>
// CHECK: arith.constant 8388607 : i32
// CHECK: arith.cmpi ne
// CHECK: arith.constant 2139095040 : i32
// CHECK: arith.constant 8388608 : i32
// CHECK: arith.select
// CHECK: %[[S:.*]] = arith.bitcast %{{.*}} : tensor<4x4xi32> to tensor<4x4xf32>
// CHECK: tile.expand_dims %[[S]] {axis = 2 : i32} : tensor<4x4xf32> -> tensor<4x4x1xf32>
// CHECK: %[[Q:.*]] = tile.fp_trunc %{{.*}} : tensor<4x4x128xf32> -> tensor<4x4x128xf8E5M2>
// CHECK: %[[R:.*]] = tile.reshape %[[Q]] : tensor<4x4x128xf8E5M2> -> tensor<4x512xf8E5M2>
// CHECK: return %[[R]], %[[S]]
func.func @groups_ue8m0(%x: tensor<4x512xf32>) -> (tensor<4x512xf8E5M2>, tensor<4x4xf32>) {
  %q, %s = tile.quantize "fp8_group_ue8m0" %x : tensor<4x512xf32> -> tensor<4x512xf8E5M2>, tensor<4x4xf32>
  return %q, %s : tensor<4x512xf8E5M2>, tensor<4x4xf32>
}

// -----

// A 1-D tile of one group: the reduction is a scalar, the scales a [1] tile.
// CHECK-LABEL: func.func @single_group
// CHECK: %[[M:.*]] = tile.reduce "max" %{{.*}} {axis = 0 : i32} : tensor<128xf32> -> f32
// CHECK: %[[S:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: %[[T:.*]] = tile.splat %[[S]] : f32 -> tensor<1xf32>
// CHECK: tile.broadcast %[[T]] : tensor<1xf32> -> tensor<128xf32>
func.func @single_group(%x: tensor<128xf32>) -> tensor<1xf32> {
  %q, %s = tile.quantize "fp8_group" %x : tensor<128xf32> -> tensor<128xf8E4M3FN>, tensor<1xf32>
  return %s : tensor<1xf32>
}

// -----

// Dequantization widens, multiplies by the scale and rounds to bf16.
// CHECK-LABEL: func.func @dequantize
// CHECK: %[[W:.*]] = arith.extf %arg0 : tensor<128xf8E4M3FN> to tensor<128xf32>
// CHECK: %[[S:.*]] = tile.splat %arg1 : f32 -> tensor<128xf32>
// CHECK: %[[P:.*]] = arith.mulf %[[W]], %[[S]]
// CHECK: arith.truncf %[[P]] : tensor<128xf32> to tensor<128xbf16>
// CHECK: %[[G:.*]] = tile.reshape %arg2 : tensor<4x256xf8E4M3FN> -> tensor<4x2x128xf8E4M3FN>
// CHECK: %[[GW:.*]] = arith.extf %[[G]]
// CHECK: %[[E:.*]] = tile.expand_dims %arg3 {axis = 2 : i32} : tensor<4x2xf32> -> tensor<4x2x1xf32>
// CHECK: %[[B:.*]] = tile.broadcast %[[E]] : tensor<4x2x1xf32> -> tensor<4x2x128xf32>
// CHECK: %[[GP:.*]] = arith.mulf %[[GW]], %[[B]]
// CHECK: tile.reshape %[[GP]] : tensor<4x2x128xf32> -> tensor<4x256xf32>
func.func @dequantize(%q: tensor<128xf8E4M3FN>, %s: f32, %g: tensor<4x256xf8E4M3FN>, %gs: tensor<4x2xf32>)
    -> (tensor<128xbf16>, tensor<4x256xf32>) {
  %d = tile.dequantize "fp8" %q, %s : tensor<128xf8E4M3FN>, f32 -> tensor<128xbf16>
  %e = tile.dequantize "fp8_group" %g, %gs : tensor<4x256xf8E4M3FN>, tensor<4x2xf32> -> tensor<4x256xf32>
  return %d, %e : tensor<128xbf16>, tensor<4x256xf32>
}

// -----

// A hand-written x / s rounded to FP8 (`(x / s) as f8e4m3`): the divisor is a
// splat and every use is a saturating RNE rounding to E4M3 or E5M2, so it is
// marked like the schemes' quotients. Not marked: a per-element divisor, a
// quotient that is also used as f32, a rounding without saturation, and a
// rounding to FP4.
// CHECK-LABEL: func.func @hand_written
// CHECK: %[[Q:.*]] = arith.divf %arg0, %{{.*}} {tile.fp8_quotient} : tensor<128xf32>
// CHECK: tile.fp_trunc %[[Q]]
// CHECK: %[[P:.*]] = arith.divf %arg0, %arg2 : tensor<128xf32>
// CHECK: %[[F:.*]] = arith.divf %arg0, %{{[^ ]*}} : tensor<128xf32>
// CHECK: %[[N:.*]] = arith.divf %arg0, %{{[^ ]*}} : tensor<128xf32>
// CHECK: tile.fp_trunc %[[N]] {rounding = "rne", saturate = false}
// CHECK: %[[B:.*]] = arith.divf %arg0, %{{[^ ]*}} : tensor<128xf32>
// CHECK: tile.fp_trunc %[[B]] {{.*}} -> tensor<128xf4E2M1FN>
func.func @hand_written(%x: tensor<128xf32>, %s: f32, %t: tensor<128xf32>)
    -> (tensor<128xf8E4M3FN>, tensor<128xf8E5M2>, tensor<128xf32>, tensor<128xf8E4M3FN>, tensor<128xf4E2M1FN>) {
  %st = tile.splat %s : f32 -> tensor<128xf32>
  %q = arith.divf %x, %st : tensor<128xf32>
  %q8 = tile.fp_trunc %q {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf8E4M3FN>
  %p = arith.divf %x, %t : tensor<128xf32>
  %p8 = tile.fp_trunc %p {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf8E5M2>
  %f = arith.divf %x, %st : tensor<128xf32>
  %f8 = tile.fp_trunc %f {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf8E4M3FN>
  %n = arith.divf %x, %st : tensor<128xf32>
  %n8 = tile.fp_trunc %n {rounding = "rne", saturate = false} : tensor<128xf32> -> tensor<128xf8E4M3FN>
  %b = arith.divf %x, %st : tensor<128xf32>
  %b4 = tile.fp_trunc %b {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf4E2M1FN>
  return %q8, %p8, %f, %n8, %b4 : tensor<128xf8E4M3FN>, tensor<128xf8E5M2>, tensor<128xf32>, tensor<128xf8E4M3FN>, tensor<128xf4E2M1FN>
}
