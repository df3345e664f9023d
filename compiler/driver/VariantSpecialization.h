//===- VariantSpecialization.h - Variants' own constants --------*- C++ -*-===//
#pragma once

#include "../irgen/IRGen.h"
#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/Frontend.h"

#include "llvm/Support/ThreadPool.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace megac {

/// Variants that give constants other values (`@variant(small, BLOCK =
/// 2048, ...)`) are analyzed again with those values, like -D: each parses
/// the file again and checks its own kernel (the file's other kernels keep
/// their constants), the frontend's largest part for a kernel with variants. The constructor starts those analyses on `threads` (none:
/// finish() runs them), so that they run while the driver builds its MLIR
/// context; finish() waits for them.
///
/// The threads share `sm` only to read it: every file an analysis opens was
/// loaded by the parse of `mod` (the same imports whatever the constants),
/// and each analysis reports to a DiagnosticEngine of its own.
class VariantSpecializer {
public:
  VariantSpecializer(const fe::Module &mod, const std::string &path,
                     const fe::Defines &defines, fe::SourceManager &sm,
                     llvm::ThreadPoolInterface *threads);
  ~VariantSpecializer(); // waits for the analyses
  VariantSpecializer(const VariantSpecializer &) = delete;
  VariantSpecializer &operator=(const VariantSpecializer &) = delete;

  /// Waits for the analyses, reports their errors to `diags` (in the order
  /// of the variants in the file, as one thread would) and puts the variants'
  /// kernels into `bodies` (kept alive by `keep`). False after an error.
  bool finish(fe::DiagnosticEngine &diags,
              std::vector<std::unique_ptr<fe::Module>> &keep,
              VariantBodies &bodies);

private:
  struct Job {
    const fe::KernelDecl *kernel;
    const fe::Variant *variant;
    std::unique_ptr<fe::DiagnosticEngine> diags;
    std::unique_ptr<fe::Module> module;
  };
  void analyze(Job &job);

  const std::string path_;
  const fe::Defines defines_;
  fe::SourceManager &sm_;
  std::vector<Job> jobs_;
  std::optional<llvm::ThreadPoolTaskGroup> running_; // when on threads
};

} // namespace megac
