// RUN: megac-opt %s -split-input-file -tile-fold-constant-masks | FileCheck %s

// `FULL == 1 || offs < n` with FULL = 1: the load and the store lose the mask
// (and the load its `other`), and the comparison is left dead and erased.
// CHECK-LABEL: func.func @full_or
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.ori
// CHECK: %[[V:.*]] = tile.load %{{.*}} : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
// CHECK: tile.store %{{.*}}, %[[V]] : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
// CHECK-NEXT: return
func.func @full_or(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %true = arith.constant true
  %t = tile.splat %true : i1 -> tensor<128xi1>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %c = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %m = arith.ori %c, %t : tensor<128xi1>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<128xf32>
  %v = tile.load %a mask %m other %z : tensor<128x!tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  tile.store %a, %v mask %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  return
}

// -----

// `&&` with true keeps the other operand (the mask stays); `where` with a
// constant condition picks its operand.
// CHECK-LABEL: func.func @and_true_where
// CHECK: %[[C:.*]] = arith.cmpi slt
// CHECK-NOT: arith.andi
// CHECK-NOT: arith.select
// CHECK: %[[V:.*]] = tile.load %{{.*}} mask %[[C]] other
// CHECK: tile.store %{{.*}}, %[[V]] mask %[[C]]
func.func @and_true_where(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %true = arith.constant dense<true> : tensor<128xi1>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %c = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %m = arith.andi %true, %c : tensor<128xi1>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<128xf32>
  %l = tile.load %a mask %m other %z : tensor<128x!tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  %v = arith.select %true, %l, %z : tensor<128xi1>, tensor<128xf32>
  tile.store %a, %v mask %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  return
}

// -----

// All false: `&&` with false is false, the load yields its `other`, and the
// store is erased.
// CHECK-LABEL: func.func @all_false
// CHECK-NOT: tile.load
// CHECK-NOT: tile.store
// CHECK: return
func.func @all_false(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %false = arith.constant false
  %f = tile.splat %false : i1 -> tensor<128xi1>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %c = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %m = arith.andi %c, %f : tensor<128xi1>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %zero = arith.constant 0.0 : f32
  %z = tile.splat %zero : f32 -> tensor<128xf32>
  %v = tile.load %a mask %m other %z : tensor<128x!tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %b = tile.addptr %q, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  tile.store %b, %v mask %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  return
}

// -----

// A mask that is not constant, and `||` with false, leave the accesses masked.
// CHECK-LABEL: func.func @not_constant
// CHECK: %[[C:.*]] = arith.cmpi slt
// CHECK-NOT: arith.ori
// CHECK: tile.load %{{.*}} mask %[[C]]
func.func @not_constant(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %false = arith.constant false
  %f = tile.splat %false : i1 -> tensor<128xi1>
  %ns = tile.splat %n : i32 -> tensor<128xi32>
  %c = arith.cmpi slt, %r, %ns : tensor<128xi32>
  %m = arith.ori %f, %c : tensor<128xi1>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %a mask %m : tensor<128x!tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  tile.store %a, %v : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// A streaming store keeps its hint when its all-true mask is dropped.
// CHECK-LABEL: func.func @streaming_true
// CHECK: tile.store %{{.*}}, %{{.*}} {streaming} : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
// CHECK-NEXT: return
func.func @streaming_true(%x: !tile.ptr<f32>, %v: tensor<128xf32>) attributes {tile.kernel} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %m = arith.constant dense<true> : tensor<128xi1>
  tile.store %a, %v mask %m {streaming} : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  return
}
