// A module's kernels lowered and compiled to PTX on threads.
//
// After the tile passes, the kernels are dealt into groups of about equal size
// (tile ops, the largest first into the smallest group), up to $MEGAC_THREADS
// of them (default: the hardware's). Each group's kernels are moved into a
// module of their own, in the one MLIR context, and one thread each lowers it
// (lowerTileToLLVM), translates it and compiles it to PTX (emitPTX) in an LLVM
// context of its own. mergePtxModules makes the parts one module's PTX, byte
// for byte what one thread would emit for the whole module.
#ifndef MEGAC_DRIVER_KERNELTHREADS_H
#define MEGAC_DRIVER_KERNELTHREADS_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <map>
#include <string>
#include <vector>

namespace megac {

struct Target;

struct KernelCode {
  std::string ptx;
  std::string llvmIR;                         // keepIR (one group)
  std::map<std::string, int64_t> sharedBytes; // by kernel symbol
  // Where the time went: the threads' lowering, translation, optimizer and
  // code generation, each a share of the wall time in proportion to the
  // threads' time in it.
  double loweringMs = 0, translateMs = 0, optimizeMs = 0, codegenMs = 0;
  unsigned threads = 1;
};

/// Lowers the kernels of `module` (tile IR after the passes) and compiles them
/// to PTX for `target`. `units` lists kernel symbols that must share a module
/// (a kernel and its variants that may compile to the same code, whose PTX is
/// then copied; PTXEmitter.cpp); a kernel in no unit is a unit of its own.
/// `keepIR`: one group, whose optimized LLVM IR is kept and which
/// `onLowered` (when set) sees in the LLVM dialect before translation, also
/// when translation or code generation then fails. `module` is consumed.
/// Errors go to the context's diagnostic handler.
mlir::FailureOr<KernelCode>
lowerAndCompile(mlir::ModuleOp module, const Target &target,
                const std::string &libdevicePath,
                const std::vector<std::vector<std::string>> &units, bool keepIR,
                llvm::function_ref<void(mlir::ModuleOp)> onLowered = {});

/// $MEGAC_THREADS, else the hardware's threads.
unsigned kernelThreads();

} // namespace megac

#endif
