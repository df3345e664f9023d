//===- expr.h - Integer expressions of shapes, grids, variants --*- C++ -*-===//
//
// The manifest's expressions (grid, shape entries, variant conditions) are
// parsed once, at load time, into postfix code over a fixed set of names, and
// evaluated at every launch on a small stack array: no allocation, no strings.
//
// Grammar, loosest binding first:
//   or   := and ('||' and)*         short-circuit, result 0 or 1
//   and  := cmp ('&&' cmp)*
//   cmp  := sum (('<'|'<='|'>'|'>='|'=='|'!=') sum)?
//   sum  := prod (('+'|'-') prod)*
//   prod := unary (('*'|'/'|'%') unary)*   '/' and '%' truncate as in C
//   unary:= ('-'|'!') unary | atom
//   atom := integer | name | ('cdiv'|'min'|'max') '(' or ',' or ')' | '(' or
//   ')'
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_EXPR_H
#define MEGAC_RUNTIME_EXPR_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace megac::rt {

class Expr {
public:
  /// The deepest evaluation stack an expression may need.
  static constexpr int kMaxStack = 32;

  /// The constant 1 (an empty variant condition holds).
  Expr();

  /// Parses `text`; names[i] is read from env[i] by eval(). An empty entry in
  /// `names` is a hole (a name that is not usable, e.g. a tensor parameter).
  /// Throws ExprError "expression 'TEXT': WHAT at column C".
  static Expr parse(std::string_view text,
                    const std::vector<std::string> &names);

  /// Evaluates with env[i] bound to names[i]. Throws ExprError on division by
  /// zero or overflow; otherwise allocates nothing.
  int64_t eval(const int64_t *env) const;

  /// The source text ("" for the constant 1).
  const std::string &text() const { return text_; }
  /// The name index when the expression is exactly one name, else -1: that is
  /// what lets the runtime infer an omitted scalar from a tensor dimension.
  int singleName() const;
  /// The value when the expression is a constant, for error messages.
  bool isConstant() const;

  enum class Op : uint8_t {
    Const,
    Load,
    Neg,
    Not,
    ToBool,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    CDiv,
    Min,
    Max,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    JumpIfZero,    ///< Keeps the top; jumps when it is 0 (for &&).
    JumpIfNonZero, ///< Keeps the top; jumps when it is not 0 (for ||).
    Pop,
  };
  struct Instr {
    Op op;
    int64_t value; ///< Const: the value; Load: the name index; jumps: target.
  };

private:
  friend class ExprParser;
  std::string text_;
  std::vector<Instr> code_;
};

} // namespace megac::rt

#endif // MEGAC_RUNTIME_EXPR_H
