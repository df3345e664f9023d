// RUN: megac-opt %s -tile-assign-layouts -convert-tile-to-llvm | FileCheck %s

// A division by 2^k of a value known to be a multiple of 2^k (a parameter
// with tile.divisibility, as `K: i32 multiple_of 256` gives) is exact: one
// shift (arithmetic for divsi, logical for divui). A dividend not known to be
// a multiple, or a divisor that is not a power of two, keeps the division.
// CHECK-LABEL: llvm.func @exact
// CHECK: llvm.ashr %arg1, %{{.*}} : i32
// CHECK: llvm.lshr %arg1, %{{.*}} : i32
// CHECK: llvm.sdiv %arg2, %{{.*}} : i32
// CHECK: llvm.sdiv %arg1, %{{.*}} : i32
// CHECK: llvm.sdiv %arg1, %{{.*}} : i32
func.func @exact(%out: !tile.ptr<i32> {tile.alignment = 16 : i64}, %k: i32 {tile.divisibility = 256 : i64}, %n: i32)
    attributes {tile.kernel, tile.num_warps = 1 : i32} {
  %c16 = arith.constant 16 : i32
  %c512 = arith.constant 512 : i32
  %c3 = arith.constant 3 : i32
  %a = arith.divsi %k, %c16 : i32
  %b = arith.divui %k, %c16 : i32
  %c = arith.divsi %n, %c16 : i32
  %d = arith.divsi %k, %c512 : i32
  %e = arith.divsi %k, %c3 : i32
  %s0 = arith.addi %a, %b : i32
  %s1 = arith.addi %s0, %c : i32
  %s2 = arith.addi %s1, %d : i32
  %s3 = arith.addi %s2, %e : i32
  tile.store %out, %s3 : !tile.ptr<i32>, i32
  return
}
