// RUN: megac-opt %s -split-input-file -tile-assign-layouts | FileCheck %s

// 1-D f32 accesses: 16-byte vectors are 4 elements per thread.
// CHECK-LABEL: func.func @f32_1d
// CHECK: tile.arange 0, 1024 : tensor<1024xi32, #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>>
// CHECK: tile.load {{.*}} -> tensor<1024xf32, #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @f32_1d(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 1024 : tensor<1024xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  %v = tile.load %a : tensor<1024x!tile.ptr<f32>> -> tensor<1024xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<1024x!tile.ptr<f32>>
  %b = tile.addptr %q, %r : tensor<1024x!tile.ptr<f32>>, tensor<1024xi32>
  tile.store %b, %v : tensor<1024x!tile.ptr<f32>>, tensor<1024xf32>
  return
}

// -----

// bf16 accesses: 8 elements per thread; num_warps comes from the kernel.
// CHECK-LABEL: func.func @bf16_1d
// CHECK: tile.load {{.*}} -> tensor<2048xbf16, #tile.blocked<spt = [8], tpw = [32], wpc = [8], order = [0]>>
func.func @bf16_1d(%x: !tile.ptr<bf16>, %y: !tile.ptr<bf16>) attributes {tile.kernel, tile.num_warps = 8 : i32} {
  %r = tile.arange 0, 2048 : tensor<2048xi32>
  %p = tile.splat %x : !tile.ptr<bf16> -> tensor<2048x!tile.ptr<bf16>>
  %a = tile.addptr %p, %r : tensor<2048x!tile.ptr<bf16>>, tensor<2048xi32>
  %v = tile.load %a : tensor<2048x!tile.ptr<bf16>> -> tensor<2048xbf16>
  %q = tile.splat %y : !tile.ptr<bf16> -> tensor<2048x!tile.ptr<bf16>>
  %b = tile.addptr %q, %r : tensor<2048x!tile.ptr<bf16>>, tensor<2048xi32>
  tile.store %b, %v : tensor<2048x!tile.ptr<bf16>>, tensor<2048xbf16>
  return
}

// -----

// All rank-2 tiles share the layout chosen for the largest 2-D shape, so the
// 128x1 and 1x128 tiles of expand_dims/broadcast use it too; reductions give
// slices of it; expand_dims of a slice gives the parent back.
// CHECK-LABEL: func.func @two_d
// CHECK: tile.expand_dims {{.*}} -> tensor<64x1xi32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
// CHECK: tile.expand_dims {{.*}} -> tensor<1x64xi32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
// CHECK: tile.broadcast {{.*}} -> tensor<64x64xi32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
// CHECK: %[[V:.*]] = tile.load {{.*}} -> tensor<64x64xf32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
// CHECK: %[[S:.*]] = tile.reduce "max" %[[V]] {axis = 1 : i32} : {{.*}} -> tensor<64xf32, #tile.slice<dim = 1, parent = <spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>>
// CHECK: tile.expand_dims %[[S]] {axis = 1 : i32} : tensor<64xf32, #tile.slice<{{.*}}>> -> tensor<64x1xf32, #tile.blocked<spt = [1, 4], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @two_d(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c1 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r1, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %p, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %ptrs : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %m = tile.reduce "max" %v {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %m1 = tile.expand_dims %m {axis = 1 : i32} : tensor<64xf32> -> tensor<64x1xf32>
  %mb = tile.broadcast %m1 : tensor<64x1xf32> -> tensor<64x64xf32>
  %d = arith.subf %v, %mb : tensor<64x64xf32>
  %q = tile.splat %y : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %qs = tile.addptr %q, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  tile.store %qs, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// A store follows its value: the reduction result keeps its slice layout and
// the (cheap) pointers are converted to it, not the other way round.
// CHECK-LABEL: func.func @store_follows_value
// CHECK: %[[S:.*]] = tile.reduce "sum" {{.*}} -> tensor<64xf32, #tile.slice<dim = 1, [[PARENT:.*]]>>
// CHECK: %[[P:.*]] = tile.convert_layout %{{.*}} : tensor<64x!tile.ptr<f32>, #tile.blocked<{{.*}}>> -> tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, [[PARENT]]>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store %[[P]], %[[S]] : tensor<64x!tile.ptr<f32>, #tile.slice<dim = 1, [[PARENT]]>>, tensor<64xf32, #tile.slice<dim = 1, [[PARENT]]>>
func.func @store_follows_value(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 64 : tensor<64xi32>
  %r1 = tile.expand_dims %r {axis = 1 : i32} : tensor<64xi32> -> tensor<64x1xi32>
  %c1 = tile.expand_dims %r {axis = 0 : i32} : tensor<64xi32> -> tensor<1x64xi32>
  %c64 = arith.constant dense<64> : tensor<64x1xi32>
  %ro = arith.muli %r1, %c64 : tensor<64x1xi32>
  %rb = tile.broadcast %ro : tensor<64x1xi32> -> tensor<64x64xi32>
  %cb = tile.broadcast %c1 : tensor<1x64xi32> -> tensor<64x64xi32>
  %off = arith.addi %rb, %cb : tensor<64x64xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  %ptrs = tile.addptr %p, %off : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xi32>
  %v = tile.load %ptrs : tensor<64x64x!tile.ptr<f32>> -> tensor<64x64xf32>
  %s = tile.reduce "sum" %v {axis = 1 : i32} : tensor<64x64xf32> -> tensor<64xf32>
  %o = tile.splat %y : !tile.ptr<f32> -> tensor<64x!tile.ptr<f32>>
  %optrs = tile.addptr %o, %r : tensor<64x!tile.ptr<f32>>, tensor<64xi32>
  tile.store %optrs, %s : tensor<64x!tile.ptr<f32>>, tensor<64xf32>
  return
}

// -----

// A column of per-row f32 values (fastest dimension 1 wide) is no vector
// access: the bf16 tile keeps 16-byte vectors, 8 elements per thread (the
// f32 column used to narrow them to 4).
// CHECK-LABEL: func.func @column_of_scales
// CHECK: tile.load {{.*}} -> tensor<8x128xbf16, #tile.blocked<spt = [1, 8], tpw = [2, 16], wpc = [4, 1], order = [1, 0]>>
func.func @column_of_scales(%x: !tile.ptr<bf16>, %s: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %e = tile.expand_dims %r {axis = 0 : i32} : tensor<128xi32> -> tensor<1x128xi32>
  %o = tile.broadcast %e : tensor<1x128xi32> -> tensor<8x128xi32>
  %p = tile.splat %x : !tile.ptr<bf16> -> tensor<8x128x!tile.ptr<bf16>>
  %a = tile.addptr %p, %o : tensor<8x128x!tile.ptr<bf16>>, tensor<8x128xi32>
  %v = tile.load %a : tensor<8x128x!tile.ptr<bf16>> -> tensor<8x128xbf16>
  %w = arith.extf %v : tensor<8x128xbf16> to tensor<8x128xf32>
  %m = tile.reduce "max" %w {axis = 1 : i32} : tensor<8x128xf32> -> tensor<8xf32>
  %c = tile.expand_dims %m {axis = 1 : i32} : tensor<8xf32> -> tensor<8x1xf32>
  %rows = tile.arange 0, 8 : tensor<8xi32>
  %rc = tile.expand_dims %rows {axis = 1 : i32} : tensor<8xi32> -> tensor<8x1xi32>
  %q = tile.splat %s : !tile.ptr<f32> -> tensor<8x1x!tile.ptr<f32>>
  %b = tile.addptr %q, %rc : tensor<8x1x!tile.ptr<f32>>, tensor<8x1xi32>
  tile.store %b, %c : tensor<8x1x!tile.ptr<f32>>, tensor<8x1xf32>
  return
}
