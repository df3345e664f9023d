//===- ManifestBuilder.h - The bundle's manifest of a module ----*- C++ -*-===//
//
// What the runtime needs to launch each kernel without the source: its
// parameters (dtypes, shapes as expressions, alignment, divisibility), its
// grid, and each variant's symbol, caps, condition, warps, grid and the
// elements its unmasked accesses reach.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "AccessBounds.h"
#include "Compiler.h"

#include "../irgen/IRGen.h"
#include "frontend/AST.h"
#include "megac/runtime/manifest.h"

#include <map>
#include <set>
#include <string>

namespace megac {

void buildManifest(const fe::Module &mod, const CompileResult &result,
                   const std::map<std::string, int64_t> &sharedBytes,
                   const VariantBodies &bodies, const std::set<std::string> &offsets64,
                   const std::map<std::string, std::vector<AccessBound>> &bounds,
                   rt::Manifest &m);

} // namespace megac
