// RUN: megac-opt %s -split-input-file -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// A loop-carried 512 x f32 tile is 4 registers per thread: the loop header
// block carries the induction variable and those 4 registers.
// CHECK-LABEL: llvm.func @loop
// CHECK: llvm.br ^[[HEAD:bb[0-9]+]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32, f32, f32, f32, f32)
// CHECK: ^[[HEAD]](%[[I:.*]]: i32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %[[C:.*]] = llvm.icmp "slt" %[[I]], %{{.*}} : i32
// CHECK: llvm.cond_br %[[C]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// CHECK: ^[[BODY]]:
// CHECK-COUNT-4: llvm.fadd
// CHECK: llvm.br ^[[HEAD]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32, f32, f32, f32, f32)
// CHECK: ^[[EXIT]]:
// CHECK: llvm.store %{{.*}} : vector<4xf32>, !llvm.ptr<1>
func.func @loop(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %zero = arith.constant dense<0.0> : tensor<512xf32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %acc = scf.for %i = %c0 to %n step %c1 iter_args(%t = %zero) -> (tensor<512xf32>) : i32 {
    %s = arith.addf %t, %v : tensor<512xf32>
    scf.yield %s : tensor<512xf32>
  }
  tile.store %a, %acc : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// -----

// scf.if yielding a tile: both sides yield their 4 registers into the join
// block.
// CHECK-LABEL: llvm.func @branch
// CHECK: llvm.cond_br %{{.*}}, ^[[THEN:bb[0-9]+]], ^[[ELSE:bb[0-9]+]]
// CHECK: ^[[THEN]]:
// CHECK-COUNT-4: llvm.fmul
// CHECK: llvm.br ^[[JOIN:bb[0-9]+]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32)
// CHECK: ^[[ELSE]]:
// CHECK: llvm.br ^[[JOIN]](%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32, f32)
// CHECK: ^[[JOIN]](%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: llvm.store
func.func @branch(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %flag: i1) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %w = scf.if %flag -> (tensor<512xf32>) {
    %d = arith.mulf %v, %v : tensor<512xf32>
    scf.yield %d : tensor<512xf32>
  } else {
    scf.yield %v : tensor<512xf32>
  }
  tile.store %a, %w : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
