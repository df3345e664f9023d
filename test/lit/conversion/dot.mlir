// RUN: megac-opt %s -split-input-file -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | FileCheck %s

// a [64, 32] and b = trans of a [64, 32] tile, both loads used only by the
// dot: each is copied where it stands, by cp.async in 16-byte pieces (the
// loads take 8 elements a thread, whatever the kernel's f32 tiles use: 2 a
// thread and tile), into its own shared buffer of 4096 bytes, as one commit
// group after a barrier. The dot waits for both groups (none is left in
// flight), then per warp ldmatrix (b kept [N][K]: the plain form) and one
// mma.sync per 16 x 8 x 16 block: 4 warps along N, 16 columns and 64 rows
// each = 4 x 2 blocks, times 2 steps of K = 16 mma; 8 ldmatrix for a (4 row
// blocks, 2 steps), 2 for b (each x4 serves 2 steps of K). No scratch buffer.
// CHECK-DAG: llvm.mlir.global internal @__megac_smem_dot_nt_copy0() {{.*}} : !llvm.array<4096 x i8>
// CHECK-DAG: llvm.mlir.global internal @__megac_smem_dot_nt_copy1() {{.*}} : !llvm.array<4096 x i8>
// CHECK-NOT: @__megac_smem_dot_nt()
// CHECK-LABEL: llvm.func @dot_nt
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.cp.async.cg.shared.global.16.s"
// CHECK: llvm.call_intrinsic "llvm.nvvm.cp.async.commit.group"
// CHECK: nvvm.barrier0
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.cp.async.cg.shared.global.16.s"
// CHECK: llvm.call_intrinsic "llvm.nvvm.cp.async.commit.group"
// CHECK-NOT: llvm.store {{.*}} !llvm.ptr<3>
// CHECK: llvm.call_intrinsic "llvm.nvvm.cp.async.wait.group"(%{{.*}}) : (i32) -> ()
// CHECK: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
// RUN: megac-opt %s -split-input-file -tile-assign-layouts -tile-remove-layout-conversions -convert-tile-to-llvm | grep -o -e 'ldmatrix[a-z0-9.]*' -e 'mma.m16n8k16[a-z0-9.]*' | sort | uniq -c | FileCheck %s --check-prefix=COUNT
// COUNT: 12 ldmatrix.sync.aligned.m8n8.x4.b16
// COUNT-NEXT: 2 ldmatrix.sync.aligned.m8n8.x4.trans.b16
// COUNT-NEXT: 20 mma.m16n8k16.row.col.bf16
func.func @dot_nt(%a: !tile.ptr<bf16> {tile.alignment = 16 : i64}, %b: !tile.ptr<bf16> {tile.alignment = 16 : i64}, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
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
  %pc = tile.splat %c : !tile.ptr<f32> -> tensor<64x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<64x64x!tile.ptr<f32>>, tensor<64x64xf32>
  return
}

// -----

// Operands computed in registers (a scaled tile, b a [K, N] tile that is
// also stored elsewhere) are written to the scratch buffer by each thread; b,
// kept [K][N], is read by ldmatrix.trans. 4 warps along N = 64: 16 columns,
// 16 rows each = 1 x 2 blocks, 2 steps of K = 4 mma (2 ldmatrix for a, 2
// for b: the counts above add both functions).
// CHECK-LABEL: llvm.func @dot_registers
// CHECK: nvvm.barrier0
// CHECK: llvm.store {{.*}} : vector<4xbf16>, !llvm.ptr<3>
// CHECK-NOT: cp.async
// CHECK: nvvm.barrier0
// CHECK: llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16"
// CHECK: llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16"
// CHECK: llvm.call_intrinsic "llvm.nvvm.mma.m16n8k16.row.col.bf16"
// CHECK: llvm.return
func.func @dot_registers(%a: !tile.ptr<bf16> {tile.alignment = 16 : i64}, %b: !tile.ptr<bf16> {tile.alignment = 16 : i64}, %c: !tile.ptr<f32>) attributes {tile.kernel, tile.num_warps = 4 : i32} {
  %pa = tile.splat %a : !tile.ptr<bf16> -> tensor<16x32x!tile.ptr<bf16>>
  %x = tile.load %pa : tensor<16x32x!tile.ptr<bf16>> -> tensor<16x32xbf16>
  %two = arith.constant dense<2.0> : tensor<16x32xbf16>
  %x2 = arith.mulf %x, %two : tensor<16x32xbf16>
  %pb = tile.splat %b : !tile.ptr<bf16> -> tensor<32x64x!tile.ptr<bf16>>
  %y = tile.load %pb : tensor<32x64x!tile.ptr<bf16>> -> tensor<32x64xbf16>
  tile.store %pb, %y : tensor<32x64x!tile.ptr<bf16>>, tensor<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %d = tile.dot %x2, %y, %zero : tensor<16x32xbf16>, tensor<32x64xbf16>, tensor<16x64xf32> -> tensor<16x64xf32>
  %pc = tile.splat %c : !tile.ptr<f32> -> tensor<16x64x!tile.ptr<f32>>
  tile.store %pc, %d : tensor<16x64x!tile.ptr<f32>>, tensor<16x64xf32>
  return
}
