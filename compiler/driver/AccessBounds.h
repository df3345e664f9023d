//===- AccessBounds.h - Which elements a kernel's accesses reach -*- C++ -*-===//
//
// For every load, store and atomic of a kernel whose element offsets are
// affine in the program ids (or their quotients and remainders by a scalar:
// `program_id(0) / H`, `program_id(0) % H`, and a remainder's quotient:
// `program_id(0) % HV / (HV / HK)`), the tile indices and loop counters (a
// `where` on a constant is the value it picks), with scalar parameters and
// constants as coefficients, and whose mask, if it has one, bounds such
// indices one by one: the lowest and highest offset it reaches, as expressions the runtime evaluates at each launch
// (docs/runtime.md, Bounds). The runtime refuses a launch that would read or
// write past a tensor; megac refuses at compile time where every number is
// known.
//
// The bounds are exact, never wider than what runs: the terms are independent
// (each program id, tile dimension and loop counter is its own term; a
// program id's quotient and remainder by one divisor are bounded together,
// over the rows of programs they make, the last one perhaps partial), every
// value of each is reached (every CTA runs the access, every element, every
// trip), and an access counts only where it runs unconditionally but for its
// loops' trips and its mask (none under an `if`). A mask must be a
// conjunction of comparisons of indices with scalars, each index dense (it
// takes every value between its ends: `program_id(0) * 128 + arange(0, 128)`),
// no two sharing a term, the offset a multiple of each: the masked-in values
// of each index are then an interval, reached whole. Everything else is left
// out: offsets read from memory, divided or taken modulo (but a program id by
// a scalar), or carried by a loop; a pointer cast, selected or loaded; masks
// of other forms (loaded, causal, over an index that skips values).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "../irgen/IRGen.h"
#include "frontend/AST.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace megac {

/// Accesses whose offsets differ by a constant share one bound: `access` at
/// `loc` reaches the highest element, `minAccess` at `minLoc` the lowest.
/// The expressions read the integer scalars and rt::kBoundGridNames.
struct AccessBound {
  unsigned param = 0;   ///< the tensor parameter's index
  std::string access;   ///< "load", "store" or "atomic"
  mlir::Location loc;   ///< where the access is written
  std::string minAccess;
  mlir::Location minLoc;
  std::string when;     ///< "" (always), else when it runs: its loops have trips
  std::string min, max; ///< the lowest and highest element offset reached
  bool masked = false;  ///< a mask lets the accesses reach these elements
  /// min and max where the grid's constant dimensions decide them alone (no
  /// scalar parameter enters, and the access runs): for compile-time errors.
  std::optional<int64_t> knownMin, knownMax;
};

/// The bounds of `kernel`'s accesses, one for the accesses of a tensor whose
/// offsets differ by a constant only. `scalarNames[i]` is parameter i's name when it is a
/// signed integer scalar the runtime binds, else "". `grid` holds the kernel's
/// grid dimensions that are compile-time constants.
std::vector<AccessBound> accessBounds(mlir::func::FuncOp kernel,
                                      const std::vector<std::string> &scalarNames,
                                      const std::array<std::optional<int64_t>, 3> &grid);

/// accessBounds of every kernel and variant of `module` (the tile IR of
/// `mod`), by symbol. An access known at compile time to leave a tensor whose
/// shape is constant is an error, emitted on it; returns false after one.
bool moduleAccessBounds(mlir::ModuleOp module, const fe::Module &mod,
                        const std::map<std::string, std::vector<std::string>> &symbols,
                        const VariantBodies &bodies,
                        std::map<std::string, std::vector<AccessBound>> &out);

} // namespace megac
