//===- frontend_fuzzer.cpp - libFuzzer harness for the megac frontend -----===//
//
// Feeds arbitrary bytes through lexing, parsing, sema and the AST printer.
// The first input line may carry "-D NAME=VALUE" text to fuzz overrides.
// An import of "common.mega" resolves to a fixed virtual file so that the
// import path is exercised without touching the disk.
//
//===----------------------------------------------------------------------===//
#include "frontend/ASTPrinter.h"
#include "frontend/Frontend.h"

#include <sstream>

using namespace megac::fe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  SourceManager sm;
  sm.addVirtualFile("common.mega",
                    "const C = 64;\nfn twice(a) { return a + a; }\n");
  sm.addVirtualFile("loop.mega", "import \"fuzz.mega\";\n");
  DiagnosticEngine diags(sm);
  Defines defines;
  if (text.rfind("//D ", 0) == 0) {
    size_t eol = text.find('\n');
    std::string def = text.substr(4, eol == std::string::npos ? eol : eol - 4);
    size_t eq = def.find('=');
    if (eq != std::string::npos)
      defines[def.substr(0, eq)] = def.substr(eq + 1);
  }
  std::unique_ptr<Module> module =
      parseAndAnalyzeText(sm, "fuzz.mega", std::move(text), defines, diags);
  std::ostringstream os;
  if (module) {
    printAST(*module, os);
    for (const KernelDecl &k : module->kernels())
      for (const ExprPtr &g : k.grid)
        os << manifestExpr(*g);
  }
  os << diags.formatted();
  return 0;
}
