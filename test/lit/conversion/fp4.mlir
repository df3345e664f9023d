// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm=target=sm_100a | FileCheck %s --check-prefix=HW
// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm=target=sm_90a | FileCheck %s --check-prefix=SW

// f32 -> E2M1 (rne, satfinite). sm_100a has cvt.rn.satfinite.e2m1x2.f32:
// one conversion per register pair, each nibble in its own i8.
// HW-LABEL: llvm.func @to_fp4
// HW-COUNT-2: nvvm.convert.f32x2.to.f4x2 %{{.*}}, %{{.*}} : i8(f4E2M1FN)
// HW-NOT: nvvm.convert
// HW-NOT: llvm.fcmp
// HW: llvm.return

// sm_90a has no FP4 conversion: the exact software rounding (Tile/Quant/E2M1.h)
// saturates a = min(|x|, 6) (NaN -> 6), builds the magic 1.5 * 2^(e + 22) + 2e
// from a's biased exponent with one integer multiply-add (no compares, no
// selects; a mad.lo.s32 in inline asm, out of the way of LLVM's straight-line
// strength reduction, which took a third of nvfp4_quant's compile), and rounds with one f32 add that leaves the code in the low 3
// bits; then one lop3 merges those 3 bits with x >> 28 (the sign in bit 3).
// SW-LABEL: llvm.func @to_fp4
// SW-NOT: nvvm.convert
// SW: %[[AX:.*]] = llvm.intr.fabs(%[[X:.*]]) : (f32) -> f32
// SW: %[[A:.*]] = llvm.intr.minnum(%[[AX]], %{{.*}}) : (f32, f32) -> f32
// SW: %[[AB:.*]] = llvm.bitcast %[[A]] : f32 to i32
// SW-NEXT: %[[E:.*]] = llvm.lshr %[[AB]], %{{.*}} : i32
// SW: %[[K:.*]] = llvm.intr.smax(%[[E]], %{{.*}}) : (i32, i32) -> i32
// SW-NEXT: %[[MB:.*]] = llvm.inline_asm asm_dialect = att "mad.lo.s32 $0, $1, 8388610, 188743426;", "=r,r" %[[K]] : (i32) -> i32
// SW-NEXT: %[[M:.*]] = llvm.bitcast %[[MB]] : i32 to f32
// SW-NEXT: %[[R:.*]] = llvm.fadd %[[A]], %[[M]] : f32
// SW: llvm.bitcast %[[X]] : f32 to i32
// SW: %[[TOP:.*]] = llvm.lshr %{{.*}}, %{{.*}} : i32
// SW: %[[RB:.*]] = llvm.bitcast %[[R]] : f32 to i32
// SW: %[[C:.*]] = llvm.inline_asm asm_dialect = att "lop3.b32 $0, $1, $2, $3, 0xE2;", "=r,r,n,r" %[[RB]], %{{.*}}, %[[TOP]] : (i32, i32, i32) -> i32
// SW: llvm.trunc %[[C]] : i32 to i8
// SW-NOT: llvm.fcmp
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
