// RUN: megac-opt %s -split-input-file -tile-remove-layout-conversions | FileCheck %s

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// A conversion of arange + splat arithmetic is rematerialized: the range,
// the splat and the add are recomputed in the wanted layout.
// CHECK-LABEL: func.func @arange_splat_chain
// CHECK-NOT: tile.convert_layout
// CHECK: %[[R:.*]] = tile.arange 0, 512 : tensor<512xi32, #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
// CHECK: %[[S:.*]] = tile.splat %{{.*}} : i32 -> tensor<512xi32, #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
// CHECK: %[[O:.*]] = arith.addi %[[R]], %[[S]] : tensor<512xi32, #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: tile.addptr %{{.*}}, %[[O]]
func.func @arange_splat_chain(%x: !tile.ptr<f32>, %n: i32) {
  %r = tile.arange 0, 512 : tensor<512xi32, #A>
  %s = tile.splat %n : i32 -> tensor<512xi32, #A>
  %o = arith.addi %r, %s : tensor<512xi32, #A>
  %c = tile.convert_layout %o : tensor<512xi32, #A> -> tensor<512xi32, #B>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>, #B>
  %a = tile.addptr %p, %c : tensor<512x!tile.ptr<f32>, #B>, tensor<512xi32, #B>
  %v = tile.load %a : tensor<512x!tile.ptr<f32>, #B> -> tensor<512xf32, #B>
  tile.store %a, %v : tensor<512x!tile.ptr<f32>, #B>, tensor<512xf32, #B>
  return
}

// -----

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// A constant is re-created in the wanted layout.
// CHECK-LABEL: func.func @constant
// CHECK-NOT: tile.convert_layout
// CHECK: arith.constant dense<2.500000e+00> : tensor<512xf32, #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>>
// CHECK-NOT: tile.convert_layout
// CHECK: return
func.func @constant(%p: tensor<512x!tile.ptr<f32>, #B>) {
  %k = arith.constant dense<2.5> : tensor<512xf32, #A>
  %c = tile.convert_layout %k : tensor<512xf32, #A> -> tensor<512xf32, #B>
  tile.store %p, %c : tensor<512x!tile.ptr<f32>, #B>, tensor<512xf32, #B>
  return
}

// -----

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>

// A conversion to the layout the tile already has folds away.
// CHECK-LABEL: func.func @identity
// CHECK: %[[V:.*]] = tile.load
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store %{{.*}}, %[[V]] :
func.func @identity(%p: tensor<512x!tile.ptr<f32>, #A>) {
  %v = tile.load %p : tensor<512x!tile.ptr<f32>, #A> -> tensor<512xf32, #A>
  %c = tile.convert_layout %v : tensor<512xf32, #A> -> tensor<512xf32, #A>
  tile.store %p, %c : tensor<512x!tile.ptr<f32>, #A>, tensor<512xf32, #A>
  return
}

// -----

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// There and back again: A -> B -> A is the loaded value itself.
// CHECK-LABEL: func.func @back_to_back
// CHECK: %[[V:.*]] = tile.load
// CHECK-NOT: tile.convert_layout
// CHECK: tile.store %{{.*}}, %[[V]] :
func.func @back_to_back(%p: tensor<512x!tile.ptr<f32>, #A>) {
  %v = tile.load %p : tensor<512x!tile.ptr<f32>, #A> -> tensor<512xf32, #A>
  %b = tile.convert_layout %v : tensor<512xf32, #A> -> tensor<512xf32, #B>
  %a = tile.convert_layout %b : tensor<512xf32, #B> -> tensor<512xf32, #A>
  tile.store %p, %a : tensor<512x!tile.ptr<f32>, #A>, tensor<512xf32, #A>
  return
}

// -----

#A = #tile.blocked<spt = [4], tpw = [32], wpc = [4], order = [0]>
#B = #tile.blocked<spt = [1], tpw = [32], wpc = [4], order = [0]>

// A loaded tile cannot be recomputed: its conversion stays.
// CHECK-LABEL: func.func @loaded_stays
// CHECK: %[[V:.*]] = tile.load
// CHECK: %[[C:.*]] = tile.convert_layout %[[V]] : tensor<512xf32, #tile.blocked<spt = [4], {{.*}}>> -> tensor<512xf32, #tile.blocked<spt = [1], {{.*}}>>
// CHECK: tile.store %{{.*}}, %[[C]] :
func.func @loaded_stays(%p: tensor<512x!tile.ptr<f32>, #A>, %q: tensor<512x!tile.ptr<f32>, #B>) {
  %v = tile.load %p : tensor<512x!tile.ptr<f32>, #A> -> tensor<512xf32, #A>
  %c = tile.convert_layout %v : tensor<512xf32, #A> -> tensor<512xf32, #B>
  tile.store %q, %c : tensor<512x!tile.ptr<f32>, #B>, tensor<512xf32, #B>
  return
}
