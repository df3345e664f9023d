#include "PtxClone.h"

#include <algorithm>

namespace megac {
namespace {

// One kernel's text: from ".visible .entry NAME(" through its closing "}\n".
struct Entry {
  std::string name;
  std::string globl;  // "\t// .globl\tNAME\n" and what NVPTX printed before the entry
  std::string body;   // ".visible .entry NAME(" ... "}\n"
};

const std::string kGlobl = "\t// .globl\t";

// The module: a header, then entries, each opened by its `.globl` comment.
bool split(const std::string &ptx, std::string &header, std::vector<Entry> &entries) {
  size_t at = ptx.find(kGlobl);
  if (at == std::string::npos)
    return false;
  header = ptx.substr(0, at);
  while (at != std::string::npos && at < ptx.size()) {
    Entry e;
    size_t nameEnd = ptx.find('\n', at);
    e.name = ptx.substr(at + kGlobl.size(), nameEnd - at - kGlobl.size());
    size_t entry = ptx.find(".visible .entry " + e.name + "(", nameEnd);
    size_t close = ptx.find("\n}\n", entry);
    if (entry == std::string::npos || close == std::string::npos)
      return false;
    e.globl = ptx.substr(at, entry - at);
    e.body = ptx.substr(entry, close + 3 - entry);
    size_t next = close + 3;
    if (next < ptx.size() && ptx.compare(next, kGlobl.size(), kGlobl) != 0)
      return false; // something else between entries (a .func, a global): not ours
    at = next < ptx.size() ? next : std::string::npos;
    entries.push_back(std::move(e));
  }
  return true;
}

std::string replaceAll(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Every "$L__BB<n>_" of a function as "$L__BB<number>_".
std::string renumberLabels(const std::string &body, size_t number) {
  static const std::string prefix = "$L__BB";
  std::string out, digits = std::to_string(number);
  size_t from = 0;
  for (size_t at = body.find(prefix); at != std::string::npos; at = body.find(prefix, from)) {
    size_t end = at + prefix.size();
    while (end < body.size() && body[end] >= '0' && body[end] <= '9')
      ++end;
    out.append(body, from, at + prefix.size() - from);
    out += end < body.size() && body[end] == '_' && end > at + prefix.size()
               ? digits
               : body.substr(at + prefix.size(), end - at - prefix.size());
    from = end;
  }
  return out + body.substr(from);
}

// The module's text: the header, then each entry with its labels numbered
// by the entry's place, as NVPTX numbers a function's labels.
std::string join(const std::string &header, const std::vector<Entry> &entries) {
  std::string out = header;
  for (size_t i = 0; i < entries.size(); ++i)
    out += entries[i].globl + renumberLabels(entries[i].body, i);
  return out;
}

// The kernel's body under `name`, with the variant's directives after
// `.maxntid` (NVPTX prints .minnctapersm, then .maxnreg).
std::string copyBody(const Entry &of, const PtxCopy &copy) {
  std::string body = replaceAll(of.body, ".visible .entry " + of.name + "(",
                                ".visible .entry " + copy.name + "(");
  body = replaceAll(body, of.name + "_param_", copy.name + "_param_");
  for (const char *directive : {"\n.minnctapersm ", "\n.maxnreg "}) {
    size_t at = body.find(directive);
    if (at != std::string::npos)
      body.erase(at, body.find('\n', at + 1) - at);
  }
  size_t maxntid = body.find("\n.maxntid ");
  if (maxntid == std::string::npos)
    return "";
  size_t lineEnd = body.find('\n', maxntid + 1);
  std::string directives;
  if (copy.minCtasPerSm)
    directives += "\n.minnctapersm " + std::to_string(copy.minCtasPerSm);
  if (copy.maxnreg)
    directives += "\n.maxnreg " + std::to_string(copy.maxnreg);
  body.insert(lineEnd, directives);
  return body;
}

} // namespace

std::string addPtxCopies(const std::string &ptx, const std::vector<PtxCopy> &copies) {
  std::string header;
  std::vector<Entry> entries;
  if (!split(ptx, header, entries))
    return "";
  auto find = [&](const std::string &name) {
    for (size_t i = 0; i < entries.size(); ++i)
      if (entries[i].name == name)
        return int(i);
    return -1;
  };
  for (const PtxCopy &copy : copies) {
    int of = find(copy.of);
    int before = copy.before.empty() ? int(entries.size()) : find(copy.before);
    if (of < 0 || before < 0)
      return "";
    Entry e{copy.name, kGlobl + copy.name + "\n", copyBody(entries[size_t(of)], copy)};
    if (e.body.empty())
      return "";
    entries.insert(entries.begin() + before, std::move(e));
  }
  return join(header, entries);
}

std::string mergePtxModules(const std::vector<std::string> &parts,
                            const std::vector<std::string> &entryOrder,
                            const std::vector<std::string> &globalOrder) {
  std::string header;
  std::vector<Entry> entries;
  std::vector<std::pair<size_t, std::string>> demoted; // (place in globalOrder, line)
  static const std::string kDemoted = " has been demoted";
  for (const std::string &part : parts) {
    std::string partHeader;
    std::vector<Entry> partEntries;
    if (!split(part, partHeader, partEntries) || partEntries.empty())
      return "";
    if (header.empty())
      header = partHeader;
    else if (partHeader != header)
      return "";
    // The first entry's comment block: its `.globl` line, a line for each
    // shared global demoted into a kernel of the part, an empty line.
    for (size_t i = 0; i < partEntries.size(); ++i) {
      std::string globl = kGlobl + partEntries[i].name + "\n";
      const std::string &block = partEntries[i].globl;
      if (block.compare(0, globl.size(), globl) != 0)
        return "";
      std::string rest = block.substr(globl.size());
      if (i == 0) {
        if (rest.empty() || rest.back() != '\n')
          return "";
        rest.pop_back();
        for (size_t at = 0; at < rest.size();) {
          size_t end = rest.find('\n', at);
          std::string line = rest.substr(at, end - at);
          at = end + 1;
          if (line.compare(0, 3, "// ") != 0 || line.size() < 3 + kDemoted.size() ||
              line.compare(line.size() - kDemoted.size(), kDemoted.size(), kDemoted) != 0)
            return "";
          auto global = std::find(globalOrder.begin(), globalOrder.end(),
                                  line.substr(3, line.size() - 3 - kDemoted.size()));
          if (global == globalOrder.end())
            return "";
          demoted.push_back({size_t(global - globalOrder.begin()), line + "\n"});
        }
      } else if (!rest.empty()) {
        return "";
      }
      partEntries[i].globl = globl;
      entries.push_back(std::move(partEntries[i]));
    }
  }
  std::vector<Entry> ordered;
  for (const std::string &name : entryOrder) {
    auto e = std::find_if(entries.begin(), entries.end(), [&](const Entry &x) { return x.name == name; });
    if (e == entries.end())
      return "";
    ordered.push_back(std::move(*e));
    entries.erase(e);
  }
  if (ordered.empty() || !entries.empty())
    return "";
  std::stable_sort(demoted.begin(), demoted.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  for (const auto &line : demoted)
    ordered.front().globl += line.second;
  ordered.front().globl += "\n";
  return join(header, ordered);
}

} // namespace megac
