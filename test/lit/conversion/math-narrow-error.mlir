// RUN: not megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm 2>&1 | FileCheck %s

// The frontend rejects transcendentals of f16 and bf16 (frontend/math-types.mega);
// IR that reaches the lowering with one anyway gets the same kind of message,
// naming the operation, not a crash or a libdevice call of the wrong type.
// CHECK: error: tanh needs f32 or f64, got 'bf16'
// CHECK: note: hint: compute in f32, e.g. tanh(x as f32)
func.func @narrow(%x: !tile.ptr<bf16> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<bf16> -> tensor<512x!tile.ptr<bf16>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<bf16>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<bf16>> -> tensor<512xbf16>
  %t = math.tanh %v : tensor<512xbf16>
  tile.store %a, %t : tensor<512x!tile.ptr<bf16>>, tensor<512xbf16>
  return
}
