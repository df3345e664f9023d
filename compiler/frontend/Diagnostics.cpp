//===- Diagnostics.cpp ----------------------------------------------------===//
#include "frontend/Diagnostics.h"

#include "frontend/SourceManager.h"

namespace megac::fe {

void DiagnosticEngine::error(SourceRange range, std::string message,
                             std::string hint) {
  report(Severity::Error, range, std::move(message), std::move(hint));
}

void DiagnosticEngine::warning(SourceRange range, std::string message,
                               std::string hint) {
  report(Severity::Warning, range, std::move(message), std::move(hint));
}

void DiagnosticEngine::note(SourceRange range, std::string message) {
  report(Severity::Note, range, std::move(message), {});
}

void DiagnosticEngine::report(Severity sev, SourceRange range,
                              std::string message, std::string hint) {
  if (truncated_)
    return;
  if (sev == Severity::Error)
    ++errorCount_;
  diags_.push_back({sev, range, std::move(message), std::move(hint)});
  if (errorCount_ == maxErrors_) {
    // At the cap: say we stop, then drop everything else.
    diags_.push_back(
        {Severity::Note,
         {},
         "too many errors (" + std::to_string(maxErrors_) + "), stopping now",
         {}});
    truncated_ = true;
  }
}

/// Source text is shown as-is except that control bytes (NUL, tabs, junk)
/// become spaces so the caret line stays aligned, and bytes >= 0x80 are
/// kept (UTF-8 displays as written; invalid bytes are the terminal's
/// problem, not a crash).
static std::string printableLine(std::string_view line) {
  std::string out(line);
  for (char &c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = ' ';
  return out;
}

std::string DiagnosticEngine::format(const Diagnostic &d) const {
  static const char *const kSeverity[] = {"error", "warning", "note"};
  std::string out;
  std::string sev = kSeverity[static_cast<int>(d.severity)];
  if (!d.range.isValid()) {
    out = sm_.name(0) + ": " + sev + ": " + d.message + "\n";
  } else {
    SourceManager::LineCol lc = sm_.lineCol(d.range.file, d.range.begin);
    out = sm_.name(d.range.file) + ":" + std::to_string(lc.line) + ":" +
          std::to_string(lc.col) + ": " + sev + ": " + d.message + "\n";
    std::string_view line = sm_.lineText(d.range.file, lc.line);
    out += printableLine(line) + "\n";
    // Underline the range, clipped to the first line.
    size_t col = lc.col - 1;
    size_t len = d.range.end > d.range.begin ? d.range.end - d.range.begin : 1;
    if (col > line.size())
      col = line.size();
    if (col + len > line.size())
      len = line.size() > col ? line.size() - col : 1;
    out += std::string(col, ' ') + "^" + std::string(len - 1, '~') + "\n";
  }
  if (!d.hint.empty())
    out += "hint: " + d.hint + "\n";
  return out;
}

std::string DiagnosticEngine::formatted() const {
  std::string out;
  for (const Diagnostic &d : diags_)
    out += format(d);
  return out;
}

} // namespace megac::fe
