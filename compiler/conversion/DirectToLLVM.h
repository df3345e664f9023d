#pragma once
// The arith, math and cf ops the lowering leaves, rewritten into their LLVM
// dialect twins in one walk.
//
// MLIR's dialect conversion (arith, math and cf to LLVM) does the same, one
// op for one op here since every type the lowering uses is already an LLVM
// type, but its driver (legality, a rewriter that records every change)
// spends most of its time on bookkeeping: 25 M of the 293 M instructions of
// attention's 32-row variant's compile, where this walk takes 6.7 M (the
// compile 4.6% less, callgrind). Each op is folded first, as the conversion
// folds it (x * 1, constants' arithmetic), then rewritten: ops it knows, with
// attributes it knows (fast-math and overflow flags, comparison predicates,
// constants' values); any other op is left in place, for the dialect
// conversion to take after it (lowerTileToLLVM runs it only when one is
// left). The test of the two agreeing: every kernel's LLVM dialect and PTX,
// identical with MEGAC_DIRECT_TO_LLVM=none (ctest direct_to_llvm_identity).

namespace mlir {
class ModuleOp;
}

namespace megac {

// Rewrites what it can; returns whether any arith, math or cf op is left.
bool rewriteToLLVMDirectly(mlir::ModuleOp module);

} // namespace megac
