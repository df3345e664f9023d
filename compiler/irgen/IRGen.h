// Typed AST -> tile dialect. Sema has resolved every name, type, broadcast
// and helper call; this only maps each construct to its ops.
#ifndef MEGAC_IRGEN_IRGEN_H
#define MEGAC_IRGEN_IRGEN_H

#include "frontend/AST.h"
#include "frontend/SourceManager.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <string>

namespace megac {

/// Kernel bodies to emit a variant from, by variant symbol: the kernel as
/// analyzed with the variant's constants (see fe::Variant::constants).
using VariantBodies = std::map<std::string, const fe::KernelDecl *>;

/// Builds one func.func per kernel of `module`'s root file, plus one per
/// declared variant (named `<kernel>__<variant>`, its body from `bodies` when
/// listed there). Errors are emitted as MLIR diagnostics at the construct's
/// location; returns null on error.
mlir::OwningOpRef<mlir::ModuleOp> emitTileIR(mlir::MLIRContext &ctx,
                                             const fe::Module &module,
                                             const fe::SourceManager &sm,
                                             const VariantBodies &bodies = {});

/// The symbol of a kernel variant.
std::string variantSymbol(const std::string &kernel, const std::string &variant);

} // namespace megac

#endif
