//===- ASTPrinter.cpp -----------------------------------------------------===//
#include "frontend/ASTPrinter.h"

#include "frontend/Builtins.h"

namespace megac::fe {

//===----------------------------------------------------------------------===//
// Infix expressions
//===----------------------------------------------------------------------===//

/// Binding strength of an operator (higher binds tighter; atoms are 100), as
/// the parser's but with the six comparisons on one level that does not
/// chain: the runtime's grammar (runtime/include/megac/runtime/expr.h) takes
/// one comparison between two sums, so `(M > 4) == (N > 4)` keeps its
/// parentheses, which the language's own precedence would drop.
static int precedence(const Expr &e) {
  if (auto *b = dyn_cast<BinaryExpr>(&e)) {
    static const int kPrec[] = {1, 2, 3, 4, 5, 6, 6,  6,  6,
                                6, 6, 8, 8, 9, 9, 10, 10, 10};
    return kPrec[static_cast<int>(b->op)];
  }
  if (isa<UnaryExpr>(&e))
    return 11;
  return 100;
}

static void infix(const Expr &e, std::string &out);

static void infixOperand(const Expr &e, int minPrec, std::string &out) {
  const Expr *inner = &e;
  while (isa<CastExpr>(inner) || isa<BroadcastExpr>(inner))
    inner = isa<CastExpr>(inner) ? cast<CastExpr>(inner)->operand.get()
                                 : cast<BroadcastExpr>(inner)->operand.get();
  bool paren = precedence(*inner) < minPrec;
  if (paren)
    out += "(";
  infix(*inner, out);
  if (paren)
    out += ")";
}

static void infix(const Expr &e, std::string &out) {
  // Conditions as the runtime reads them: true is 1, false 0.
  if (e.constValue && e.type.isValue()) {
    out += e.constValue->isBool() ? (e.constValue->b ? "1" : "0") : e.constValue->str();
    return;
  }
  switch (e.kind) {
  case ExprKind::IntLit:
    out += std::to_string(cast<IntLitExpr>(&e)->value);
    return;
  case ExprKind::FloatLit:
    out += ConstValue::ofFloat(cast<FloatLitExpr>(&e)->value).str();
    return;
  case ExprKind::BoolLit:
    out += cast<BoolLitExpr>(&e)->value ? "1" : "0";
    return;
  case ExprKind::Name:
    out += cast<NameExpr>(&e)->name;
    return;
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(&e);
    out += unaryOpSpelling(u->op);
    infixOperand(*u->operand, 11, out);
    return;
  }
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(&e);
    int p = precedence(e);
    // Left-associative; a comparison does not chain.
    infixOperand(*b->lhs, isComparison(b->op) ? p + 1 : p, out);
    out += std::string(" ") + binaryOpSpelling(b->op) + " ";
    infixOperand(*b->rhs, p + 1, out);
    return;
  }
  case ExprKind::Cast:
  case ExprKind::Broadcast:
    infixOperand(e, 0, out);
    return;
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(&e);
    out += c->callee + "(";
    bool first = true;
    for (const CallArg &a : c->args) {
      if (!a.value)
        continue;
      out += first ? "" : ", ";
      first = false;
      infixOperand(*a.value, 0, out);
    }
    out += ")";
    return;
  }
  case ExprKind::Index:
  case ExprKind::TypeArg:
  case ExprKind::InlinedCall:
    out += "<not a launch expression>";
    return;
  }
}

std::string manifestExpr(const Expr &e) {
  std::string out;
  infixOperand(e, 0, out);
  return out;
}

//===----------------------------------------------------------------------===//
// Tree dump
//===----------------------------------------------------------------------===//

namespace {

class TreePrinter {
public:
  explicit TreePrinter(std::ostream &os) : os_(os) {}

  void module(const Module &m) {
    for (const auto &file : m.files) {
      for (const ConstantDecl &c : file->constants)
        line(0) << "const " << c.name << " = " << c.value.str()
                << (c.overridden ? " (-D)" : "") << "\n";
      for (const KernelDecl &k : file->kernels)
        kernel(k);
    }
  }

private:
  std::ostream &line(int depth) { return os_ << std::string(depth * 2, ' '); }

  void kernel(const KernelDecl &k) {
    line(0) << "kernel " << k.name << " num_warps=" << k.numWarps;
    if (k.maxnreg)
      os_ << " maxnreg=" << *k.maxnreg;
    if (k.minCtasPerSm)
      os_ << " min_ctas_per_sm=" << *k.minCtasPerSm;
    os_ << "\n";
    for (const ConstantDecl &c : k.constParams)
      line(1) << "constparam " << c.name << " = " << c.value.str() << "\n";
    for (const ParamDecl &p : k.params) {
      line(1) << "param " << p.var->name << ": " << p.var->type.str();
      if (!p.shape.empty()) {
        os_ << " shape=[";
        for (size_t i = 0; i < p.shape.size(); ++i)
          os_ << (i ? ", " : "") << manifestExpr(*p.shape[i]);
        os_ << "]";
      }
      if (p.multipleOf)
        os_ << " multiple_of=" << *p.multipleOf;
      if (p.var->type.isPointer())
        os_ << " align=" << p.align;
      os_ << "\n";
    }
    if (!k.grid.empty()) {
      line(1) << "grid";
      for (const ExprPtr &g : k.grid)
        os_ << " (" << manifestExpr(*g) << ")";
      os_ << "\n";
    }
    for (const Variant &v : k.variants) {
      line(1) << "variant " << v.name;
      if (v.numWarps)
        os_ << " num_warps=" << *v.numWarps;
      if (v.maxnreg)
        os_ << " maxnreg=" << *v.maxnreg;
      if (v.minCtasPerSm)
        os_ << " min_ctas_per_sm=" << *v.minCtasPerSm;
      if (v.when)
        os_ << " when=(" << manifestExpr(*v.when) << ")";
      os_ << "\n";
    }
    block(k.body, 1);
  }

  void block(const Block &b, int depth) {
    for (const StmtPtr &s : b)
      stmt(*s, depth);
  }

  void carried(const std::vector<CarriedVar> &vars, int depth) {
    for (const CarriedVar &c : vars)
      line(depth) << "carried " << c.var->name << ": " << c.type.str() << "\n";
  }

  void stmt(const Stmt &s, int depth) {
    switch (s.kind) {
    case StmtKind::Let: {
      auto *l = cast<LetStmt>(&s);
      line(depth) << "let " << l->var->name << ": " << l->var->type.str()
                  << "\n";
      expr(*l->init, depth + 1);
      return;
    }
    case StmtKind::Assign: {
      auto *a = cast<AssignStmt>(&s);
      line(depth) << "assign " << a->name << "\n";
      expr(*a->value, depth + 1);
      return;
    }
    case StmtKind::Expr:
      line(depth) << "expr\n";
      expr(*cast<ExprStmt>(&s)->expr, depth + 1);
      return;
    case StmtKind::For: {
      auto *f = cast<ForStmt>(&s);
      line(depth) << "for " << f->index->name << ": " << f->index->type.str()
                  << (f->unroll > 1 ? " unroll " + std::to_string(f->unroll) : std::string())
                  << "\n";
      carried(f->carried, depth + 1);
      expr(*f->start, depth + 1);
      expr(*f->end, depth + 1);
      expr(*f->step, depth + 1);
      line(depth + 1) << "body\n";
      block(f->body, depth + 2);
      return;
    }
    case StmtKind::If: {
      auto *i = cast<IfStmt>(&s);
      line(depth) << "if\n";
      carried(i->carried, depth + 1);
      expr(*i->cond, depth + 1);
      line(depth + 1) << "then\n";
      block(i->thenBody, depth + 2);
      if (!i->elseBody.empty()) {
        line(depth + 1) << "else\n";
        block(i->elseBody, depth + 2);
      }
      return;
    }
    case StmtKind::Return:
      line(depth) << "return\n";
      return;
    }
  }

  void expr(const Expr &e, int depth) {
    std::ostream &os = line(depth);
    switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::FloatLit:
    case ExprKind::BoolLit:
      os << "literal " << (e.constValue ? e.constValue->str() : "?");
      break;
    case ExprKind::Name:
      os << "name " << cast<NameExpr>(&e)->name;
      break;
    case ExprKind::Unary:
      os << "unary " << unaryOpSpelling(cast<UnaryExpr>(&e)->op);
      break;
    case ExprKind::Binary:
      os << "binary " << binaryOpSpelling(cast<BinaryExpr>(&e)->op);
      break;
    case ExprKind::Cast: {
      auto *c = cast<CastExpr>(&e);
      os << "cast rounding=" << roundingName(c->rounding)
         << " saturate=" << (c->saturate.value_or(false) ? "true" : "false");
      break;
    }
    case ExprKind::Call: {
      auto *c = cast<CallExpr>(&e);
      os << "call " << builtinName(c->builtin);
      if (c->axis >= 0)
        os << " axis=" << c->axis;
      if (c->builtin == Builtin::Arange)
        os << " start=" << c->start;
      if (!c->shape.empty())
        os << " shape=" << shapeStr(c->shape);
      if (c->builtin == Builtin::QuantizeFp8Group || c->builtin == Builtin::Fp8GroupScales)
        os << " fp8=" << scalarKindName(c->fp8) << " ue8m0=" << (c->ue8m0 ? "true" : "false");
      if (c->streaming)
        os << " streaming";
      break;
    }
    case ExprKind::Index:
      os << "index";
      break;
    case ExprKind::TypeArg:
      os << "type";
      break;
    case ExprKind::Broadcast:
      os << "broadcast";
      break;
    case ExprKind::InlinedCall:
      os << "inlined " << cast<InlinedCallExpr>(&e)->helper;
      break;
    }
    os << " : " << e.type.str() << "\n";
    children(e, depth + 1);
  }

  void children(const Expr &e, int depth) {
    switch (e.kind) {
    case ExprKind::Unary:
      return expr(*cast<UnaryExpr>(&e)->operand, depth);
    case ExprKind::Binary:
      expr(*cast<BinaryExpr>(&e)->lhs, depth);
      return expr(*cast<BinaryExpr>(&e)->rhs, depth);
    case ExprKind::Cast:
      return expr(*cast<CastExpr>(&e)->operand, depth);
    case ExprKind::Broadcast:
      return expr(*cast<BroadcastExpr>(&e)->operand, depth);
    case ExprKind::Index:
      return expr(*cast<IndexExpr>(&e)->base, depth);
    case ExprKind::Call:
      for (const CallArg &a : cast<CallExpr>(&e)->args) {
        if (a.value)
          expr(*a.value, depth);
        else
          line(depth) << "<none>\n";
      }
      return;
    case ExprKind::InlinedCall: {
      auto *c = cast<InlinedCallExpr>(&e);
      block(c->body, depth);
      if (c->result) {
        line(depth) << "result\n";
        expr(*c->result, depth + 1);
      }
      return;
    }
    default:
      return;
    }
  }

  std::ostream &os_;
};

} // namespace

void printAST(const Module &module, std::ostream &os) {
  TreePrinter(os).module(module);
}

} // namespace megac::fe
