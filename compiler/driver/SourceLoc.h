//===- SourceLoc.h - An op's location in the source -------------*- C++ -*-===//
//
// The location diagnostics and reports show for an op: under a variant's
// name (a NameLoc that IRGen wraps around its ops), the source line.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/IR/Location.h"

namespace megac {

/// The source location of an op of any variant.
inline mlir::Location sourceLoc(mlir::Location loc) {
  if (auto named = mlir::dyn_cast<mlir::NameLoc>(loc))
    return named.getChildLoc();
  return loc;
}

} // namespace megac
