//===- LayoutReport.h - megac --emit layouts --------------------*- C++ -*-===//
//
// Each kernel's distinct tile types after layout assignment, with registers
// per thread (and, in full, which thread and register hold each element),
// and every conversion through shared memory with its bank conflicts.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Compiler.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace megac {

std::string describeLayouts(mlir::ModuleOp module, const TargetOutput &out, bool full);

} // namespace megac
