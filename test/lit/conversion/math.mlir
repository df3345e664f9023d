// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// Transcendentals call libdevice (linked at PTX emission), one call per
// register; fma and abs stay LLVM intrinsics.
// CHECK-LABEL: llvm.func @math
// CHECK-COUNT-4: llvm.call @__nv_expf(%{{.*}}) : (f32) -> f32
// CHECK-COUNT-4: llvm.call @__nv_rsqrtf(%{{.*}}) : (f32) -> f32
// CHECK-COUNT-4: llvm.intr.fabs
// CHECK-NOT: llvm.call
// CHECK: llvm.return
// CHECK-DAG: llvm.func @__nv_expf(f32) -> f32
// CHECK-DAG: llvm.func @__nv_rsqrtf(f32) -> f32
func.func @math(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %e = math.exp %v : tensor<512xf32>
  %s = math.rsqrt %e : tensor<512xf32>
  %b = math.absf %s : tensor<512xf32>
  tile.store %a, %b : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
