// RUN: megac-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of tile.dot and tile.trans.

func.func @dot_f32_operands(%a: tensor<16x16xf32>, %c: tensor<16x8xf32>, %b: tensor<16x8xf32>) {
  // expected-error @+1 {{operands must be bf16 or f16, got 'tensor<16x16xf32>'}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xf32>, tensor<16x8xf32>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_rank(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8x2xf32>) {
  // expected-error @+1 {{operands must be 2-D tiles}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8x2xf32> -> tensor<16x8x2xf32>
  return
}

// -----

func.func @dot_mixed(%a: tensor<16x16xbf16>, %b: tensor<16x8xf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{operands must have one element type}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x8xf16>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_acc_type(%a: tensor<16x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xbf16>) {
  // expected-error @+1 {{accumulator must be f32}}
  %0 = tile.dot %a, %b, %c : tensor<16x16xbf16>, tensor<16x8xbf16>, tensor<16x8xbf16> -> tensor<16x8xbf16>
  return
}

// -----

func.func @dot_shapes(%a: tensor<16x32xbf16>, %b: tensor<16x8xbf16>, %c: tensor<16x8xf32>) {
  // expected-error @+1 {{shapes do not compose}}
  %0 = tile.dot %a, %b, %c : tensor<16x32xbf16>, tensor<16x8xbf16>, tensor<16x8xf32> -> tensor<16x8xf32>
  return
}

// -----

func.func @dot_blocks(%a: tensor<8x16xbf16>, %b: tensor<16x8xbf16>, %c: tensor<8x8xf32>) {
  // expected-error @+1 {{needs M a multiple of 16, N of 8 and K of 16, got M = 8, N = 8, K = 16}}
  %0 = tile.dot %a, %b, %c : tensor<8x16xbf16>, tensor<16x8xbf16>, tensor<8x8xf32> -> tensor<8x8xf32>
  return
}

// -----

#B = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
func.func @dot_acc_layout(%a: tensor<64x16xbf16, #B>, %b: tensor<16x32xbf16, #B>, %c: tensor<64x32xf32, #B>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // expected-error @+1 {{accumulator must be in a dot layout}}
  %0 = tile.dot %a, %b, %c : tensor<64x16xbf16, #B>, tensor<16x32xbf16, #B>, tensor<64x32xf32, #B> -> tensor<64x32xf32, #B>
  return
}

// -----

func.func @trans_rank(%a: tensor<16xbf16>) {
  // expected-error @+1 {{transposes a 2-D tile}}
  %0 = tile.trans %a : tensor<16xbf16> -> tensor<16xbf16>
  return
}

// -----

func.func @trans_shape(%a: tensor<16x8xbf16>) {
  // expected-error @+1 {{transposes a 2-D tile}}
  %0 = tile.trans %a : tensor<16x8xbf16> -> tensor<16x8xbf16>
  return
}

// -----

#R = #tile.blocked<spt = [1, 4], tpw = [4, 8], wpc = [4, 1], order = [1, 0]>
func.func @trans_layout(%a: tensor<16x8xbf16, #R>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // expected-error @+1 {{result layout must be the source layout transposed}}
  %0 = tile.trans %a : tensor<16x8xbf16, #R> -> tensor<8x16xbf16, #R>
  return
}
