// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm=target=sm_90a | FileCheck %s

// f32 -> f8E4M3FN converts two registers at a time with the hardware
// rn.satfinite conversion; the pair comes back as an i16 split into bytes,
// and a store of those bytes takes the i16 pairs whole.
// CHECK-LABEL: llvm.func @to_fp8
// CHECK-COUNT-2: nvvm.convert.f32x2.to.f8x2 %{{.*}}, %{{.*}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK-NOT: nvvm.convert
// CHECK: llvm.store %{{.*}} {alignment = 4 : i64} : vector<2xi16>, !llvm.ptr<1>
func.func @to_fp8(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %y: !tile.ptr<f8E4M3FN> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %f8 = arith.truncf %v : tensor<512xf32> to tensor<512xf8E4M3FN>
  %q = tile.splat %y : !tile.ptr<f8E4M3FN> -> tensor<512x!tile.ptr<f8E4M3FN>>
  %b = tile.addptr %q, %r : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xi32>
  tile.store %b, %f8 : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xf8E4M3FN>
  return
}
