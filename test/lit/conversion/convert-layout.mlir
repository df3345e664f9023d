// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// Only @convert uses shared memory.
// CHECK-NOT: @__megac_smem_lanes
// CHECK-NOT: @__megac_smem_vector_width
// CHECK-NOT: @__megac_smem_noop

// A layout conversion that moves elements between warps (element 40 is in
// warp 0 under #A, warp 1 under #B) goes through shared memory: a barrier, every thread
// writes its 4 consecutive registers at their row-major positions (one
// 16-byte vector: lanes write consecutive vectors, no bank conflict), a
// barrier, every thread reads what the new layout gives it. The buffer holds
// the whole tile (512 x f32 = 2048 bytes).
// CHECK: llvm.mlir.global internal @__megac_smem_convert() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2048 x i8>
// CHECK-LABEL: llvm.func @convert
// CHECK: %[[BASE:.*]] = llvm.mlir.addressof @__megac_smem_convert : !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NOT: llvm.store
// CHECK: nvvm.barrier0
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @convert(%p: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32, #A>
  %s = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #A>
  %a = tile.addptr %s, %r : tensor<512x!tile.ptr<f32>, #A>, tensor<512xi32, #A>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>, #A> -> tensor<512xf32, #A>
  %c = tile.convert_layout %v : tensor<512xf32, #A> -> tensor<512xf32, #B>
  %rb = tile.arange 0, 512 : tensor<512xi32, #B>
  %sb = tile.splat %p : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #B>
  %b = tile.addptr %sb, %rb : tensor<512x!tile.ptr<f32>, #B>, tensor<512xi32, #B>
  tile.store %b, %c : tensor<512x!tile.ptr<f32>, #B>, tensor<512xf32, #B>
  return
}

#R = #tile.blocked<spt = [1, 1], tpw = [4, 8], wpc = [1, 4], order = [1, 0]>
#C = #tile.blocked<spt = [1, 1], tpw = [4, 8], wpc = [1, 4], order = [0, 1]>

// Row-major to column-major lanes, warps on the columns in both: every
// element stays in its warp. One index shuffle per register (8), no shared
// memory, no barrier.
// CHECK-LABEL: llvm.func @lanes
// CHECK-NOT: nvvm.barrier0
// CHECK-COUNT-8: nvvm.shfl.sync idx %{{.*}} : f32 -> f32
// CHECK-NOT: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
func.func @lanes(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ar = tile.arange 0, 32 : tensor<32xi32, #tile.slice<dim = 1, parent = #R>>
  %ar1 = tile.expand_dims %ar {axis = 1 : i32} : tensor<32xi32, #tile.slice<dim = 1, parent = #R>> -> tensor<32x1xi32, #R>
  %ac = tile.arange 0, 32 : tensor<32xi32, #tile.slice<dim = 0, parent = #R>>
  %ac1 = tile.expand_dims %ac {axis = 0 : i32} : tensor<32xi32, #tile.slice<dim = 0, parent = #R>> -> tensor<1x32xi32, #R>
  %ak = arith.constant dense<32> : tensor<32x1xi32, #R>
  %ark = arith.muli %ar1, %ak : tensor<32x1xi32, #R>
  %arb = tile.broadcast %ark : tensor<32x1xi32, #R> -> tensor<32x32xi32, #R>
  %acb = tile.broadcast %ac1 : tensor<1x32xi32, #R> -> tensor<32x32xi32, #R>
  %aoff = arith.addi %arb, %acb : tensor<32x32xi32, #R>
  %as = tile.splat %x : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #R>
  %a = tile.addptr %as, %aoff : tensor<32x32x!tile.ptr<f32>, #R>, tensor<32x32xi32, #R>
  %v = tile.load %a : tensor<32x32x!tile.ptr<f32>, #R> -> tensor<32x32xf32, #R>
  %w = tile.convert_layout %v : tensor<32x32xf32, #R> -> tensor<32x32xf32, #C>
  %br = tile.arange 0, 32 : tensor<32xi32, #tile.slice<dim = 1, parent = #C>>
  %br1 = tile.expand_dims %br {axis = 1 : i32} : tensor<32xi32, #tile.slice<dim = 1, parent = #C>> -> tensor<32x1xi32, #C>
  %bc = tile.arange 0, 32 : tensor<32xi32, #tile.slice<dim = 0, parent = #C>>
  %bc1 = tile.expand_dims %bc {axis = 0 : i32} : tensor<32xi32, #tile.slice<dim = 0, parent = #C>> -> tensor<1x32xi32, #C>
  %bk = arith.constant dense<32> : tensor<32x1xi32, #C>
  %brk = arith.muli %br1, %bk : tensor<32x1xi32, #C>
  %brb = tile.broadcast %brk : tensor<32x1xi32, #C> -> tensor<32x32xi32, #C>
  %bcb = tile.broadcast %bc1 : tensor<1x32xi32, #C> -> tensor<32x32xi32, #C>
  %boff = arith.addi %brb, %bcb : tensor<32x32xi32, #C>
  %bs = tile.splat %y : !tile.ptr<f32> -> tensor<32x32x!tile.ptr<f32>, #C>
  %b = tile.addptr %bs, %boff : tensor<32x32x!tile.ptr<f32>, #C>, tensor<32x32xi32, #C>
  tile.store %b, %w : tensor<32x32x!tile.ptr<f32>, #C>, tensor<32x32xf32, #C>
  return
}

#V4 = #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>
#V2 = #tile.blocked<spt = [1, 2], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>

// 4 contiguous elements per thread to 2: the same 2 rows per warp, but a
// lane wants the lower or the upper pair of its neighbour's vector
// depending on its parity: two shuffles per result register and a select.
// CHECK-LABEL: llvm.func @vector_width
// CHECK-NOT: nvvm.barrier0
// CHECK: nvvm.shfl.sync idx
// CHECK: nvvm.shfl.sync idx
// CHECK: llvm.select
// CHECK-COUNT-62: nvvm.shfl.sync idx
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @vector_width(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %ar = tile.arange 0, 64 : tensor<64xi32, #tile.slice<dim = 1, parent = #V4>>
  %ar1 = tile.expand_dims %ar {axis = 1 : i32} : tensor<64xi32, #tile.slice<dim = 1, parent = #V4>> -> tensor<64x1xi32, #V4>
  %ac = tile.arange 0, 64 : tensor<64xi32, #tile.slice<dim = 0, parent = #V4>>
  %ac1 = tile.expand_dims %ac {axis = 0 : i32} : tensor<64xi32, #tile.slice<dim = 0, parent = #V4>> -> tensor<1x64xi32, #V4>
  %ak = arith.constant dense<64> : tensor<64x1xi32, #V4>
  %ark = arith.muli %ar1, %ak : tensor<64x1xi32, #V4>
  %arb = tile.broadcast %ark : tensor<64x1xi32, #V4> -> tensor<64x64xi32, #V4>
  %acb = tile.broadcast %ac1 : tensor<1x64xi32, #V4> -> tensor<64x64xi32, #V4>
  %aoff = arith.addi %arb, %acb : tensor<64x64xi32, #V4>
  %as = tile.splat %x : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #V4>
  %a = tile.addptr %as, %aoff : tensor<64x64x!tile.ptr<f32>, #V4>, tensor<64x64xi32, #V4>
  %v = tile.load %a : tensor<64x64x!tile.ptr<f32>, #V4> -> tensor<64x64xf32, #V4>
  %w = tile.convert_layout %v : tensor<64x64xf32, #V4> -> tensor<64x64xf32, #V2>
  %br = tile.arange 0, 64 : tensor<64xi32, #tile.slice<dim = 1, parent = #V2>>
  %br1 = tile.expand_dims %br {axis = 1 : i32} : tensor<64xi32, #tile.slice<dim = 1, parent = #V2>> -> tensor<64x1xi32, #V2>
  %bc = tile.arange 0, 64 : tensor<64xi32, #tile.slice<dim = 0, parent = #V2>>
  %bc1 = tile.expand_dims %bc {axis = 0 : i32} : tensor<64xi32, #tile.slice<dim = 0, parent = #V2>> -> tensor<1x64xi32, #V2>
  %bk = arith.constant dense<64> : tensor<64x1xi32, #V2>
  %brk = arith.muli %br1, %bk : tensor<64x1xi32, #V2>
  %brb = tile.broadcast %brk : tensor<64x1xi32, #V2> -> tensor<64x64xi32, #V2>
  %bcb = tile.broadcast %bc1 : tensor<1x64xi32, #V2> -> tensor<64x64xi32, #V2>
  %boff = arith.addi %brb, %bcb : tensor<64x64xi32, #V2>
  %bs = tile.splat %y : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>, #V2>
  %b = tile.addptr %bs, %boff : tensor<64x64x!tile.ptr<f32>, #V2>, tensor<64x64xi32, #V2>
  tile.store %b, %w : tensor<64x64x!tile.ptr<f32>, #V2>, tensor<64x64xf32, #V2>
  return
}

#P = #tile.blocked<spt = [1, 4], tpw = [1, 32], wpc = [4, 1], order = [1, 0]>
#F = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>

// A row of a row-major 2-D layout (its slice along dim 0) places 128
// elements exactly like the 1-D layout: the conversion is the identity on
// registers (no shuffle, no shared memory).
// CHECK-LABEL: llvm.func @noop
// CHECK-NOT: nvvm.shfl.sync
// CHECK-NOT: nvvm.barrier0
// CHECK-NOT: !llvm.ptr<3>
// CHECK: llvm.return
func.func @noop(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32, #tile.slice<dim = 0, parent = #P>>
  %c = tile.convert_layout %r : tensor<128xi32, #tile.slice<dim = 0, parent = #P>> -> tensor<128xi32, #F>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<128x!tile.ptr<f32>, #F>
  %a = tile.addptr %p, %c : tensor<128x!tile.ptr<f32>, #F>, tensor<128xi32, #F>
  %one = arith.constant dense<1.0> : tensor<128xf32, #F>
  tile.store %a, %one : tensor<128x!tile.ptr<f32>, #F>, tensor<128xf32, #F>
  return
}
