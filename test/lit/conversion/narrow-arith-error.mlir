// RUN: not megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm 2>&1 | FileCheck %s

// The frontend rejects arithmetic on 8- and 4-bit floats; IR that reaches the
// lowering with it anyway is refused at the op, with a hint, not lowered to
// arithmetic on the bytes that hold the values.
// CHECK: error: arithmetic on 'f8E4M3FN' is not supported
// CHECK: note: hint: convert to f32 first: (x as f32)
func.func @narrow(%x: !tile.ptr<f8E4M3FN> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<512x!tile.ptr<f8E4M3FN>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f8E4M3FN>> -> tensor<512xf8E4M3FN>
  %t = arith.addf %v, %v : tensor<512xf8E4M3FN>
  tile.store %a, %t : tensor<512x!tile.ptr<f8E4M3FN>>, tensor<512xf8E4M3FN>
  return
}
