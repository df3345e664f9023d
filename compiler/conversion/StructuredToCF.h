#pragma once
// scf.for and scf.if rewritten into blocks and cf branches in one walk.
//
// MLIR's SCF-to-ControlFlow pass does the same through its dialect
// conversion, whose driver visits every op of the module to check its
// legality: 4.9 M of the instructions of attention's 32-row variant's
// compile, for its handful of loops and branches (about 3600 ops). This walk
// visits the ops once and rewrites only the loops and branches, building the
// blocks and ops the pass builds, in the same places (a loop: its condition
// block with the induction variable and the carried values, the body, the
// step and the branch back; a branch: the then and else blocks, then the
// continuation with the results). The test of the two agreeing: every
// kernel's LLVM dialect and PTX, identical with MEGAC_DIRECT_TO_LLVM=none,
// which runs the pass instead (ctest direct_to_llvm_identity).

namespace mlir {
class ModuleOp;
}

namespace megac {

// Rewrites every scf.for and scf.if; returns false, having changed nothing,
// when the module holds another scf op (the pass is then needed).
bool lowerStructuredControlFlow(mlir::ModuleOp module);

} // namespace megac
