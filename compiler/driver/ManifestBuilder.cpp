//===- ManifestBuilder.cpp - The bundle's manifest of a module ------------===//
#include "ManifestBuilder.h"

#include "SourceLoc.h"
#include "frontend/ASTPrinter.h"
#include "megac/runtime/dtype.h"

#include "llvm/Support/Path.h"

#include <array>
#include <optional>

namespace megac {
namespace {

// The language and the runtime spell element types alike (frontend/Types.cpp,
// runtime/dtype.cpp; frontend_tests ElementTypes.RuntimeSpellsEveryOneAlike).
rt::DType toDType(fe::ScalarKind k) {
  return rt::parseDType(fe::scalarKindName(k)).value();
}

/// A kernel's grid as the manifest spells it: three expressions, "1" for the
/// dimensions it leaves out.
std::array<std::string, 3> manifestGrid(const fe::KernelDecl &k) {
  std::array<std::string, 3> grid = {"1", "1", "1"};
  for (size_t i = 0; i < k.grid.size() && i < 3; ++i)
    grid[i] = fe::manifestExpr(*k.grid[i]);
  return grid;
}

/// FILE:LINE:COL of a source location (the file's name, not its path).
std::string where(mlir::Location loc) {
  auto flc = mlir::dyn_cast<mlir::FileLineColLoc>(sourceLoc(loc));
  if (!flc)
    return "";
  llvm::StringRef file = llvm::sys::path::filename(flc.getFilename().getValue());
  return (file + ":" + llvm::Twine(flc.getLine()) + ":" + llvm::Twine(flc.getColumn())).str();
}

} // namespace

void buildManifest(const fe::Module &mod, const CompileResult &result,
                   const std::map<std::string, int64_t> &sharedBytes,
                   const VariantBodies &bodies, const std::set<std::string> &offsets64,
                   const std::map<std::string, std::vector<AccessBound>> &bounds,
                   rt::Manifest &m) {
  m.compilerVersion = compilerVersion();
  m.module = result.moduleName;
  for (const fe::KernelDecl &k : mod.kernels()) {
    rt::KernelInfo info;
    info.name = k.name;
    info.numWarps = int(k.numWarps);
    info.grid = manifestGrid(k);
    info.earlyLaunch = k.earlyLaunch;
    for (const std::string &symbol : result.symbols.at(k.name))
      info.offsets64 = info.offsets64 || offsets64.count(symbol);
    for (const fe::ParamDecl &p : k.params) {
      rt::ParamInfo param;
      param.name = p.var->name;
      param.dtype = toDType(p.var->type.elem.scalar);
      if (p.var->type.isPointer()) {
        param.kind = rt::ParamKind::Tensor;
        param.align = p.align;
        for (const fe::ExprPtr &d : p.shape)
          param.shape.push_back(fe::manifestExpr(*d));
      } else {
        param.kind = rt::ParamKind::Scalar;
        param.multipleOf = p.multipleOf.value_or(1);
      }
      info.params.push_back(param);
    }
    auto addVariant = [&](const std::string &name, const std::string &symbol,
                          std::optional<int64_t> maxnreg,
                          std::optional<int64_t> minCtas, const fe::Expr *when,
                          std::optional<int64_t> numWarps, std::optional<bool> early) {
      rt::VariantInfo v;
      v.name = name;
      v.symbol = symbol;
      v.maxnreg = int(maxnreg.value_or(0));
      v.minCtasPerSm = int(minCtas.value_or(0));
      v.when = when ? fe::manifestExpr(*when) : "";
      if (numWarps && *numWarps != k.numWarps)
        v.numWarps = int(*numWarps);
      if (early && *early != k.earlyLaunch)
        v.earlyLaunch = *early;
      // A variant whose constants change the grid launches its own.
      auto body = bodies.find(symbol);
      if (body != bodies.end()) {
        std::array<std::string, 3> grid = manifestGrid(*body->second);
        if (grid != info.grid)
          v.grid.assign(grid.begin(), grid.end());
      }
      if (auto found = bounds.find(symbol); found != bounds.end())
        for (const AccessBound &b : found->second) {
          rt::AccessBoundInfo info{k.params[b.param].var->name, b.access, where(b.loc), b.when,
                                   b.min, b.max, "", "", b.masked};
          // The access that reaches lowest, where it is another.
          if (b.minLoc != b.loc) {
            info.minAccess = b.minAccess;
            info.minAt = where(b.minLoc);
          }
          v.bounds.push_back(std::move(info));
        }
      info.variants.push_back(v);
      auto it = sharedBytes.find(symbol);
      if (it != sharedBytes.end())
        info.sharedBytes = std::max(info.sharedBytes, it->second);
    };
    for (const fe::Variant &v : k.variants)
      addVariant(v.name, variantSymbol(k.name, v.name),
                 v.maxnreg ? v.maxnreg : k.maxnreg,
                 v.minCtasPerSm ? v.minCtasPerSm : k.minCtasPerSm, v.when.get(),
                 v.numWarps, v.earlyLaunch);
    addVariant("default", k.name, k.maxnreg, k.minCtasPerSm, nullptr, std::nullopt,
               std::nullopt);
    m.kernels.push_back(std::move(info));
  }
}

} // namespace megac
