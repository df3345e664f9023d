//===- SourceLocation.h - Byte ranges into source files ---------*- C++ -*-===//
//
// A range is a file id (from SourceManager) plus byte offsets; line and
// column are computed only when a diagnostic is printed, which keeps tokens
// and AST nodes small.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>

namespace megac::fe {

struct SourceRange {
  uint32_t file = 0;  // 0 means "no location" (e.g. command-line -D values)
  uint32_t begin = 0; // byte offset of the first character
  uint32_t end = 0;   // byte offset one past the last character

  bool isValid() const { return file != 0; }
  static SourceRange join(SourceRange a, SourceRange b) {
    if (!a.isValid())
      return b;
    if (!b.isValid() || a.file != b.file)
      return a;
    return {a.file, a.begin < b.begin ? a.begin : b.begin,
            a.end > b.end ? a.end : b.end};
  }
};

} // namespace megac::fe
