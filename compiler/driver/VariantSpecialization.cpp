//===- VariantSpecialization.cpp - Variants with constants of their own ---===//
#include "VariantSpecialization.h"

#include "frontend/ASTPrinter.h"

#include <utility>

namespace megac {
namespace {

/// The parameter interface of a kernel as the manifest spells it: (what,
/// expr) for the parameter shapes. A variant must keep it (one manifest
/// entry per kernel); its grid may differ (the manifest records it).
std::vector<std::pair<std::string, std::string>>
launchInterface(const fe::KernelDecl &k) {
  std::vector<std::pair<std::string, std::string>> parts;
  for (const fe::ParamDecl &p : k.params)
    for (const fe::ExprPtr &d : p.shape)
      parts.emplace_back("shape of '" + p.var->name + "'", fe::manifestExpr(*d));
  return parts;
}

std::string describeConstants(const fe::Variant &v) {
  std::string text;
  for (const auto &[name, value] : v.constants)
    text += (text.empty() ? "" : ", ") + name + " = " + std::to_string(value);
  return text;
}

} // namespace

bool specializeVariants(const fe::Module &mod, const std::string &path,
                        const fe::Defines &defines, fe::SourceManager &sm,
                        fe::DiagnosticEngine &diags,
                        std::vector<std::unique_ptr<fe::Module>> &keep,
                        VariantBodies &bodies) {
  bool ok = true;
  for (const fe::KernelDecl &k : mod.kernels())
    for (const fe::Variant &v : k.variants) {
      if (v.constants.empty())
        continue;
      fe::Defines withVariant = defines;
      for (const auto &[name, value] : v.constants)
        withVariant[name] = std::to_string(value);
      std::string what = "variant '" + v.name + "' (" + describeConstants(v) + ")";
      fe::DiagnosticEngine local(sm);
      std::unique_ptr<fe::Module> spec =
          fe::parseAndAnalyze(sm, path, withVariant, local);
      if (!spec || local.hasErrors()) {
        for (const fe::Diagnostic &d : local.diagnostics())
          if (d.severity == fe::Severity::Error)
            diags.error(d.range, "in " + what + ": " + d.message, d.hint);
        diags.note(v.range, what + " is declared here");
        ok = false;
        continue;
      }
      const fe::KernelDecl *body = spec->findKernel(k.name);
      auto before = launchInterface(k), after = launchInterface(*body);
      for (size_t i = 0; i < before.size(); ++i)
        if (before[i] != after[i]) {
          diags.error(v.range,
                      what + " changes the " + before[i].first + " from '" +
                          before[i].second + "' to '" + after[i].second + "'",
                      "a variant's constants may change the kernel body and its grid; the "
                      "parameter shapes are the kernel's (one manifest entry)");
          ok = false;
          break;
        }
      bodies[variantSymbol(k.name, v.name)] = body;
      keep.push_back(std::move(spec));
    }
  return ok;
}

} // namespace megac
