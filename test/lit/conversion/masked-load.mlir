// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// A masked load with a mask uniform over the thread's vector is one
// predicated PTX load (inline assembly, kept in program order): the other
// values are the outputs' initial values (tied operands), so a lane whose
// predicate is off keeps them. No branch: the kernel stays one basic block.
// CHECK-LABEL: llvm.func @masked
// CHECK: %[[NEG:.*]] = llvm.mlir.constant(-1.000000e+00 : f32)
// CHECK-NOT: llvm.cond_br
// CHECK: %[[OTHER:.*]] = llvm.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK: %[[R:.*]] = llvm.inline_asm has_side_effects asm_dialect = att "@$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4];", "=r,=r,=r,=r,l,b,0,1,2,3" %{{.*}}, %[[MASK:.*]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!llvm.ptr<1>, i1, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-4: llvm.extractvalue %[[R]]
// CHECK: llvm.bitcast %{{.*}} : vector<4xi32> to vector<4xf32>
// CHECK-NOT: llvm.cond_br
// CHECK-NOT: scf.
// CHECK-NOT: cf.
// CHECK: llvm.return
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
