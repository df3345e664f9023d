// RUN: megac-opt %s -split-input-file -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// 16-byte-aligned base + arange: each thread's 4 contiguous f32 are one
// 16-byte vector load.
// CHECK-LABEL: llvm.func @aligned
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK-NOT: -> f32
// CHECK: llvm.return
func.func @aligned(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %y: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %b = tile.addptr %q, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %b, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// -----

// No alignment hint on the base: only 4-byte scalar loads are safe.
// CHECK-LABEL: llvm.func @unaligned
// CHECK-NOT: vector<
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<1> -> f32
// CHECK-NOT: llvm.load
// CHECK: llvm.return
func.func @unaligned(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>> -> tensor<512xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %b = tile.addptr %q, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %b, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// -----

// Masked by offs < n: with n a multiple of 16 the mask is constant over each
// thread's 4 elements and the load stays a vector (one predicated v4 load).
// CHECK-LABEL: llvm.func @masked_divisible
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$5 ld.global.v4.b32
// CHECK-NOT: ld.global.b32
func.func @masked_divisible(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %y: !tile.ptr<f32> {tile.alignment = 16 : i64}, %n: i32 {tile.divisibility = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %bound = tile.splat %n : i32 -> tensor<512xi32>
  %m = arith.cmpi slt, %r, %bound : tensor<512xi32>
  %v = tile.load %a mask %m : tensor<512x!tile.ptr<f32>>, tensor<512xi1> -> tensor<512xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %b = tile.addptr %q, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %b, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}

// -----

// Same, but n has no divisibility: the mask may flip inside a thread's
// elements. Vectors whose four lanes are all enabled still load as one
// vector; the others load element by element, each a predicated load under
// its own mask.
// CHECK-LABEL: llvm.func @masked_any_bound
// CHECK: %[[A1:.*]] = llvm.and %[[M0:.*]], %{{.*}} : i1
// CHECK: %[[A2:.*]] = llvm.and %[[A1]], %{{.*}} : i1
// CHECK: %[[ALL:.*]] = llvm.and %[[A2]], %{{.*}} : i1
// CHECK: llvm.cond_br %[[ALL]], ^[[VEC:bb[0-9]+]], ^[[EACH:bb[0-9]+]]
// CHECK: ^[[VEC]]:
// CHECK-NEXT: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: ^[[EACH]]:
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$2 ld.global.b32 $0, [$1];", "=r,l,b,0" %{{.*}}, %[[M0]], %{{.*}}
// CHECK-COUNT-3: llvm.inline_asm has_side_effects asm_dialect = att "@$2 ld.global.b32 $0, [$1];"
// CHECK: llvm.return
func.func @masked_any_bound(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %y: !tile.ptr<f32> {tile.alignment = 16 : i64}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %bound = tile.splat %n : i32 -> tensor<512xi32>
  %m = arith.cmpi slt, %r, %bound : tensor<512xi32>
  %v = tile.load %a mask %m : tensor<512x!tile.ptr<f32>>, tensor<512xi1> -> tensor<512xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %b = tile.addptr %q, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  tile.store %b, %v : tensor<512x!tile.ptr<f32>>, tensor<512xf32>
  return
}
