// RUN: megac-opt %s -split-input-file -tile-hoist-scalar-loads | FileCheck %s

// A scale loaded where the quotient needs it moves up, with its address, to
// the top of the kernel: it is then in flight with the tile load. The tile
// load keeps its place.
// CHECK-LABEL: func.func @scale_after_math
// CHECK-NEXT: arith.constant 1 : i32
// CHECK-NEXT: %[[P:.*]] = tile.addptr %arg1, %{{.*}} : !tile.ptr<f32>, i32
// CHECK-NEXT: %[[S:.*]] = tile.load %[[P]] : !tile.ptr<f32> -> f32
// CHECK: tile.load %{{.*}} : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
// CHECK: math.exp
// CHECK: tile.splat %[[S]]
func.func @scale_after_math(%x: !tile.ptr<f32>, %s: !tile.ptr<f32>) attributes {tile.kernel} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %v = tile.load %a : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %e = math.exp %v : tensor<128xf32>
  %c1 = arith.constant 1 : i32
  %sp = tile.addptr %s, %c1 : !tile.ptr<f32>, i32
  %scale = tile.load %sp : !tile.ptr<f32> -> f32
  %d = tile.splat %scale : f32 -> tensor<128xf32>
  %q = arith.divf %e, %d : tensor<128xf32>
  tile.store %a, %q : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  return
}

// -----

// A scalar load never moves above a store before it (it may read what the
// store wrote).
// CHECK-LABEL: func.func @not_past_a_store
// CHECK: tile.store %arg0
// CHECK-NEXT: tile.load %arg0 : !tile.ptr<f32> -> f32
func.func @not_past_a_store(%x: !tile.ptr<f32>) attributes {tile.kernel} {
  %one = arith.constant 1.0 : f32
  tile.store %x, %one : !tile.ptr<f32>, f32
  %c = arith.constant 2.0 : f32
  %v = tile.load %x : !tile.ptr<f32> -> f32
  %w = arith.addf %v, %c : f32
  tile.store %x, %w : !tile.ptr<f32>, f32
  return
}

// -----

// Inside a loop body it moves up within the body, below the body's last
// write; it never leaves the loop.
// CHECK-LABEL: func.func @in_a_loop
// CHECK: scf.for
// CHECK-NEXT: tile.addptr %arg0, %{{.*}} : !tile.ptr<f32>, i32
// CHECK-NEXT: tile.load
// CHECK: math.exp
// CHECK: scf.yield
func.func @in_a_loop(%x: !tile.ptr<f32>, %n: i32) attributes {tile.kernel} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %init = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) : i32 {
    %e = math.exp %acc : f32
    %p = tile.addptr %x, %i : !tile.ptr<f32>, i32
    %v = tile.load %p : !tile.ptr<f32> -> f32
    %next = arith.addf %e, %v : f32
    scf.yield %next : f32
  }
  tile.store %x, %sum : !tile.ptr<f32>, f32
  return
}

// -----

// A wait for the prior kernel counts as a write: a scalar load below it
// moves up to just after it, never above it.
// CHECK-LABEL: func.func @below_a_wait
// CHECK: math.exp
// CHECK: tile.wait_prior_kernel
// CHECK-NEXT: tile.load %arg1
// CHECK: arith.addf
func.func @below_a_wait(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.early_launch} {
  %a = tile.load %x : !tile.ptr<f32> -> f32
  %e = math.exp %a : f32
  tile.wait_prior_kernel
  %f = math.exp %e : f32
  %b = tile.load %y : !tile.ptr<f32> -> f32
  %s = arith.addf %f, %b : f32
  tile.store %x, %s : !tile.ptr<f32>, f32
  return
}
