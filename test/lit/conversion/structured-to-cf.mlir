// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s
// RUN: env MEGAC_DIRECT_TO_LLVM=none megac-opt %s -convert-tile-to-llvm | FileCheck %s

// scf.for and scf.if become blocks and branches in one walk
// (StructuredToCF.h), the blocks MLIR's SCF-to-ControlFlow pass builds, in
// its order (MEGAC_DIRECT_TO_LLVM=none runs the pass): the loop's condition
// block takes the induction variable and the carried value, the branch with
// a result continues in a block that takes it, the body's last block steps
// the induction variable and branches back.
// CHECK-LABEL: llvm.func @loops
// CHECK: llvm.br ^bb1(%[[ZERO_I:.*]], %[[ZERO_F:.*]] : i32, f32)
// CHECK-NEXT: ^bb1(%[[I:.*]]: i32, %[[ACC:.*]]: f32):  // 2 preds: ^bb0, ^bb6
// CHECK-NEXT: %[[IN:.*]] = llvm.icmp "slt" %[[I]], %arg1 : i32
// CHECK-NEXT: llvm.cond_br %[[IN]], ^bb2, ^bb7
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK: llvm.cond_br %{{.*}}, ^bb3, ^bb4
// CHECK-NEXT: ^bb3:  // pred: ^bb2
// CHECK-NEXT: %[[X:.*]] = llvm.fadd %[[ACC]], %arg2 : f32
// CHECK-NEXT: llvm.br ^bb5(%[[X]] : f32)
// CHECK-NEXT: ^bb4:  // pred: ^bb2
// CHECK-NEXT: %[[Y:.*]] = llvm.fsub %[[ACC]], %arg2 : f32
// CHECK-NEXT: llvm.br ^bb5(%[[Y]] : f32)
// CHECK-NEXT: ^bb5(%[[NEXT:.*]]: f32):  // 2 preds: ^bb3, ^bb4
// CHECK-NEXT: llvm.br ^bb6
// CHECK-NEXT: ^bb6:  // pred: ^bb5
// CHECK-NEXT: %[[STEP:.*]] = llvm.add %[[I]], %{{.*}} : i32
// CHECK-NEXT: llvm.br ^bb1(%[[STEP]], %[[NEXT]] : i32, f32)
// CHECK-NEXT: ^bb7:  // pred: ^bb1
// CHECK-NEXT: %[[BIG:.*]] = llvm.fcmp "ogt" %[[ACC]], %arg2 : f32
// CHECK-NEXT: llvm.cond_br %[[BIG]], ^bb8, ^bb9
// CHECK: ^bb10:  // 2 preds: ^bb8, ^bb9
// CHECK-NEXT: llvm.return
// CHECK-NOT: scf.
func.func @loops(%p: !tile.ptr<f32> {tile.alignment = 16 : i64}, %n: i32, %a: f32) attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) : i32 {
    %odd = arith.andi %i, %c1 : i32
    %isodd = arith.cmpi ne, %odd, %c0 : i32
    %next = scf.if %isodd -> (f32) {
      %x = arith.addf %acc, %a : f32
      scf.yield %x : f32
    } else {
      %y = arith.subf %acc, %a : f32
      scf.yield %y : f32
    }
    scf.yield %next : f32
  }
  %big = arith.cmpf ogt, %sum, %a : f32
  scf.if %big {
    tile.store %p, %sum : !tile.ptr<f32>, f32
  }
  return
}
