//===- HabitHints.cpp - Hints for other languages' spellings --------------===//
#include "frontend/HabitHints.h"

namespace megac::fe {

namespace {

const char *const kWhereHint =
    "a value chosen by a condition is where(cond, a, b)";

bool isIdent(const Token &t, const char *text) {
  return t.kind == Tok::Ident && t.text == text;
}

/// `a` ends where `b` starts: `**` and `++` written as one operator.
bool touching(const Token &a, const Token &b) {
  return a.range.file == b.range.file && a.range.end == b.range.begin;
}

/// Words that declare a variable in C, C++, Rust, Swift or JavaScript.
bool isDeclarationWord(const Token &t) {
  static const char *const kWords[] = {"var", "val",   "auto", "int",
                                       "float", "double", "bool"};
  if (t.kind != Tok::Ident)
    return false;
  for (const char *w : kWords)
    if (t.text == w)
      return true;
  return false;
}

} // namespace

std::string hintForUnexpectedToken(const Token &before, const Token &found,
                                   Tok expected) {
  // A token that starts a line more likely begins the next statement after a
  // missing ';' (`const X = 1` above `@grid(...)`) than continues this one.
  if (found.firstOnLine)
    return found.followsCodeComment && expected == Tok::Semi
               ? "the line before ends in a '//' comment: if '//' was meant "
                 "as division, write '/'"
               : "";
  if (isIdent(found, "and"))
    return "write 'and' as '&&' ('or' is '||', 'not' is '!')";
  if (isIdent(found, "or"))
    return "write 'or' as '||' ('and' is '&&', 'not' is '!')";
  if (isIdent(found, "is"))
    return "compare with '==' or '!='";
  if (found.kind == Tok::At)
    return "a matrix product is dot(a, b), or dot(a, b, acc) to accumulate";
  if (found.kind == Tok::KwIf)
    return kWhereHint;
  if (found.kind == Tok::Colon && expected == Tok::LBrace)
    return "blocks are in braces, not after ':': if c { ... }, "
           "for i in range(0, n) { ... }";
  if (found.kind == Tok::Ident && isIdent(before, "mut"))
    return "every 'let' variable can be assigned: drop 'mut'";
  if (found.kind == Tok::Ident && isDeclarationWord(before))
    return "variables are declared with 'let': let " + found.text.substr(0, 64) +
           " = ...;";
  if (isIdent(before, "elif"))
    return "write 'else if'";
  if (isIdent(before, "while"))
    return "there is no 'while': loops are for i in range(start, end) { ... }";
  return "";
}

std::string hintAtExpressionStart(const Token &before, const Token &found) {
  if (found.kind == Tok::LBracket)
    return "there are no list or tuple values: dimensions are separate "
           "arguments, as in reshape(x, 2, 64) and zeros(2, 64, f32)";
  if (found.kind == Tok::Star && before.kind == Tok::Star &&
      touching(before, found))
    return "there is no '**': multiply (x * x), or exp2(y * log2(x)) for x > 0";
  if (found.kind == Tok::Plus && before.kind == Tok::Plus &&
      touching(before, found))
    return "there is no '++': write i += 1";
  if (found.kind == Tok::KwIf)
    return kWhereHint;
  return "";
}

std::string hintForTuple() {
  return "there are no tuples: dimensions are separate arguments, as in "
         "zeros(2, 64, f32)";
}

std::string hintForTopLevelWord(const std::string &word) {
  if (word == "def")
    return "helpers are fn name(a, b) { ... }, kernels kernel name(x: *f32, "
           "n: i32) { ... }";
  if (word == "class" || word == "struct")
    return "there are no classes or structs: a kernel takes pointers and "
           "scalars";
  return "";
}

std::string hintForUnknownName(const std::string &name) {
  if (name == "True" || name == "False")
    return "booleans are 'true' and 'false'";
  return "";
}

std::string hintForUnknownFunction(const std::string &name) {
  if (name == "not")
    return "negation is '!': !(a > b)";
  if (name == "pow")
    return "there is no pow: multiply (x * x), or exp2(y * log2(x)) for x > 0";
  if (name == "float" || name == "int" || name == "double" || name == "half")
    return "a cast is written 'x as f32' (or i32, f64, f16, ...)";
  if (name == "maximum" || name == "minimum")
    return "max(a, b) and min(a, b) are elementwise; max(x, axis = 0) reduces";
  return "";
}

std::string hintForStrayCharacter(char c) {
  switch (c) {
  case '?':
    return std::string("there is no '?:': ") + kWhereHint;
  case '#':
    return "comments are // and /* */";
  case '\'':
    return "strings take double quotes, and only 'import' takes one";
  default:
    // A UTF-8 sequence: a minus, times sign or quote pasted from a document.
    if (static_cast<unsigned char>(c) >= 0x80)
      return "code is ASCII (comments and strings may hold any text): a "
             "pasted '\u2212', '\u00d7' or curly quote is not '-', '*' or '\"'";
    return "";
  }
}

std::string hintForMemberAccess() {
  return "nothing has methods, fields or modules here: builtins are called by "
         "name, as in sum(x, axis = 1), trans(x), load(p)";
}

} // namespace megac::fe
