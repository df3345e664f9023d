//===- Frontend.cpp - Loading files and imports, running sema -------------===//
#include "frontend/Frontend.h"

#include "frontend/Lexer.h"
#include "frontend/Parser.h"
#include "frontend/Sema.h"

#include <algorithm>
#include <set>

namespace megac::fe {

namespace {

/// Depth-first import loader; `stack` is the chain of files being loaded,
/// which names the cycle when an import closes one.
class ImportLoader {
public:
  ImportLoader(SourceManager &sm, DiagnosticEngine &diags, Module &module)
      : sm_(sm), diags_(diags), module_(module) {}

  /// Loads `file` after all its imports; files end up in dependency order.
  void load(uint32_t file) {
    stack_.push_back(file);
    std::unique_ptr<FileAST> ast =
        parseFile(file, lex(file, sm_.text(file), diags_), diags_);
    for (const auto &[rel, range] : ast->imports) {
      if (diags_.limitReached())
        break;
      std::string path = sm_.resolveImport(file, rel);
      std::string why;
      std::optional<uint32_t> id = sm_.loadFile(path, why);
      if (!id) {
        diags_.error(range, why);
        continue;
      }
      if (std::find(stack_.begin(), stack_.end(), *id) != stack_.end()) {
        std::string cycle;
        auto it = std::find(stack_.begin(), stack_.end(), *id);
        for (; it != stack_.end(); ++it)
          cycle += sm_.name(*it) + " -> ";
        diags_.error(range, "import cycle: " + cycle + sm_.name(*id),
                     "move the shared declarations into a third file");
        continue;
      }
      if (!done_.insert(*id).second)
        continue; // diamond: already loaded
      load(*id);
    }
    stack_.pop_back();
    done_.insert(file);
    module_.files.push_back(std::move(ast));
  }

private:
  SourceManager &sm_;
  DiagnosticEngine &diags_;
  Module &module_;
  std::vector<uint32_t> stack_;
  std::set<uint32_t> done_;
};

} // namespace

std::unique_ptr<Module> parseModule(SourceManager &sm, const std::string &path,
                                    DiagnosticEngine &diags) {
  std::string why;
  std::optional<uint32_t> id = sm.loadFile(path, why);
  if (!id) {
    diags.error({}, why);
    return nullptr;
  }
  auto module = std::make_unique<Module>();
  ImportLoader(sm, diags, *module).load(*id);
  if (diags.hasErrors())
    return nullptr;
  return module;
}

std::unique_ptr<Module> parseAndAnalyze(SourceManager &sm,
                                        const std::string &path,
                                        const Defines &defines,
                                        DiagnosticEngine &diags) {
  std::unique_ptr<Module> module = parseModule(sm, path, diags);
  if (!module || !analyzeModule(*module, defines, diags))
    return nullptr;
  return module;
}

std::unique_ptr<Module> parseAndAnalyzeText(SourceManager &sm,
                                            const std::string &name,
                                            std::string text,
                                            const Defines &defines,
                                            DiagnosticEngine &diags) {
  sm.addVirtualFile(name, std::move(text));
  return parseAndAnalyze(sm, name, defines, diags);
}

} // namespace megac::fe
