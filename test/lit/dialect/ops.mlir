// RUN: megac-opt %s | megac-opt | FileCheck %s

// Every tile op and both layout attributes survive print -> parse -> print.

// CHECK-LABEL: func.func @ops
// CHECK-SAME: (%[[P:.*]]: !tile.ptr<f32>, %[[Q:.*]]: !tile.ptr<i32>)
func.func @ops(%p: !tile.ptr<f32>, %q: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  // CHECK: %[[PID:.*]] = tile.program_id 0 : i32
  %pid = tile.program_id 0 : i32
  // CHECK: tile.num_programs 2 : i32
  %np = tile.num_programs 2 : i32
  // CHECK: %[[R:.*]] = tile.arange 0, 128 : tensor<128xi32>
  %r = tile.arange 0, 128 : tensor<128xi32>
  // CHECK: %[[S:.*]] = tile.splat %[[P]] : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>>
  // CHECK: %[[A:.*]] = tile.addptr %[[S]], %[[R]] : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  %a = tile.addptr %s, %r : tensor<128x!tile.ptr<f32>>, tensor<128xi32>
  // CHECK: tile.addptr %[[P]], %[[PID]] : !tile.ptr<f32>, i32
  %ps = tile.addptr %p, %pid : !tile.ptr<f32>, i32
  // CHECK: tile.ptr_cast %[[P]] : !tile.ptr<f32> -> !tile.ptr<i32>
  %pc = tile.ptr_cast %p : !tile.ptr<f32> -> !tile.ptr<i32>
  // CHECK: %[[V:.*]] = tile.load %[[A]] : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %v = tile.load %a : tensor<128x!tile.ptr<f32>> -> tensor<128xf32>
  %bound = tile.splat %np : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %bound : tensor<128xi32>
  %zero = arith.constant dense<0.0> : tensor<128xf32>
  // CHECK: tile.load %[[A]] mask %[[M:.*]] other %{{.*}} : tensor<128x!tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  %vm = tile.load %a mask %m other %zero : tensor<128x!tile.ptr<f32>>, tensor<128xi1> -> tensor<128xf32>
  // CHECK: tile.load %[[P]] : !tile.ptr<f32> -> f32
  %sc = tile.load %p : !tile.ptr<f32> -> f32
  // CHECK: tile.store %[[A]], %[[V]] : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  tile.store %a, %v : tensor<128x!tile.ptr<f32>>, tensor<128xf32>
  // CHECK: tile.store %[[A]], %{{.*}} mask %[[M]] : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  tile.store %a, %vm mask %m : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  // CHECK: tile.store %[[A]], %{{.*}} mask %[[M]] {streaming} : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  tile.store %a, %vm mask %m {streaming} : tensor<128x!tile.ptr<f32>>, tensor<128xf32>, tensor<128xi1>
  // CHECK: tile.atomic_rmw "add" %[[A]], %[[V]] : tensor<128x!tile.ptr<f32>>, tensor<128xf32> -> tensor<128xf32>
  %old = tile.atomic_rmw "add" %a, %v : tensor<128x!tile.ptr<f32>>, tensor<128xf32> -> tensor<128xf32>
  // CHECK: tile.atomic_rmw "max" %[[Q]], %[[PID]] mask %{{.*}} : !tile.ptr<i32>, i32, i1 -> i32
  %t = arith.constant true
  %oldq = tile.atomic_rmw "max" %q, %pid mask %t : !tile.ptr<i32>, i32, i1 -> i32
  // CHECK: %[[E:.*]] = tile.expand_dims %[[V]] {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  %e = tile.expand_dims %v {axis = 1 : i32} : tensor<128xf32> -> tensor<128x1xf32>
  // CHECK: %[[B:.*]] = tile.broadcast %[[E]] : tensor<128x1xf32> -> tensor<128x64xf32>
  %b = tile.broadcast %e : tensor<128x1xf32> -> tensor<128x64xf32>
  // CHECK: tile.reduce "sum" %[[B]] {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
  %sum = tile.reduce "sum" %b {axis = 1 : i32} : tensor<128x64xf32> -> tensor<128xf32>
  // CHECK: tile.reduce "argmax" %[[V]] {axis = 0 : i32} : tensor<128xf32> -> i32
  %am = tile.reduce "argmax" %v {axis = 0 : i32} : tensor<128xf32> -> i32
  // CHECK: tile.fp_trunc %[[V]] {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf8E4M3FN>
  %f8 = tile.fp_trunc %v {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf8E4M3FN>
  // CHECK: tile.fp_trunc %{{.*}} {rounding = "rne", saturate = false} : f32 -> f4E2M1FN
  %f4 = tile.fp_trunc %sc {rounding = "rne", saturate = false} : f32 -> f4E2M1FN
  return
}

// CHECK-LABEL: func.func @layouts
// CHECK-SAME: tensor<128xf32, #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>>
// CHECK-SAME: tensor<64x64xf32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
func.func @layouts(%x: tensor<128xf32, #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>>,
                   %y: tensor<64x64xf32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>) {
  // CHECK: tile.convert_layout %{{.*}} : tensor<128xf32, #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>> -> tensor<128xf32, #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
  %c = tile.convert_layout %x : tensor<128xf32, #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>> -> tensor<128xf32, #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
  // CHECK: tile.reduce "max" %{{.*}} {axis = 1 : i32} : tensor<64x64xf32, #tile.blocked<{{.*}}>> -> tensor<64xf32, #tile.slice<dim = 1, parent = <spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>>
  %r = tile.reduce "max" %y {axis = 1 : i32} : tensor<64x64xf32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>> -> tensor<64xf32, #tile.slice<dim = 1, parent = <spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>>
  return
}

// CHECK-LABEL: func.func @early
// CHECK-SAME: tile.early_launch
// CHECK-NEXT: tile.launch_dependents
// CHECK-NEXT: tile.wait_prior_kernel{{$}}
// CHECK-NEXT: tile.wait_prior_kernel {launch_dependents}
func.func @early() attributes {tile.early_launch} {
  tile.launch_dependents
  tile.wait_prior_kernel
  tile.wait_prior_kernel {launch_dependents}
  return
}
