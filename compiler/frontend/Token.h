//===- Token.h - Tokens of the megac language -------------------*- C++ -*-===//
#pragma once

#include "frontend/SourceLocation.h"

#include <cstdint>
#include <string>

namespace megac::fe {

enum class Tok : uint8_t {
  Eof,
  Ident,
  Int,
  Float,
  String,
  // Keywords.
  KwImport,
  KwConst,
  KwFn,
  KwKernel,
  KwLet,
  KwFor,
  KwIn,
  KwIf,
  KwElse,
  KwReturn,
  KwTrue,
  KwFalse,
  KwAs,
  KwNone,
  // Punctuation.
  LParen,
  RParen,
  LBracket,
  RBracket,
  LBrace,
  RBrace,
  Comma,
  Semi,
  Colon,
  At,
  Assign,
  PlusAssign,
  MinusAssign,
  StarAssign,
  SlashAssign,
  Plus,
  Minus,
  Star,
  Slash,
  Percent,
  EqEq,
  NotEq,
  Less,
  LessEq,
  Greater,
  GreaterEq,
  Shl,
  Shr,
  Amp,
  AmpAmp,
  Pipe,
  PipePipe,
  Caret,
  Bang,
  Tilde,
};

/// How a token is written, for "expected ';'" messages.
const char *tokSpelling(Tok t);

struct Token {
  Tok kind = Tok::Eof;
  SourceRange range;
  std::string text;      // identifier name / string contents / literal text
  uint64_t intValue = 0; // Tok::Int
  double floatValue = 0; // Tok::Float
  // The lexer reported the bytes just before this token (a stray '.', '?',
  // ...): the parser stays silent about this token, whose surprise is that
  // error's echo.
  bool afterLexError = false;
  // A '//' comment whose text reads like code (it ends in ';') followed an
  // operand on the line before this token: `let y = t // 2;`.
  bool followsCodeComment = false;
  // The first token of its line: what follows a statement missing its ';'.
  bool firstOnLine = false;
};

} // namespace megac::fe
