//===- expr.cpp - Integer expressions of shapes, grids, variants ----------===//
#include "megac/runtime/expr.h"

#include "megac/runtime/error.h"

namespace megac::rt {

using Op = Expr::Op;

class ExprParser {
public:
  ExprParser(std::string_view text, const std::vector<std::string> &names)
      : text_(text), names_(names) {}

  Expr run() {
    Expr e;
    e.text_ = std::string(text_);
    e.code_.clear();
    code_ = &e.code_;
    parseOr();
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return e;
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw ExprError("expression '" + std::string(text_) + "': " + what +
                    " at column " + std::to_string(pos_ + 1));
  }

  void emit(Op op, int64_t value = 0) {
    code_->push_back({op, value});
    switch (op) {
    case Op::Const:
    case Op::Load:
      push();
      break;
    case Op::Neg:
    case Op::Not:
    case Op::ToBool:
    case Op::JumpIfZero:
    case Op::JumpIfNonZero:
      break;
    default: // binary operators and Pop
      --depth_;
    }
  }

  void push() {
    if (++depth_ > Expr::kMaxStack)
      fail("too deeply nested (more than " + std::to_string(Expr::kMaxStack) +
           " pending values)");
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
      ++pos_;
  }

  bool consume(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token)
      return false;
    pos_ += token.size();
    return true;
  }

  void expect(std::string_view token) {
    if (!consume(token)) {
      skipSpace();
      fail("expected '" + std::string(token) + "'" +
           (pos_ < text_.size() ? "" : " before the end"));
    }
  }

  // `a && b` leaves a's falsity on the stack and skips b, so that a guard such
  // as `n > 0 && 1024 / n > 2` never divides by zero.
  void parseShortCircuit(void (ExprParser::*operand)(), std::string_view token,
                         Op jump) {
    (this->*operand)();
    bool any = false;
    while (consume(token)) {
      if (!any)
        emit(Op::ToBool);
      any = true;
      size_t jumpAt = code_->size();
      emit(jump);
      emit(Op::Pop);
      (this->*operand)();
      emit(Op::ToBool);
      (*code_)[jumpAt].value = int64_t(code_->size());
    }
  }

  void parseOr() {
    parseShortCircuit(&ExprParser::parseAnd, "||", Op::JumpIfNonZero);
  }
  void parseAnd() {
    parseShortCircuit(&ExprParser::parseCmp, "&&", Op::JumpIfZero);
  }

  void parseCmp() {
    parseSum();
    static constexpr std::pair<std::string_view, Op> kOps[] = {
        {"<=", Op::Le}, {">=", Op::Ge}, {"==", Op::Eq},
        {"!=", Op::Ne}, {"<", Op::Lt},  {">", Op::Gt}};
    for (auto [token, op] : kOps) {
      if (consume(token)) {
        parseSum();
        emit(op);
        return;
      }
    }
  }

  void parseSum() {
    parseProd();
    while (true) {
      if (consume("+")) {
        parseProd();
        emit(Op::Add);
      } else if (consume("-")) {
        parseProd();
        emit(Op::Sub);
      } else {
        return;
      }
    }
  }

  void parseProd() {
    parseUnary();
    while (true) {
      Op op;
      if (consume("*"))
        op = Op::Mul;
      else if (consume("/"))
        op = Op::Div;
      else if (consume("%"))
        op = Op::Mod;
      else
        return;
      parseUnary();
      emit(op);
    }
  }

  // A loop, not recursion: a long run of '-' or '!' must not overflow the
  // stack (found by fuzz/runtime_fuzzer.cpp).
  void parseUnary() {
    std::vector<Op> prefix;
    for (;;) {
      if (consume("-"))
        prefix.push_back(Op::Neg);
      else if (!lookingAt("!=") && consume("!"))
        prefix.push_back(Op::Not);
      else
        break;
    }
    parseAtom();
    for (auto op = prefix.rbegin(); op != prefix.rend(); ++op)
      emit(*op);
  }

  // Bounds the parser's recursion, so hostile input cannot overflow the stack.
  void enter() {
    if (++nesting_ > kMaxNesting)
      fail("too deeply nested (more than " + std::to_string(kMaxNesting) +
           " parentheses)");
  }

  bool lookingAt(std::string_view token) {
    skipSpace();
    return text_.substr(pos_, token.size()) == token;
  }

  static bool isNameChar(char c, bool first) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
  }

  void parseAtom() {
    skipSpace();
    if (pos_ >= text_.size())
      fail("expected a value before the end");
    char c = text_[pos_];
    if (c == '(') {
      ++pos_;
      enter();
      parseOr();
      expect(")");
      --nesting_;
      return;
    }
    if (c >= '0' && c <= '9') {
      int64_t v = 0;
      size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, text_[pos_] - '0', &v)) {
          pos_ = start;
          fail("integer too large");
        }
        ++pos_;
      }
      if (pos_ < text_.size() && isNameChar(text_[pos_], false))
        fail("bad integer");
      emit(Op::Const, v);
      return;
    }
    if (!isNameChar(c, true))
      fail("unexpected '" + std::string(1, c) + "'");
    size_t start = pos_;
    while (pos_ < text_.size() && isNameChar(text_[pos_], false))
      ++pos_;
    std::string_view name = text_.substr(start, pos_ - start);
    if (name == "cdiv" || name == "min" || name == "max") {
      expect("(");
      enter();
      parseOr();
      expect(",");
      parseOr();
      expect(")");
      --nesting_;
      emit(name == "cdiv" ? Op::CDiv : name == "min" ? Op::Min : Op::Max);
      return;
    }
    for (size_t i = 0; i < names_.size(); ++i) {
      if (!names_[i].empty() && names_[i] == name) {
        emit(Op::Load, int64_t(i));
        return;
      }
    }
    pos_ = start;
    std::string known;
    for (const std::string &n : names_)
      if (!n.empty())
        known += (known.empty() ? "" : ", ") + n;
    fail("unknown name '" + std::string(name) +
         "' (known: " + (known.empty() ? "none" : known) + ")");
  }

  std::string_view text_;
  const std::vector<std::string> &names_;
  std::vector<Expr::Instr> *code_ = nullptr;
  size_t pos_ = 0;
  int depth_ = 0;
  int nesting_ = 0;
  static constexpr int kMaxNesting = 64;
};

Expr::Expr() : code_{{Op::Const, 1}} {}

Expr Expr::parse(std::string_view text, const std::vector<std::string> &names) {
  return ExprParser(text, names).run();
}

int Expr::singleName() const {
  return code_.size() == 1 && code_[0].op == Op::Load ? int(code_[0].value)
                                                      : -1;
}

bool Expr::isConstant() const {
  return code_.size() == 1 && code_[0].op == Op::Const;
}

namespace {
[[noreturn]] void evalError(const std::string &text, const char *what) {
  throw ExprError("expression '" + text + "': " + what);
}
} // namespace

int64_t Expr::eval(const int64_t *env) const {
  int64_t stack[kMaxStack];
  int top = -1; // index of the top value
  const size_t n = code_.size();
  for (size_t pc = 0; pc < n; ++pc) {
    const Instr &in = code_[pc];
    if (in.op == Op::Const) {
      stack[++top] = in.value;
      continue;
    }
    if (in.op == Op::Load) {
      stack[++top] = env[in.value];
      continue;
    }
    int64_t &a = stack[top];
    switch (in.op) {
    case Op::Neg:
      if (__builtin_sub_overflow(int64_t(0), a, &a))
        evalError(text_, "overflow");
      continue;
    case Op::Not:
      a = a == 0;
      continue;
    case Op::ToBool:
      a = a != 0;
      continue;
    case Op::JumpIfZero:
      if (a == 0)
        pc = size_t(in.value) - 1;
      continue;
    case Op::JumpIfNonZero:
      if (a != 0)
        pc = size_t(in.value) - 1;
      continue;
    case Op::Pop:
      --top;
      continue;
    default:
      break;
    }
    int64_t rhs = stack[top--];
    int64_t &lhs = stack[top];
    bool overflow = false;
    switch (in.op) {
    case Op::Add:
      overflow = __builtin_add_overflow(lhs, rhs, &lhs);
      break;
    case Op::Sub:
      overflow = __builtin_sub_overflow(lhs, rhs, &lhs);
      break;
    case Op::Mul:
      overflow = __builtin_mul_overflow(lhs, rhs, &lhs);
      break;
    case Op::Div:
    case Op::Mod:
    case Op::CDiv: {
      if (rhs == 0)
        evalError(text_, "division by zero");
      if (lhs == INT64_MIN && rhs == -1)
        evalError(text_, "overflow");
      int64_t q = lhs / rhs, r = lhs % rhs;
      if (in.op == Op::Mod)
        lhs = r;
      else
        lhs = q + (in.op == Op::CDiv && r != 0 && ((r < 0) == (rhs < 0)));
      break;
    }
    case Op::Min:
      lhs = lhs < rhs ? lhs : rhs;
      break;
    case Op::Max:
      lhs = lhs > rhs ? lhs : rhs;
      break;
    case Op::Lt:
      lhs = lhs < rhs;
      break;
    case Op::Le:
      lhs = lhs <= rhs;
      break;
    case Op::Gt:
      lhs = lhs > rhs;
      break;
    case Op::Ge:
      lhs = lhs >= rhs;
      break;
    case Op::Eq:
      lhs = lhs == rhs;
      break;
    case Op::Ne:
      lhs = lhs != rhs;
      break;
    default:
      break;
    }
    if (overflow)
      evalError(text_, "overflow");
  }
  return stack[0];
}

} // namespace megac::rt
