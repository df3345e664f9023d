// RUN: megac-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the tile ops and of #tile.blocked.

func.func @program_id_axis() {
  // expected-error @+1 {{axis must be 0, 1 or 2, got 3}}
  %0 = tile.program_id 3 : i32
  return
}

// -----

func.func @num_programs_axis() {
  // expected-error @+1 {{axis must be 0, 1 or 2, got 7}}
  %0 = tile.num_programs 7 : i32
  return
}

// -----

func.func @arange_not_i32() {
  // expected-error @+1 {{result must be a 1-D tile of i32, got 'tensor<128xi64>'}}
  %0 = tile.arange 0, 128 : tensor<128xi64>
  return
}

// -----

func.func @arange_count() {
  // expected-error @+1 {{range [0, 64) has 64 elements but the tile has 128}}
  %0 = tile.arange 0, 64 : tensor<128xi32>
  return
}

// -----

func.func @arange_not_pow2() {
  // expected-error @+1 {{tile dimensions must be powers of two, got 'tensor<96xi32>'}}
  %0 = tile.arange 0, 96 : tensor<96xi32>
  return
}

// -----

func.func @splat_rank(%x: f32) {
  // expected-error @+1 {{tiles have 1 to 3 dimensions, got 'tensor<2x2x2x2xf32>'}}
  %0 = tile.splat %x : f32 -> tensor<2x2x2x2xf32>
  return
}

// -----

func.func @splat_type(%x: f32) {
  // expected-error @+1 {{splat of 'f32' cannot make 'tensor<128xf16>'}}
  %0 = tile.splat %x : f32 -> tensor<128xf16>
  return
}

// -----

func.func @broadcast_rank(%x: tensor<128xf32>) {
  // expected-error @+1 {{cannot broadcast 'tensor<128xf32>' to 'tensor<128x4xf32>'}}
  %0 = tile.broadcast %x : tensor<128xf32> -> tensor<128x4xf32>
  return
}

// -----

func.func @broadcast_dim(%x: tensor<2x4xf32>) {
  // expected-error @+1 {{dimension 0 is neither equal nor 1}}
  %0 = tile.broadcast %x : tensor<2x4xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @expand_dims_axis(%x: tensor<128xf32>) {
  // expected-error @+1 {{axis 2 out of range for 'tensor<128xf32>'}}
  %0 = tile.expand_dims %x {axis = 2 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  return
}

// -----

func.func @expand_dims_result(%x: tensor<128xf32>) {
  // expected-error @+1 {{expanding 'tensor<128xf32>' at axis 0 cannot give 'tensor<128x1xf32>'}}
  %0 = tile.expand_dims %x {axis = 0 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  return
}

// -----

func.func @addptr_not_pointer(%x: i64, %o: i32) {
  // expected-error @+1 {{expects a pointer or a tile of pointers, got 'i64'}}
  %0 = tile.addptr %x, %o : i64, i32
  return
}

// -----

func.func @ptr_cast_tile(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{operand #0 must be pointer to global memory}}
  %0 = tile.ptr_cast %p : tensor<128x!tile.ptr<f32>> -> !tile.ptr<i32>
  return
}

// -----

func.func @addptr_offset_float(%p: !tile.ptr<f32>, %o: f32) {
  // expected-error @+1 {{offset must be an integer, got 'f32'}}
  %0 = tile.addptr %p, %o : !tile.ptr<f32>, f32
  return
}

// -----

func.func @addptr_shapes(%p: tensor<128x!tile.ptr<f32>>, %o: tensor<64xi32>) {
  // expected-error @+1 {{have different shapes}}
  %0 = tile.addptr %p, %o : tensor<128x!tile.ptr<f32>>, tensor<64xi32>
  return
}

// -----

func.func @load_not_pointer(%x: tensor<128xi64>) {
  // expected-error @+1 {{expects a pointer or a tile of pointers, got 'tensor<128xi64>'}}
  %0 = tile.load %x : tensor<128xi64> -> tensor<128xi64>
  return
}

// -----

func.func @load_result(%p: tensor<128x!tile.ptr<f32>>) {
  // expected-error @+1 {{loading through 'tensor<128x!tile.ptr<f32>>' cannot give 'tensor<128xf16>'}}
  %0 = tile.load %p : tensor<128x!tile.ptr<f32>> -> tensor<128xf16>
  return
}

// -----

func.func @load_mask_type(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<128xi32>) {
  // expected-error @+1 {{mask must be i1, got 'tensor<128xi32>'}}
  %0 = tile.load %p mask %m : tensor<128x!tile.ptr<f32>>, tensor<128xi32> -> tensor<128xf32>
  return
}

// -----

func.func @load_mask_shape(%p: tensor<128x!tile.ptr<f32>>, %m: tensor<64xi1>) {
  // expected-error @+1 {{mask shape 'tensor<64xi1>' does not match pointer shape 'tensor<128x!tile.ptr<f32>>'}}
  %0 = tile.load %p mask %m : tensor<128x!tile.ptr<f32>>, tensor<64xi1> -> tensor<128xf32>
  return
}

// -----

func.func @load_other(%p: !tile.ptr<f32>, %m: i1, %o: f16) {
  // expected-error @+1 {{other has the result type}}
  %0 = "tile.load"(%p, %m, %o) {operandSegmentSizes = array<i32: 1, 1, 1>} : (!tile.ptr<f32>, i1, f16) -> f32
  return
}

// -----

func.func @store_value(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xi32>) {
  // expected-error @+1 {{cannot store 'tensor<128xi32>' through 'tensor<128x!tile.ptr<f32>>'}}
  tile.store %p, %v : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  return
}

// -----

func.func @store_mask(%p: tensor<128x!tile.ptr<f32>>, %v: tensor<128xf32>, %m: i1) {
  // expected-error @+1 {{mask shape 'i1' does not match pointer shape}}
  tile.store %p, %v mask %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, i1
  return
}

// -----

func.func @atomic_kind(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{kind must be add or max, got 'min'}}
  %0 = tile.atomic_rmw "min" %p, %v : !tile.ptr<f32>, f32 -> f32
  return
}

// -----

func.func @atomic_not_pointer(%p: i64, %v: i64) {
  // expected-error @+1 {{expects a pointer or a tile of pointers, got 'i64'}}
  %0 = tile.atomic_rmw "add" %p, %v : i64, i64 -> i64
  return
}

// -----

func.func @atomic_type(%p: !tile.ptr<f16>, %v: f16) {
  // expected-error @+1 {{atomics support f32 and i32, got 'f16'}}
  %0 = tile.atomic_rmw "add" %p, %v : !tile.ptr<f16>, f16 -> f16
  return
}

// -----

func.func @atomic_max_float(%p: !tile.ptr<f32>, %v: f32) {
  // expected-error @+1 {{atomic max supports i32, got 'f32'}}
  %0 = tile.atomic_rmw "max" %p, %v : !tile.ptr<f32>, f32 -> f32
  return
}

// -----

func.func @atomic_value(%p: tensor<128x!tile.ptr<f32>>, %v: f32) {
  // expected-error @+1 {{value 'f32' does not match pointer 'tensor<128x!tile.ptr<f32>>'}}
  %0 = tile.atomic_rmw "add" %p, %v : tensor<128x!tile.ptr<f32>>, f32 -> f32
  return
}

// -----

func.func @atomic_mask(%p: !tile.ptr<i32>, %v: i32, %m: i8) {
  // expected-error @+1 {{mask must be i1, got 'i8'}}
  %0 = tile.atomic_rmw "add" %p, %v mask %m : !tile.ptr<i32>, i32, i8 -> i32
  return
}

// -----

func.func @reduce_kind(%x: tensor<128xf32>) {
  // expected-error @+1 {{kind must be sum, max, min, argmax or argmin, got 'prod'}}
  %0 = tile.reduce "prod" %x {axis = 0 : i32} : tensor<128xf32> -> f32
  return
}

// -----

func.func @reduce_axis(%x: tensor<128xf32>) {
  // expected-error @+1 {{axis 1 out of range for 'tensor<128xf32>'}}
  %0 = tile.reduce "sum" %x {axis = 1 : i32} : tensor<128xf32> -> f32
  return
}

// -----

func.func @reduce_scalar(%x: tensor<128xf32>) {
  // expected-error @+1 {{reducing 'tensor<128xf32>' must give 'i32', not 'f32'}}
  %0 = tile.reduce "argmax" %x {axis = 0 : i32} : tensor<128xf32> -> f32
  return
}

// -----

func.func @reduce_tile(%x: tensor<128x64xf32>) {
  // expected-error @+1 {{reducing 'tensor<128x64xf32>' along axis 0 cannot give 'tensor<128xf32>'}}
  %0 = tile.reduce "sum" %x {axis = 0 : i32} : tensor<128x64xf32> -> tensor<128xf32>
  return
}

// -----

func.func @convert_layout(%x: tensor<128xf32>) {
  // expected-error @+1 {{layout conversion cannot change shape or element type}}
  %0 = tile.convert_layout %x : tensor<128xf32> -> tensor<128xf16>
  return
}

// -----

func.func @fp_trunc_shape(%x: tensor<128xf32>) {
  // expected-error @+1 {{shape changes from 'tensor<128xf32>' to 'tensor<64xf8E4M3FN>'}}
  %0 = tile.fp_trunc %x {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<64xf8E4M3FN>
  return
}

// -----

func.func @fp_trunc_source(%x: f64) {
  // expected-error @+1 {{source must be f32, f16 or bf16, got 'f64'}}
  %0 = tile.fp_trunc %x {rounding = "rne", saturate = true} : f64 -> f8E4M3FN
  return
}

// -----

func.func @fp_trunc_result(%x: f32) {
  // expected-error @+1 {{result must be an 8- or 4-bit float, got 'f16'}}
  %0 = tile.fp_trunc %x {rounding = "rne", saturate = true} : f32 -> f16
  return
}

// -----

func.func @fp_trunc_rounding(%x: f32) {
  // expected-error @+1 {{only round-to-nearest-even (rne) is supported for 'f8E5M2', got 'rz'}}
  %0 = tile.fp_trunc %x {rounding = "rz", saturate = true} : f32 -> f8E5M2
  return
}

// -----

// expected-error @+1 {{invalid #tile.blocked layout: spt, tpw, wpc and order must have the same non-zero length}}
func.func @blocked_lengths(%x: tensor<128xf32, #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0, 1]>>) {
  return
}

// -----

// expected-error @+1 {{invalid #tile.blocked layout: every spt, tpw and wpc entry must be a power of two}}
func.func @blocked_pow2(%x: tensor<128xf32, #tile.blocked<spt = [3], tpw = [32], wpc = [4], order = [0]>>) {
  return
}

// -----

// expected-error @+1 {{invalid #tile.blocked layout: tpw must multiply to 32 (lanes in a warp), got 16}}
func.func @blocked_lanes(%x: tensor<128xf32, #tile.blocked<spt = [4], tpw = [16], wpc = [4], order = [0]>>) {
  return
}

// -----

// expected-error @+1 {{invalid #tile.blocked layout: order must be a permutation of the dimensions}}
func.func @blocked_order(%x: tensor<64x64xf32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 1]>>) {
  return
}

// -----

func.func @fp8_values_type(%x: tensor<128xf32>, %s: f32) {
  // expected-error @+1 {{FP8 values must be f8E4M3FN or f8E5M2, got 'tensor<128xi8>'}}
  %q = tile.quantize "fp8" %x scale %s : tensor<128xf32> -> tensor<128xi8>
  return
}

// -----

func.func @fp8_needs_scale(%x: tensor<128xf32>) {
  // expected-error @+1 {{fp8 needs an f32 scale operand (the dequantization scale)}}
  %q = tile.quantize "fp8" %x : tensor<128xf32> -> tensor<128xf8E4M3FN>
  return
}

// -----

func.func @fp8_no_scales(%x: tensor<128xf32>, %s: f32) {
  // expected-error @+1 {{fp8 has no scales result: its scale is an operand}}
  %q, %sc = tile.quantize "fp8" %x scale %s : tensor<128xf32> -> tensor<128xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @fp8_shape(%x: tensor<128xf32>, %s: f32) {
  // expected-error @+1 {{FP8 values 'tensor<64xf8E4M3FN>' must have the shape of 'tensor<128xf32>'}}
  %q = tile.quantize "fp8" %x scale %s : tensor<128xf32> -> tensor<64xf8E4M3FN>
  return
}

// -----

func.func @fp8_group_takes_no_scale(%x: tensor<128xf32>, %s: f32) {
  // expected-error @+1 {{fp8_group computes its scales: it takes no scale operand}}
  %q, %sc = tile.quantize "fp8_group" %x scale %s : tensor<128xf32> -> tensor<128xf8E4M3FN>, tensor<1xf32>
  return
}

// -----

func.func @fp8_group_needs_scales(%x: tensor<128xf32>) {
  // expected-error @+1 {{fp8_group_ue8m0 needs a scales result}}
  %q = tile.quantize "fp8_group_ue8m0" %x : tensor<128xf32> -> tensor<128xf8E4M3FN>
  return
}

// -----

func.func @fp8_group_size(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{the last dimension (64) must be a multiple of the group size 128}}
  %q, %sc = tile.quantize "fp8_group" %x : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x1xf32>
  return
}

// -----

func.func @fp8_group_scales(%x: tensor<4x256xf32>) {
  // expected-error @+1 {{scales must be 'tensor<4x2xf32>', got 'tensor<4x2xf8E8M0FNU>'}}
  %q, %sc = tile.quantize "fp8_group" %x : tensor<4x256xf32> -> tensor<4x256xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
  return
}

// -----

func.func @fp8_group_rank(%x: tensor<2x4x256xf32>) {
  // expected-error @+1 {{several groups per row need a tile of rank 1 or 2, got 'tensor<2x4x256xf32>'}}
  %q, %sc = tile.quantize "fp8_group" %x : tensor<2x4x256xf32> -> tensor<2x4x256xf8E4M3FN>, tensor<2x4x2xf32>
  return
}

// -----

func.func @fp8_dequantize_type(%q: tensor<128xf8E4M3FN>, %s: f32) {
  // expected-error @+1 {{FP8 dequantizes to f32 or bf16, got 'tensor<128xf16>'}}
  %d = tile.dequantize "fp8" %q, %s : tensor<128xf8E4M3FN>, f32 -> tensor<128xf16>
  return
}

// -----

func.func @fp8_dequantize_scale(%q: tensor<128xf8E4M3FN>, %s: tensor<1xf32>) {
  // expected-error @+1 {{fp8 dequantizes with an f32 scalar scale, got 'tensor<1xf32>'}}
  %d = tile.dequantize "fp8" %q, %s : tensor<128xf8E4M3FN>, tensor<1xf32> -> tensor<128xf32>
  return
}

// -----

func.func @fp8_dequantize_global_scale(%q: tensor<128xf8E4M3FN>, %s: tensor<1xf32>, %g: f32) {
  // expected-error @+1 {{fp8_group takes no global scale}}
  %d = tile.dequantize "fp8_group" %q, %s scale %g : tensor<128xf8E4M3FN>, tensor<1xf32> -> tensor<128xf32>
  return
}

// -----

func.func @quantize_scheme(%x: tensor<128xf32>) {
  // expected-error @+1 {{scheme must be nvfp4, mxfp4, fp8, fp8_group or fp8_group_ue8m0, got 'int8'}}
  %q, %sc = tile.quantize "int8" %x : tensor<128xf32> -> tensor<64xi8>, tensor<4xf32>
  return
}

// -----

func.func @nvfp4_needs_global_scale(%x: tensor<4x64xf32>) {
  // expected-error @+1 {{nvfp4 needs an f32 global scale}}
  %q, %sc = tile.quantize "nvfp4" %x : tensor<4x64xf32> -> tensor<4x32xi8>, tensor<4x4xf8E4M3FN>
  return
}

// -----

func.func @mxfp4_no_global_scale(%x: tensor<4x64xf32>, %g: f32) {
  // expected-error @+1 {{mxfp4 takes no global scale}}
  %q, %sc = tile.quantize "mxfp4" %x scale %g : tensor<4x64xf32> -> tensor<4x32xi8>, tensor<4x2xf8E8M0FNU>
  return
}

// -----

func.func @nvfp4_dequantize_type(%q: tensor<4x32xi8>, %s: tensor<4x4xf8E4M3FN>, %g: f32) {
  // expected-error @+1 {{dequantizes to f32, got 'tensor<4x64xbf16>'}}
  %d = tile.dequantize "nvfp4" %q, %s scale %g : tensor<4x32xi8>, tensor<4x4xf8E4M3FN> -> tensor<4x64xbf16>
  return
}

// -----

func.func @mxfp4_dequantize_scales(%q: tensor<4x32xi8>, %s: f32) {
  // expected-error @+1 {{mxfp4 scales must be a tile, got 'f32'}}
  %d = tile.dequantize "mxfp4" %q, %s : tensor<4x32xi8>, f32 -> tensor<4x64xf32>
  return
}

// -----

// The wait is a no-op unless the runtime launches the kernel early, which it
// does only for kernels marked so.
func.func @wait_prior_kernel_not_early() {
  // expected-error @+1 {{needs a kernel with tile.early_launch}}
  tile.wait_prior_kernel
  return
}

// -----

func.func @launch_dependents_not_early() {
  // expected-error @+1 {{needs a kernel with tile.early_launch}}
  tile.launch_dependents
  return
}
