//===- SourceManager.cpp --------------------------------------------------===//
#include "frontend/SourceManager.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace megac::fe {

void SourceManager::addVirtualFile(const std::string &path, std::string text) {
  virtualFiles_[normalizePath(path)] = std::move(text);
}

std::optional<uint32_t> SourceManager::loadFile(const std::string &path,
                                                std::string &error) {
  std::string norm = normalizePath(path);
  if (auto it = idByPath_.find(norm); it != idByPath_.end())
    return it->second;
  std::string text;
  if (auto it = virtualFiles_.find(norm); it != virtualFiles_.end()) {
    text = it->second;
  } else {
    // A directory opens as a stream that reads nothing, which would compile
    // as an empty file.
    std::error_code ec;
    if (std::filesystem::is_directory(norm, ec)) {
      error = "cannot open '" + path + "': it is a directory";
      return std::nullopt;
    }
    std::ifstream in(norm, std::ios::binary);
    if (!in) {
      error = "cannot open '" + path + "': " + std::strerror(errno);
      return std::nullopt;
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    text = ss.str();
  }
  uint32_t id = addBuffer(norm, std::move(text));
  idByPath_[norm] = id;
  return id;
}

uint32_t SourceManager::addBuffer(std::string name, std::string text) {
  files_.push_back({std::move(name), std::move(text), {}});
  linesComputed_.push_back(false);
  return static_cast<uint32_t>(files_.size());
}

const SourceManager::Entry &SourceManager::entry(uint32_t file) const {
  static const Entry kNone{"<command line>", "", {0}};
  if (file == 0 || file > files_.size())
    return kNone;
  return files_[file - 1];
}

const std::vector<uint32_t> &SourceManager::lineStarts(uint32_t file) const {
  const Entry &e = entry(file);
  if (file == 0 || file > files_.size() || linesComputed_[file - 1])
    return e.lineStarts;
  // Computed lazily: most files never get a diagnostic.
  auto &starts = const_cast<Entry &>(e).lineStarts;
  starts.push_back(0);
  for (uint32_t i = 0; i < e.text.size(); ++i)
    if (e.text[i] == '\n')
      starts.push_back(i + 1);
  linesComputed_[file - 1] = true;
  return starts;
}

SourceManager::LineCol SourceManager::lineCol(uint32_t file,
                                              uint32_t offset) const {
  const std::vector<uint32_t> &starts = lineStarts(file);
  if (starts.empty())
    return {1, 1};
  auto it = std::upper_bound(starts.begin(), starts.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - starts.begin()); // >= 1
  return {line, offset - starts[line - 1] + 1};
}

uint32_t SourceManager::lineStart(uint32_t file, uint32_t line) const {
  const std::vector<uint32_t> &starts = lineStarts(file);
  if (line == 0 || line > starts.size())
    return 0;
  return starts[line - 1];
}

std::string_view SourceManager::lineText(uint32_t file, uint32_t line) const {
  const std::vector<uint32_t> &starts = lineStarts(file);
  if (line == 0 || line > starts.size())
    return {};
  const std::string &text = entry(file).text;
  uint32_t begin = starts[line - 1];
  uint32_t end = line < starts.size() ? starts[line] - 1
                                      : static_cast<uint32_t>(text.size());
  if (end > begin && text[end - 1] == '\r')
    --end;
  return std::string_view(text).substr(begin, end - begin);
}

std::string SourceManager::normalizePath(const std::string &path) {
  bool absolute = !path.empty() && path[0] == '/';
  std::vector<std::string> parts;
  std::stringstream ss(path);
  std::string part;
  while (std::getline(ss, part, '/')) {
    if (part.empty() || part == ".")
      continue;
    if (part == ".." && !parts.empty() && parts.back() != "..")
      parts.pop_back();
    else if (part != ".." || !absolute)
      parts.push_back(part);
  }
  std::string out = absolute ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i)
    out += (i ? "/" : "") + parts[i];
  return out.empty() ? "." : out;
}

std::string SourceManager::resolveImport(uint32_t fromFile,
                                         const std::string &rel) const {
  if (!rel.empty() && rel[0] == '/')
    return normalizePath(rel);
  const std::string &from = name(fromFile);
  size_t slash = from.rfind('/');
  std::string dir = slash == std::string::npos ? "" : from.substr(0, slash + 1);
  return normalizePath(dir + rel);
}

} // namespace megac::fe
