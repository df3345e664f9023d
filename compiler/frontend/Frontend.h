//===- Frontend.h - Entry points for drivers --------------------*- C++ -*-===//
//
//   megac::fe::SourceManager sm;
//   megac::fe::DiagnosticEngine diags(sm);
//   auto mod = megac::fe::parseAndAnalyze(sm, "k.mega", {{"BLOCK", "2048"}},
//                                         diags);
//   if (!mod) { std::cerr << diags.formatted(); return 1; }
//   megac::fe::printAST(*mod, std::cout);              // megac --emit ast
//   megac::fe::manifestExpr(*mod->kernels()[0].grid[0]); // "cdiv(M * I, 1024)"
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/AST.h"
#include "frontend/Diagnostics.h"
#include "frontend/SourceManager.h"

#include <map>
#include <memory>
#include <string>

namespace megac::fe {

/// -D NAME=VALUE overrides, values as written on the command line.
using Defines = std::map<std::string, std::string>;

/// Parses `path` and its imports (each file once, cycles are errors) without
/// sema. Returns null if any file failed to load or parse.
std::unique_ptr<Module> parseModule(SourceManager &sm, const std::string &path,
                                    DiagnosticEngine &diags);

/// Parses and type-checks; null if any error was reported (diags has them).
std::unique_ptr<Module> parseAndAnalyze(SourceManager &sm,
                                        const std::string &path,
                                        const Defines &defines,
                                        DiagnosticEngine &diags);

/// Same, for text already in memory: registered as a virtual file `name`,
/// so its imports resolve relative to `name` (virtual files first, then
/// disk).
std::unique_ptr<Module> parseAndAnalyzeText(SourceManager &sm,
                                            const std::string &name,
                                            std::string text,
                                            const Defines &defines,
                                            DiagnosticEngine &diags);

} // namespace megac::fe
