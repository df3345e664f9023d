// RUN: megac-opt %s -convert-tile-to-llvm | FileCheck %s

// tile.wait_prior_kernel {launch_dependents} (the frontend's default) lowers
// to one inline assembly block, wait then launch_dependents, with side
// effects and a memory clobber, between the loads it separates.
// CHECK-LABEL: llvm.func @early
// CHECK: "ld.global.b32 $0, [$1];", "=r,l" %arg0
// CHECK-NEXT: llvm.bitcast
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;\0A\09griddepcontrol.launch_dependents;", "~{memory}"  : () -> ()
// CHECK-NEXT: "ld.global.b32 $0, [$1];", "=r,l" %arg1
func.func @early(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.early_launch} {
  %a = tile.load %x : !tile.ptr<f32> -> f32
  tile.wait_prior_kernel {launch_dependents}
  %b = tile.load %y : !tile.ptr<f32> -> f32
  %s = arith.addf %a, %b : f32
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}

// Without the attribute the wait is only the wait; tile.launch_dependents is
// its own block, in its place: here at entry.
// CHECK-LABEL: llvm.func @trigger_first
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.launch_dependents;", "~{memory}"  : () -> ()
// CHECK: "ld.global.b32 $0, [$1];", "=r,l" %arg0
// CHECK-NEXT: llvm.bitcast
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;", "~{memory}"  : () -> ()
// CHECK-NEXT: "ld.global.b32 $0, [$1];", "=r,l" %arg1
// CHECK-NOT: griddepcontrol
func.func @trigger_first(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %out: !tile.ptr<f32>) attributes {tile.kernel, tile.early_launch} {
  tile.launch_dependents
  %a = tile.load %x : !tile.ptr<f32> -> f32
  tile.wait_prior_kernel
  %b = tile.load %y : !tile.ptr<f32> -> f32
  %s = arith.addf %a, %b : f32
  tile.store %out, %s : !tile.ptr<f32>, f32
  return
}
