#pragma once
// The LLVM dialect module of megac's lowering, translated into LLVM IR op by
// op with an IRBuilder, as MLIR's translation (translateModuleToLLVMIR)
// translates it.
//
// MLIR's translation finds each op's translation through the dialect
// interfaces, rebuilds each op's attributes as a dictionary to look for
// dialect attributes (getAttrDictionary: 9.3 M instructions for attention's
// 32-row variant), and walks the whole module once more for debug-info
// expressions the lowering never makes: 20.7 M instructions of that
// variant's 270 M compile, where this walk takes about 4 M. It knows the
// ops, attributes and function attributes megac's lowering makes (the LLVM
// dialect's arithmetic, memory, control flow and calls, a few NVVM ops) and
// creates the same instructions through the same builder calls, in the same
// order; a module with any other op or attribute gets nullptr, and
// translateModuleToLLVMIR translates it. The test of the two agreeing: every
// kernel's LLVM IR and PTX identical with MEGAC_DIRECT_TO_LLVM=none
// (ctest direct_to_llvm_identity).

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace mlir {
class ModuleOp;
}

namespace megac {

// The module in LLVM IR, or nullptr if it holds an op or attribute this
// translation does not know.
std::unique_ptr<llvm::Module> translateDirectly(mlir::ModuleOp module, llvm::LLVMContext &context);

} // namespace megac
