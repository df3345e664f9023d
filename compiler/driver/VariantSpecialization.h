//===- VariantSpecialization.h - Variants' own constants --------*- C++ -*-===//
#pragma once

#include "../irgen/IRGen.h"
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Frontend.h"

#include <memory>
#include <string>
#include <vector>

namespace megac {

/// Variants that give constants other values (`@variant(small, BLOCK =
/// 2048, ...)`) are analyzed again with those values, like -D; their kernels
/// go into `bodies` (kept alive by `keep`). False after an error.
bool specializeVariants(const fe::Module &mod, const std::string &path,
                        const fe::Defines &defines, fe::SourceManager &sm,
                        fe::DiagnosticEngine &diags,
                        std::vector<std::unique_ptr<fe::Module>> &keep,
                        VariantBodies &bodies);

} // namespace megac
