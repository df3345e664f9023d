//===- HabitHints.h - Hints for other languages' spellings ------*- C++ -*-===//
//
// Kernels here are mostly ported from Python, Triton and CUDA C, and their
// authors write those languages' spellings first: `a and b`, `x ** 2`,
// `x.sum()`, `c ? a : b`, `[2, 64]`, `True`, `# comment`. The parser's and
// sema's messages say what is wrong in this language's terms; these functions
// add a hint naming this language's way to say the same, where the mistake is
// recognizable. Those given a token or a name return "" when they recognize
// nothing.
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/Token.h"

#include <string>

namespace megac::fe {

/// `found` came where `expected` was due right after an expression or a
/// name (`before` is the token before `found`): `a and b`, `a @ b`,
/// `x if c else y`, `var y = 1`, `elif`, `if c:`.
std::string hintForUnexpectedToken(const Token &before, const Token &found,
                                   Tok expected);

/// `found` came where an expression should start: `[2, 64]`, `x ** 2`,
/// `i++`, `if c { a } else { b }` as a value.
std::string hintAtExpressionStart(const Token &before, const Token &found);

/// `(128,)`: a comma where a parenthesized expression should close.
std::string hintForTuple();

/// A top-level word that is not a declaration (`def`, `class`, `struct`).
std::string hintForTopLevelWord(const std::string &word);

/// A name that is neither declared nor a builtin, used as a value (`True`)
/// or called (`not`, `pow`, `float`). Returns "" for names it does not know,
/// so that "did you mean" can answer instead.
std::string hintForUnknownName(const std::string &name);
std::string hintForUnknownFunction(const std::string &name);

/// A byte that starts no token (`?`, `#`, `'`, the first byte of a UTF-8
/// character).
std::string hintForStrayCharacter(char c);

/// '.' right after a name, `)` or `]`: `x.sum()`, `tl.load(p)`, `x.T`.
std::string hintForMemberAccess();

} // namespace megac::fe
