// RUN: megac-opt %s | megac-opt | FileCheck %s

// The FP8 schemes of tile.quantize / tile.dequantize survive print -> parse -> print.

// CHECK-LABEL: func.func @fp8
func.func @fp8(%x: tensor<8x256xbf16>, %y: tensor<8x128xf32>, %s: f32) {
  // CHECK: tile.quantize "fp8" %{{.*}} scale %{{.*}} : tensor<8x128xf32> -> tensor<8x128xf8E5M2>
  %q = tile.quantize "fp8" %y scale %s : tensor<8x128xf32> -> tensor<8x128xf8E5M2>
  // CHECK: tile.dequantize "fp8" %{{.*}}, %{{.*}} : tensor<8x128xf8E5M2>, f32 -> tensor<8x128xbf16>
  %d = tile.dequantize "fp8" %q, %s : tensor<8x128xf8E5M2>, f32 -> tensor<8x128xbf16>
  // CHECK: tile.quantize "fp8_group" %{{.*}} : tensor<8x256xbf16> -> tensor<8x256xf8E4M3FN>, tensor<8x2xf32>
  %g, %gs = tile.quantize "fp8_group" %x : tensor<8x256xbf16> -> tensor<8x256xf8E4M3FN>, tensor<8x2xf32>
  // CHECK: tile.quantize "fp8_group_ue8m0" %{{.*}} : tensor<8x128xf32> -> tensor<8x128xf8E4M3FN>, tensor<8x1xf32>
  %u, %us = tile.quantize "fp8_group_ue8m0" %y : tensor<8x128xf32> -> tensor<8x128xf8E4M3FN>, tensor<8x1xf32>
  // CHECK: tile.dequantize "fp8_group" %{{.*}}, %{{.*}} : tensor<8x256xf8E4M3FN>, tensor<8x2xf32> -> tensor<8x256xf32>
  %b = tile.dequantize "fp8_group" %g, %gs : tensor<8x256xf8E4M3FN>, tensor<8x2xf32> -> tensor<8x256xf32>
  return
}
