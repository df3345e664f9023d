//===- Parser.h - Building the AST of one file ------------------*- C++ -*-===//
//
// Recursive descent with statement-level recovery: after a syntax error the
// parser skips to the next ';' or '}' (or top-level keyword) and goes on, so
// one run reports several errors. Nesting deeper than kMaxNestingDepth is an
// error that stops parsing the file (no stack overflow on hostile input).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/AST.h"
#include "frontend/Token.h"

#include <memory>
#include <vector>

namespace megac::fe {

class DiagnosticEngine;

constexpr unsigned kMaxNestingDepth = 128;

std::unique_ptr<FileAST> parseFile(uint32_t file, std::vector<Token> tokens,
                                   DiagnosticEngine &diags);

} // namespace megac::fe
