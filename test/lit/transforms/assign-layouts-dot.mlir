// RUN: megac-opt %s -split-input-file -tile-assign-layouts | FileCheck %s

// The dot's result and accumulator take the dot layout (warps along N); its
// operands keep their own layouts (the lowering stages them in shared
// memory; loaded for the dot alone, they are read in 16-byte vectors: 8
// bf16, where the kernel's f32 store would give 4); trans swaps its source
// layout's dimensions. (The store of the
// row sums recomputes its pointers in the sums' layout.)
// CHECK-LABEL: func.func @dot_nt
// CHECK: tile.trans {{.*}} : tensor<64x32xbf16, #tile.blocked<spt = [1, 8], tpw = [8, 4], wpc = [4, 1], order = [1, 0]>> -> tensor<32x64xbf16, #tile.blocked<spt = [8, 1], tpw = [4, 8], wpc = [1, 4], order = [0, 1]>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.dot {{.*}} -> tensor<64x64xf32, #tile.blocked<spt = [1, 2], tpw = [8, 4], wpc = [1, 4], order = [1, 0]>>
func.func @dot_nt(%a: !tile.ptr<bf16>, %b: !tile.ptr<bf16>, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %k = tile.arange 0, 32 : tensor<32xi32>
  %r2 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %k2 = tile.expand_dims %k {axis = 0 : i32} : tensor<32xi32> -> tensor<1x32xi32>
  %c32 = arith.constant dense<32> : tensor<64x1xi32>
  %rows = arith.muli %r2, %c32 : tensor<64x1xi32>
  %rb = tile.broadcast %rows : tensor<64x1xi32> -> tensor<64x32xi32>
  %kb = tile.broadcast %k2 : tensor<1x32xi32> -> tensor<64x32xi32>
  %off = arith.addi %rb, %kb : tensor<64x32xi32>
  %pa = tile.splat %a : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %aa = tile.addptr %pa, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %x = tile.load %aa : tensor<64x32x!tile.ptr<bf16>> -> tensor<64x32xbf16>
  %pb = tile.splat %b : !tile.ptr<bf16> -> tensor<64x32x!tile.ptr<bf16>>
  %bb = tile.addptr %pb, %off : tensor<64x32x!tile.ptr<bf16>>, tensor<64x32xi32>
  %y = tile.load %bb : tensor<64x32x!tile.ptr<bf16>> -> tensor<64x32xbf16>
  %yt = tile.trans %y : tensor<64x32xbf16> -> tensor<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %d = tile.dot %x, %yt, %zero : tensor<64x32xbf16>, tensor<32x64xbf16>, tensor<64x64xf32> -> tensor<64x64xf32>
  %s = tile.reduce "sum" %d {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %pc = tile.splat %c : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %cc = tile.addptr %pc, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %cc, %s : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// An online softmax over a dot's scores: the running maximum and the
// accumulator are loop-carried; their initial values are made in the dot's
// layout (and its slice), so the loop converts nothing.
// CHECK-LABEL: func.func @online_softmax
// CHECK: arith.constant dense<-1.000000e+30> : tensor<16xf32, #tile.slice<dim = 1, parent = <spt = [1, 2], tpw = [8, 4], wpc = [1, 4], order = [1, 0]>>>
// CHECK: arith.constant dense<0.000000e+00> : tensor<16x64xf32, #tile.blocked<spt = [1, 2], tpw = [8, 4], wpc = [1, 4], order = [1, 0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @online_softmax(%q: tensor<16x32xbf16>, %k: tensor<32x64xbf16>, %v: tensor<64x64xbf16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %neg = arith.constant dense<-1.0e30> : tensor<16xf32>
  %acc0 = arith.constant dense<0.0> : tensor<16x64xf32>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %m, %acc = scf.for %i = %c0 to %n step %c1 iter_args(%m_i = %neg, %acc_i = %acc0) -> (tensor<16xf32>, tensor<16x64xf32>) : i32 {
    %s = tile.dot %q, %k, %zero : tensor<16x32xbf16>, tensor<32x64xbf16>, tensor<16x64xf32> -> tensor<16x64xf32>
    %rowmax = tile.reduce "max" %s {axis = 1 : i32} : tensor<16x64xf32> -> tensor<16xf32>
    %m_new = arith.maximumf %m_i, %rowmax : tensor<16xf32>
    %alpha = arith.subf %m_i, %m_new : tensor<16xf32>
    %a2 = tile.expand_dims %alpha {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %ab = tile.broadcast %a2 : tensor<16x1xf32> -> tensor<16x64xf32>
    %scaled = arith.mulf %acc_i, %ab : tensor<16x64xf32>
    %m2 = tile.expand_dims %m_new {axis = 1 : i32} : tensor<16xf32> -> tensor<16x1xf32>
    %mb = tile.broadcast %m2 : tensor<16x1xf32> -> tensor<16x64xf32>
    %p = arith.subf %s, %mb : tensor<16x64xf32>
    %pb = arith.truncf %p : tensor<16x64xf32> to tensor<16x64xbf16>
    %acc_n = tile.dot %pb, %v, %scaled : tensor<16x64xbf16>, tensor<64x64xbf16>, tensor<16x64xf32> -> tensor<16x64xf32>
    scf.yield %m_new, %acc_n : tensor<16xf32>, tensor<16x64xf32>
  }
  return
}
