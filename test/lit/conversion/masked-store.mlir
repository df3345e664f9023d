// RUN: megac-opt %s -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// A masked store whose mask is uniform over the thread's vector is one
// predicated PTX store: 32-bit words, or one `st.global.b16` / `.b8` for a
// 2-byte or 1-byte element (a bf16 scalar, an FP8 scale), never a branch.
// CHECK-LABEL: llvm.func @masked_store
// CHECK-NOT: llvm.cond_br
// CHECK: llvm.bitcast %{{.*}} : vector<4xf32> to vector<4xi32>
// CHECK-COUNT-4: llvm.extractelement
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$0 st.global.v4.b32 [$1], {$2, $3, $4, $5};", "b,l,r,r,r,r" %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (i1, !llvm.ptr<1>, i32, i32, i32, i32) -> ()
// CHECK-NOT: llvm.store
// CHECK: llvm.return
func.func @masked_store(%x: !tile.ptr<f32> {tile.alignment = 16 : i64}, %n: i32 {tile.divisibility = 16 : i64}) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 512 : tensor<512xi32>
  %p = tile.splat %x : !tile.ptr<f32> -> tensor<512x!tile.ptr<f32>>
  %a = tile.addptr %p, %r : tensor<512x!tile.ptr<f32>>, tensor<512xi32>
  %bound = tile.splat %n : i32 -> tensor<512xi32>
  %m = arith.cmpi slt, %r, %bound : tensor<512xi32>
  %v = arith.sitofp %r : tensor<512xi32> to tensor<512xf32>
  tile.store %a, %v mask %m : tensor<512x!tile.ptr<f32>>, tensor<512xf32>, tensor<512xi1>
  return
}

// CHECK-LABEL: llvm.func @masked_scalar_bf16
// CHECK-NOT: llvm.cond_br
// CHECK: %[[H:.*]] = llvm.bitcast %{{.*}} : bf16 to i16
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$0 st.global.b16 [$1], $2;", "b,l,h" %{{.*}}, %{{.*}}, %[[H]] : (i1, !llvm.ptr<1>, i16) -> ()
// CHECK-NOT: llvm.store
// CHECK: llvm.return
func.func @masked_scalar_bf16(%x: !tile.ptr<bf16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %p = tile.splat %x : !tile.ptr<bf16> -> tensor<128x!tile.ptr<bf16>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<bf16>>, tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %bound : tensor<128xi32>
  %v = arith.sitofp %r : tensor<128xi32> to tensor<128xbf16>
  tile.store %a, %v mask %m : tensor<128x!tile.ptr<bf16>>, tensor<128xbf16>, tensor<128xi1>
  return
}

// A byte goes out of the low half of a 16-bit register.
// CHECK-LABEL: llvm.func @masked_scalar_fp8
// CHECK-NOT: llvm.cond_br
// CHECK: %[[Z:.*]] = llvm.zext %{{.*}} : i8 to i16
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "@$0 st.global.b8 [$1], $2;", "b,l,h" %{{.*}}, %{{.*}}, %[[Z]] : (i1, !llvm.ptr<1>, i16) -> ()
// CHECK-NOT: llvm.store
// CHECK: llvm.return
func.func @masked_scalar_fp8(%x: !tile.ptr<f8E4M3FN>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %r = tile.arange 0, 128 : tensor<128xi32>
  %p = tile.splat %x : !tile.ptr<f8E4M3FN> -> tensor<128x!tile.ptr<f8E4M3FN>>
  %a = tile.addptr %p, %r : tensor<128x!tile.ptr<f8E4M3FN>>, tensor<128xi32>
  %bound = tile.splat %n : i32 -> tensor<128xi32>
  %m = arith.cmpi slt, %r, %bound : tensor<128xi32>
  %f = arith.sitofp %r : tensor<128xi32> to tensor<128xf32>
  %v = tile.fp_trunc %f {rounding = "rne", saturate = true} : tensor<128xf32> -> tensor<128xf8E4M3FN>
  tile.store %a, %v mask %m : tensor<128x!tile.ptr<f8E4M3FN>>, tensor<128xf8E4M3FN>, tensor<128xi1>
  return
}
