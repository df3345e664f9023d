#pragma once
// `@value_major` kernels: their LLVM IR is reordered, before code
// generation, so that each value's chain of pure operations comes together
// instead of one tile operation at a time.
//
// The lowering emits a tile operation for all of a thread's values before
// the next operation (op-major): eight exps, then eight additions, then eight
// divisions. Where ptxas cannot reorder that code (a div.rn.f32 is a branch
// around a call to its slow path, and code does not move across it), every
// value of one step is live at once. shared_act_quant and gdn_norm_gate_fp8
// take 40 registers that way (12 CTAs of 128 threads a SM); value-major,
// 30-32 with no spill (16 CTAs), the same instructions in another order. On
// the H200 that was no faster (results/tuning_saq_gng_7770c7c.md): no kernel
// of kernels-dsl/ uses it.
//
// The order within each basic block: instructions that touch memory, have
// side effects, are convergent or are inline asm ("anchors", the loads
// among them) keep their relative order; every pure instruction moves to just
// before its first user in the block, placed depth first from the anchors in
// order, then from the values used after the block (by other blocks, or by
// phis: a loop's next values) in their order, then the terminator. A phi
// pulls nothing up. Dependencies and the anchors' order are kept, so the
// function computes the same; LLVM's verifier checks the result.

namespace llvm {
class BasicBlock;
class Function;
} // namespace llvm

namespace megac {

// The LLVM function attribute the lowering puts on @value_major kernels.
inline constexpr char kValueMajorAttr[] = "megac-value-major";

void orderValueMajor(llvm::BasicBlock &block);
void orderValueMajor(llvm::Function &function);

} // namespace megac
