// RUN: megac-opt %s -split-input-file -elide-redundant-barriers | FileCheck %s

// A barrier stays only where some shared-memory access before it (since the
// previous barrier, on some path) and one after it (before the next, on some
// path) touch the same buffer, at least one of them a write.

llvm.mlir.global internal @a() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>
llvm.mlir.global internal @b() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>

// The kernel's first exchange: nothing before the first barrier. The second
// exchange writes the other buffer than the one the first read (a reduction
// pair, as the lowering places them): its first barrier goes too. Each
// barrier between stores and the loads of the same buffer stays.
// CHECK-LABEL: llvm.func @two_exchanges
// CHECK-NEXT: llvm.mlir.addressof @a
// CHECK-NEXT: llvm.mlir.addressof @b
// CHECK-NEXT: llvm.getelementptr
// CHECK-NEXT: llvm.store
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load
// CHECK-NEXT: llvm.store
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load
// CHECK-NEXT: llvm.return
llvm.func @two_exchanges(%v: f32, %i: i32) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  %b = llvm.mlir.addressof @b : !llvm.ptr<3>
  %slot = llvm.getelementptr %a[%i] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, f32
  nvvm.barrier0
  llvm.store %v, %slot : f32, !llvm.ptr<3>
  nvvm.barrier0
  %x = llvm.load %a : !llvm.ptr<3> -> f32
  nvvm.barrier0
  llvm.store %x, %b : f32, !llvm.ptr<3>
  nvvm.barrier0
  %y = llvm.load %b : !llvm.ptr<3> -> f32
  llvm.return
}

// Two exchanges in the same buffer: the second's stores overwrite what the
// first's loads may still be reading (write after read), so its first barrier
// stays.
// CHECK-LABEL: llvm.func @same_buffer
// CHECK: llvm.load
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load
llvm.func @same_buffer(%v: f32) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  nvvm.barrier0
  llvm.store %v, %a : f32, !llvm.ptr<3>
  nvvm.barrier0
  %x = llvm.load %a : !llvm.ptr<3> -> f32
  nvvm.barrier0
  llvm.store %x, %a : f32, !llvm.ptr<3>
  nvvm.barrier0
  %y = llvm.load %a : !llvm.ptr<3> -> f32
  llvm.return
}

// Global memory and registers are not shared memory: loads and stores in
// address space 1, inline assembly on global memory, shuffles and libdevice
// calls before the first barrier leave it nothing to order. After the last
// loads nothing touches shared memory before the kernel returns: a barrier
// there goes too.
// CHECK-LABEL: llvm.func @global_only
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.store {{.*}} !llvm.ptr<3>
// CHECK-NEXT: nvvm.barrier0
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
llvm.func @__nv_expf(f32) -> f32
llvm.func @global_only(%g: !llvm.ptr<1>, %m: i32) {
  %v = llvm.load %g : !llvm.ptr<1> -> f32
  %w = llvm.inline_asm has_side_effects "ld.global.b32 $0, [$1];", "=r,l" %g : (!llvm.ptr<1>) -> i32
  %e = llvm.call @__nv_expf(%v) : (f32) -> f32
  %s = nvvm.shfl.sync bfly %m, %e, %m, %m : f32 -> f32
  llvm.store %s, %g : f32, !llvm.ptr<1>
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  nvvm.barrier0
  llvm.store %s, %a : f32, !llvm.ptr<3>
  nvvm.barrier0
  %x = llvm.load %a : !llvm.ptr<3> -> f32
  nvvm.barrier0
  llvm.store %x, %g : f32, !llvm.ptr<1>
  llvm.return
}

// -----

llvm.mlir.global internal @a() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>

// A loop whose body reduces through one buffer: the next trip's stores follow
// this trip's loads around the back edge, so the barrier before them stays,
// although nothing precedes it in its block.
// CHECK-LABEL: llvm.func @loop
// CHECK: ^bb1({{.*}}):
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.load
llvm.func @loop(%v: f32, %n: i32) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  llvm.br ^bb1(%c0 : i32)
^bb1(%i: i32):
  nvvm.barrier0
  llvm.store %v, %a : f32, !llvm.ptr<3>
  nvvm.barrier0
  %x = llvm.load %a : !llvm.ptr<3> -> f32
  %next = llvm.add %i, %c1 : i32
  %more = llvm.icmp "slt" %next, %n : i32
  llvm.cond_br %more, ^bb1(%next : i32), ^bb2
^bb2:
  llvm.return
}

// -----

llvm.mlir.global internal @a() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<64 x i8>

// Accesses the pass cannot place conflict with every access: a pointer into
// shared memory that is not an offset of a shared global, inline assembly on
// shared memory, an intrinsic it does not know (ldmatrix) and a call.
// CHECK-LABEL: llvm.func @unknown_pointer
// CHECK: llvm.load
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.store
llvm.func @unknown_pointer(%p: !llvm.ptr<3>, %v: f32) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  %x = llvm.load %p : !llvm.ptr<3> -> f32
  nvvm.barrier0
  llvm.store %v, %a : f32, !llvm.ptr<3>
  llvm.return
}

// CHECK-LABEL: llvm.func @shared_asm
// CHECK: llvm.inline_asm
// CHECK-NEXT: nvvm.barrier0
llvm.func @shared_asm(%v: f32, %q: i64) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  %x = llvm.inline_asm has_side_effects "ld.shared.b32 $0, [$1];", "=r,l" %q : (i64) -> i32
  nvvm.barrier0
  llvm.store %v, %a : f32, !llvm.ptr<3>
  llvm.return
}

// CHECK-LABEL: llvm.func @ldmatrix
// CHECK: llvm.call_intrinsic
// CHECK-NEXT: nvvm.barrier0
llvm.func @ldmatrix(%v: f32) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  %x = llvm.call_intrinsic "llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16"(%a) : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  nvvm.barrier0
  llvm.store %v, %a : f32, !llvm.ptr<3>
  llvm.return
}

// CHECK-LABEL: llvm.func @call
// CHECK: llvm.call @helper
// CHECK-NEXT: nvvm.barrier0
llvm.func @helper()
llvm.func @call(%v: f32) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  llvm.call @helper() : () -> ()
  nvvm.barrier0
  llvm.store %v, %a : f32, !llvm.ptr<3>
  llvm.return
}

// A barrier after which a branch reaches shared stores on one path: the
// paths join, and the read before it conflicts with the store on that path.
// CHECK-LABEL: llvm.func @branch
// CHECK: llvm.load
// CHECK-NEXT: nvvm.barrier0
// CHECK-NEXT: llvm.cond_br
llvm.func @branch(%c: i1, %v: f32) {
  %a = llvm.mlir.addressof @a : !llvm.ptr<3>
  %x = llvm.load %a : !llvm.ptr<3> -> f32
  nvvm.barrier0
  llvm.cond_br %c, ^bb1, ^bb2
^bb1:
  llvm.store %v, %a : f32, !llvm.ptr<3>
  llvm.br ^bb2
^bb2:
  llvm.return
}
