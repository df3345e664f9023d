// LLVM dialect -> LLVM IR -> PTX, in process, through the NVPTX TargetMachine.
#ifndef MEGAC_CODEGEN_PTXEMITTER_H
#define MEGAC_CODEGEN_PTXEMITTER_H

#include "mlir/IR/BuiltinOps.h"
#include <string>

namespace megac {

struct Target;

struct PTXOutput {
  std::string llvmIR; // after optimization, for --emit llvm-ir (keepIR)
  std::string ptx;
  // Where the time went, for --time-phases: translation to LLVM IR with
  // libdevice linked, LLVM's optimizer, NVPTX's code generation (with the
  // value-major order and the variants' PTX copies).
  double translateMs = 0, optimizeMs = 0, codegenMs = 0;
};

/// Translates `module` (LLVM + NVVM dialects only) to LLVM IR, links the
/// libdevice functions it calls, optimizes at O3 and emits PTX for `target`,
/// on the calling thread, in an LLVM context of its own (the driver compiles
/// a module's kernels on threads: driver/KernelThreads.h).
/// Errors go to the module's diagnostic handler. `keepIR`: also print the
/// optimized LLVM IR into PTXOutput::llvmIR.
mlir::FailureOr<PTXOutput> emitPTX(mlir::ModuleOp module, const Target &target,
                                   const std::string &libdevicePath,
                                   bool keepIR = false);

/// The libdevice bitcode: $MEGAC_LIBDEVICE, else under $CUDA_HOME or
/// /usr/local/cuda; empty when none is found.
std::string findLibdevice();

void registerTranslationDialects(mlir::DialectRegistry &registry);

} // namespace megac

#endif
