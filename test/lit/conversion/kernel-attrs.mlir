// RUN: megac-opt %s -tile-assign-layouts -convert-tile-to-llvm | FileCheck %s

// Launch settings on the tile function become NVVM kernel attributes:
// maxntid = 32 * tile.num_warps; maxnreg and minctasm only when given.

// CHECK-LABEL: llvm.func @all_settings
// CHECK-SAME: llvm.align = 16 : i64
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxnreg = 128 : i32
// CHECK-SAME: nvvm.maxntid = array<i32: 256, 1, 1>
// CHECK-SAME: nvvm.minctasm = 2 : i32
func.func @all_settings(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 8 : i32, tile.maxnreg = 128 : i32, tile.min_ctas_per_sm = 2 : i32} {
  return
}

// CHECK-LABEL: llvm.func @defaults
// CHECK-NOT: nvvm.maxnreg
// CHECK-NOT: nvvm.minctasm
// CHECK-SAME: nvvm.kernel
// CHECK-SAME: nvvm.maxntid = array<i32: 128, 1, 1>
// CHECK-NOT: nvvm.maxnreg
// CHECK-NOT: nvvm.minctasm
// CHECK: llvm.return
func.func @defaults(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  return
}

// Functions without tile.kernel are not kernels and are left alone.
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT: nvvm.kernel
func.func @not_a_kernel() {
  return
}
