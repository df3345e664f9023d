//===- SourceManager.h - Source buffers, files and line lookup --*- C++ -*-===//
//
// Owns the text of every file of a compilation. Files are read from disk,
// or from "virtual files" registered in advance (tests, the fuzzer, and
// drivers that already hold the text). File ids start at 1; 0 means "no
// location".
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace megac::fe {

class SourceManager {
public:
  /// Registers `text` under `path`; loadFile(path) then returns it without
  /// touching the disk.
  void addVirtualFile(const std::string &path, std::string text);

  /// Loads `path` (virtual files first, then disk) and returns its id; the
  /// same normalized path always gives the same id. On failure returns
  /// nullopt and sets `error` to a readable reason.
  std::optional<uint32_t> loadFile(const std::string &path, std::string &error);

  /// Adds an anonymous buffer (not reachable by path).
  uint32_t addBuffer(std::string name, std::string text);

  const std::string &name(uint32_t file) const { return entry(file).name; }
  const std::string &text(uint32_t file) const { return entry(file).text; }
  size_t numFiles() const { return files_.size(); }

  struct LineCol {
    uint32_t line = 0; // 1-based
    uint32_t col = 0;  // 1-based, in bytes
  };
  LineCol lineCol(uint32_t file, uint32_t offset) const;
  /// The text of 1-based `line` without its newline.
  std::string_view lineText(uint32_t file, uint32_t line) const;
  /// Byte offset where 1-based `line` starts.
  uint32_t lineStart(uint32_t file, uint32_t line) const;

  /// `import "rel"` inside `fromFile`: `rel` joined to the importing file's
  /// folder, lexically normalized ("a/./b/../c" -> "a/c").
  std::string resolveImport(uint32_t fromFile, const std::string &rel) const;
  static std::string normalizePath(const std::string &path);

private:
  struct Entry {
    std::string name;
    std::string text;
    std::vector<uint32_t> lineStarts; // offsets; computed on first use
  };
  const Entry &entry(uint32_t file) const;
  const std::vector<uint32_t> &lineStarts(uint32_t file) const;

  std::vector<Entry> files_; // files_[id - 1]
  mutable std::vector<bool> linesComputed_;
  std::map<std::string, std::string> virtualFiles_;
  std::map<std::string, uint32_t> idByPath_;
};

} // namespace megac::fe
