//===- Diagnostics.h - Collecting and formatting diagnostics ----*- C++ -*-===//
//
// Each diagnostic prints as
//
//   file:line:col: error: message
//     let y = offz + 1;
//             ^~~~
//   hint: did you mean 'offs'?
//
// After `maxErrors` errors a "too many errors" note is recorded and
// everything after is dropped; callers poll limitReached() to stop early.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/SourceLocation.h"

#include <string>
#include <vector>

namespace megac::fe {

class SourceManager;

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
  std::string hint; // empty: none
};

class DiagnosticEngine {
public:
  explicit DiagnosticEngine(const SourceManager &sm, unsigned maxErrors = 20)
      : sm_(sm), maxErrors_(maxErrors) {}

  void error(SourceRange range, std::string message, std::string hint = {});
  void warning(SourceRange range, std::string message, std::string hint = {});
  void note(SourceRange range, std::string message);

  bool hasErrors() const { return errorCount_ > 0; }
  unsigned errorCount() const { return errorCount_; }
  bool limitReached() const { return errorCount_ >= maxErrors_; }
  const std::vector<Diagnostic> &diagnostics() const { return diags_; }

  /// All diagnostics, formatted, in the order reported.
  std::string formatted() const;
  std::string format(const Diagnostic &d) const;

private:
  void report(Severity sev, SourceRange range, std::string message,
              std::string hint);

  const SourceManager &sm_;
  unsigned maxErrors_;
  unsigned errorCount_ = 0;
  bool truncated_ = false;
  std::vector<Diagnostic> diags_;
};

} // namespace megac::fe
