// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s
// RUN: env MEGAC_DIRECT_TO_LLVM=none megac-opt %s -convert-tile-to-llvm | FileCheck %s

// arith, math and cf go to the LLVM dialect in one walk (DirectToLLVM.h);
// what it does not know it leaves to MLIR's dialect conversion, and the two
// give the same IR: a predicate spelled otherwise in LLVM ("false"), an exact
// division, a fold (x * 1), fast-math flags kept, default ones left out.
// CHECK-LABEL: llvm.func @mixed
// CHECK: %[[NEVER:.*]] = llvm.fcmp "_false" %arg1, %arg2 : f32
// CHECK-NEXT: %[[LT:.*]] = llvm.fcmp "olt" %arg1, %arg2 : f32
// CHECK-NEXT: %[[EITHER:.*]] = llvm.or %[[NEVER]], %[[LT]] : i1
// CHECK-NEXT: %[[Q:.*]] = llvm.udiv exact %arg3, %arg3 : i32
// CHECK-NEXT: %[[S:.*]] = llvm.fadd %arg1, %arg2 {fastmathFlags = #llvm.fastmath<nnan>} : f32
// CHECK-NEXT: %[[T:.*]] = llvm.select %[[EITHER]], %[[S]], %arg1 : i1, f32
// CHECK-NEXT: %[[U:.*]] = llvm.sitofp %[[Q]] : i32 to f32
// CHECK-NEXT: llvm.fadd %[[T]], %[[U]] : f32
// CHECK-NOT: arith.
func.func @mixed(%p: !tile.ptr<f32> {tile.alignment = 16 : i64}, %a: f32, %b: f32, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %never = arith.cmpf false, %a, %b : f32
  %lt = arith.cmpf olt, %a, %b : f32
  %either = arith.ori %never, %lt : i1
  %q = arith.divui %n, %n exact : i32
  %one = arith.constant 1 : i32
  %m = arith.muli %q, %one : i32
  %s = arith.addf %a, %b fastmath<nnan> : f32
  %t = arith.select %either, %s, %a : f32
  %u = arith.sitofp %m : i32 to f32
  %v = arith.addf %t, %u : f32
  tile.store %p, %v : !tile.ptr<f32>, f32
  return
}
