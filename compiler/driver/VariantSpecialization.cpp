//===- VariantSpecialization.cpp - Variants with constants of their own ---===//
#include "VariantSpecialization.h"

#include "frontend/ASTPrinter.h"
#include "frontend/Sema.h"

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

VariantSpecializer::VariantSpecializer(const fe::Module &mod, const std::string &path,
                                       const fe::Defines &defines, fe::SourceManager &sm,
                                       llvm::ThreadPoolInterface *threads)
    : path_(path), defines_(defines), sm_(sm) {
  for (const fe::KernelDecl &k : mod.kernels())
    for (const fe::Variant &v : k.variants)
      if (!v.constants.empty())
        jobs_.push_back({&k, &v, std::make_unique<fe::DiagnosticEngine>(sm), nullptr});
  if (!threads || jobs_.empty())
    return;
  running_.emplace(*threads);
  for (Job &job : jobs_)
    running_->async([this, &job] { analyze(job); });
}

VariantSpecializer::~VariantSpecializer() {
  if (running_)
    running_->wait();
}

void VariantSpecializer::analyze(Job &job) {
  fe::Defines withVariant = defines_;
  for (const auto &[name, value] : job.variant->constants)
    withVariant[name] = std::to_string(value);
  job.module = fe::parseModule(sm_, path_, *job.diags);
  if (!job.module)
    return;
  // Only the variant's own kernel: the constants are its, and the file's
  // other kernels were checked with theirs (an error there under this
  // variant's values would not be the variant's).
  job.module->keepKernels({job.kernel->name});
  if (!fe::analyzeModule(*job.module, withVariant, *job.diags))
    job.module.reset();
}

bool VariantSpecializer::finish(fe::DiagnosticEngine &diags,
                                std::vector<std::unique_ptr<fe::Module>> &keep,
                                VariantBodies &bodies) {
  if (running_)
    running_->wait();
  bool ok = true;
  for (Job &job : jobs_) {
    if (!running_)
      analyze(job);
    const fe::KernelDecl &k = *job.kernel;
    const fe::Variant &v = *job.variant;
    std::string what = "variant '" + v.name + "' (" + describeConstants(v) + ")";
    if (!job.module || job.diags->hasErrors()) {
      for (const fe::Diagnostic &d : job.diags->diagnostics())
        if (d.severity == fe::Severity::Error)
          diags.error(d.range, "in " + what + ": " + d.message, d.hint);
      diags.note(v.range, what + " is declared here");
      ok = false;
      continue;
    }
    const fe::KernelDecl *body = job.module->findKernel(k.name);
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
    keep.push_back(std::move(job.module));
  }
  jobs_.clear();
  return ok;
}

} // namespace megac
