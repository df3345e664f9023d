//===- TestUtil.h - Running the frontend on strings in tests ----*- C++ -*-===//
#pragma once

#include "frontend/Frontend.h"

#include <gtest/gtest.h>

namespace megac::fe::test {

/// One compilation of in-memory sources; the main file is "test.mega".
struct Compile {
  SourceManager sm;
  DiagnosticEngine diags{sm};
  std::unique_ptr<Module> module;

  explicit Compile(const std::string &text, const Defines &defines = {},
                   std::map<std::string, std::string> otherFiles = {}) {
    for (auto &[path, body] : otherFiles)
      sm.addVirtualFile(path, body);
    module = parseAndAnalyzeText(sm, "test.mega", text, defines, diags);
  }
  std::string errors() const { return diags.formatted(); }
  const KernelDecl &kernel(size_t i = 0) const { return module->kernels().at(i); }
};

/// Wraps statements in a kernel with a few typical params.
inline std::string inKernel(const std::string &body) {
  return "const BLOCK = 128;\n"
         "kernel k(x: *f32, y: *bf16, n: i32, m: i64) {\n" +
         body + "\n}\n";
}

/// The init expression of the `index`th statement (a let) of kernel 0.
inline const Expr &letInit(const Compile &c, size_t index) {
  return *cast<LetStmt>(c.kernel().body.at(index).get())->init;
}

/// Compiles `src` and expects exactly the message (and hint, if given) among
/// the diagnostics.
inline void expectError(const std::string &src, const std::string &message,
                        const std::string &hint = "", const Defines &defines = {},
                        std::map<std::string, std::string> files = {}) {
  Compile c(src, defines, std::move(files));
  EXPECT_FALSE(c.module);
  std::string text = c.errors();
  EXPECT_NE(text.find("error: " + message + "\n"), std::string::npos)
      << "missing: " << message << "\nin:\n"
      << text;
  if (!hint.empty()) {
    EXPECT_NE(text.find("hint: " + hint + "\n"), std::string::npos)
        << "missing hint: " << hint << "\nin:\n"
        << text;
  }
}

inline void expectKernelError(const std::string &body, const std::string &message,
                              const std::string &hint = "") {
  expectError(inKernel(body), message, hint);
}

} // namespace megac::fe::test
