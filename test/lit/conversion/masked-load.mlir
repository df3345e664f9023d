// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// A masked load is a branch around the load (scf.if lowered to cf and then
// LLVM): the taken side loads a vector, the other builds `other`; they meet
// in a block argument.
// CHECK-LABEL: llvm.func @masked
// CHECK: %[[NEG:.*]] = llvm.mlir.constant(-1.000000e+00 : f32)
// CHECK-NOT: llvm.load
// CHECK: llvm.cond_br %{{.*}}, ^[[LOAD:bb[0-9]+]], ^[[SKIP:bb[0-9]+]]
// CHECK: ^[[LOAD]]:
// CHECK-NEXT: %[[V:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NEXT: llvm.br ^[[JOIN:bb[0-9]+]](%[[V]] : vector<4xf32>)
// CHECK: ^[[SKIP]]:
// CHECK: llvm.insertelement %[[NEG]], %{{.*}} : vector<4xf32>
// CHECK: llvm.br ^[[JOIN]](%{{.*}} : vector<4xf32>)
// CHECK: ^[[JOIN]](%{{.*}}: vector<4xf32>):
// CHECK-NOT: scf.
// CHECK-NOT: cf.
func.func @masked(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %y: !tile.ptr<f32> {tile.alignment = 16 : i64}, %n: i32 {tile.divisibility = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %bound = tile.splat %n : i32 -> tensor<512xi32>
  %m = arith.cmpi slt, %r, %bound : tensor<512xi32>
  %other = arith.constant dense<-1.0> : tensor<512xf32>
  %v = tile.load %a mask %m other %other : tensor<512x!tile.ptr<f32>>, tensor<512xi1> -> tensor<512xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %b = tile.addptr %q, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %b, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
