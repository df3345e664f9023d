//===- TileWarnings.h - Warnings read off the tile layouts ------*- C++ -*-===//
//
// Two warnings megac can give before LLVM runs, from the layouts the tile
// passes assigned: a kernel whose tiles need more registers than its cap
// (held until ptxas has spoken, which may assemble it without spilling), and
// a kernel unrolled so far that its compile takes seconds.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Compiler.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <vector>

namespace megac {

/// Tiles with more elements per thread than this get a warning: the largest
/// of this repository's kernels hold 128, and a thread's 1024 already make
/// megac and ptxas take seconds.
inline constexpr int64_t kWideTileElementsPerThread = 1024;

/// Estimates each kernel's and variant's registers from its layouts and
/// records them in `out`. With `warn` (one target: the layouts are the same
/// for every target), warns at once, at its definition, about a widest tile
/// of more than kWideTileElementsPerThread elements a thread, and returns one
/// warning for each kernel or variant whose estimate passes its cap, to be
/// called after ptxas (each stays silent if ptxas assembled its kernel
/// without spills).
std::vector<std::function<void()>> layoutWarnings(mlir::ModuleOp module,
                                                  const CompileResult &result,
                                                  TargetOutput &out, bool warn);

} // namespace megac
