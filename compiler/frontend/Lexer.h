//===- Lexer.h - Turning source text into tokens ----------------*- C++ -*-===//
//
// Lexes a whole file up front. Malformed input (stray bytes, unterminated
// comments or strings, oversized literals) is reported and skipped, so the
// token list always ends with Tok::Eof.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/Token.h"

#include <string_view>
#include <vector>

namespace megac::fe {

class DiagnosticEngine;

std::vector<Token> lex(uint32_t file, std::string_view text,
                       DiagnosticEngine &diags);

} // namespace megac::fe
