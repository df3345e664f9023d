//===- AST.cpp - Spellings, lookup and cloning of AST nodes ---------------===//
#include "frontend/AST.h"

#include <algorithm>

namespace megac::fe {

TypeRef::TypeRef() = default;
TypeRef::~TypeRef() = default;
TypeRef::TypeRef(TypeRef &&) noexcept = default;
TypeRef &TypeRef::operator=(TypeRef &&) noexcept = default;

const char *unaryOpSpelling(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg:
    return "-";
  case UnaryOp::Not:
    return "!";
  case UnaryOp::BitNot:
    return "~";
  }
  return "?";
}

const char *binaryOpSpelling(BinaryOp op) {
  static const char *const kSpellings[] = {"||", "&&", "|",  "^", "&",  "==",
                                           "!=", "<",  "<=", ">", ">=", "<<",
                                           ">>", "+",  "-",  "*", "/",  "%"};
  return kSpellings[static_cast<int>(op)];
}

bool isComparison(BinaryOp op) {
  return op >= BinaryOp::Eq && op <= BinaryOp::Ge;
}

const char *roundingName(Rounding r) {
  switch (r) {
  case Rounding::Default:
    return "default";
  case Rounding::RNE:
    return "rne";
  case Rounding::RZ:
    return "rz";
  case Rounding::RU:
    return "ru";
  case Rounding::RD:
    return "rd";
  }
  return "?";
}

const KernelDecl *Module::findKernel(const std::string &name) const {
  for (const KernelDecl &k : kernels())
    if (k.name == name)
      return &k;
  return nullptr;
}

void Module::keepKernels(const std::vector<std::string> &names) {
  auto &all = kernels();
  all.erase(std::remove_if(all.begin(), all.end(),
                           [&](const KernelDecl &k) {
                             return std::find(names.begin(), names.end(), k.name) == names.end();
                           }),
            all.end());
}

//===----------------------------------------------------------------------===//
// Cloning (parsed trees only: sema annotations are not copied)
//===----------------------------------------------------------------------===//

static std::vector<ExprPtr> cloneExprs(const std::vector<ExprPtr> &v) {
  std::vector<ExprPtr> out;
  for (const ExprPtr &e : v)
    out.push_back(e ? cloneExpr(*e) : nullptr);
  return out;
}

static Block cloneBlock(const Block &b) {
  Block out;
  for (const StmtPtr &s : b)
    out.push_back(cloneStmt(*s));
  return out;
}

TypeRef cloneTypeRef(const TypeRef &t) {
  TypeRef out;
  out.range = t.range;
  out.elem = t.elem;
  out.tileDims = cloneExprs(t.tileDims);
  return out;
}

ExprPtr cloneExpr(const Expr &e) {
  switch (e.kind) {
  case ExprKind::IntLit:
    return std::make_unique<IntLitExpr>(e.range, cast<IntLitExpr>(&e)->value);
  case ExprKind::FloatLit:
    return std::make_unique<FloatLitExpr>(e.range,
                                          cast<FloatLitExpr>(&e)->value);
  case ExprKind::BoolLit:
    return std::make_unique<BoolLitExpr>(e.range, cast<BoolLitExpr>(&e)->value);
  case ExprKind::Name:
    return std::make_unique<NameExpr>(e.range, cast<NameExpr>(&e)->name);
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(&e);
    return std::make_unique<UnaryExpr>(e.range, u->op, cloneExpr(*u->operand));
  }
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(&e);
    return std::make_unique<BinaryExpr>(e.range, b->op, b->opRange,
                                        cloneExpr(*b->lhs), cloneExpr(*b->rhs));
  }
  case ExprKind::Cast: {
    auto *c = cast<CastExpr>(&e);
    auto out = std::make_unique<CastExpr>(e.range, cloneExpr(*c->operand),
                                          cloneTypeRef(c->target));
    out->rounding = c->rounding;
    out->saturate = c->saturate;
    out->explicitCall = c->explicitCall;
    return out;
  }
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(&e);
    auto out = std::make_unique<CallExpr>(e.range, c->callee, c->calleeRange);
    for (const CallArg &a : c->args)
      out->args.push_back(
          {a.name, a.nameRange, a.value ? cloneExpr(*a.value) : nullptr});
    return out;
  }
  case ExprKind::Index: {
    auto *i = cast<IndexExpr>(&e);
    return std::make_unique<IndexExpr>(e.range, cloneExpr(*i->base),
                                       i->isNewDim);
  }
  case ExprKind::TypeArg:
    return std::make_unique<TypeArgExpr>(
        e.range, cloneTypeRef(cast<TypeArgExpr>(&e)->typeRef));
  case ExprKind::Broadcast:
    return std::make_unique<BroadcastExpr>(
        cloneExpr(*cast<BroadcastExpr>(&e)->operand), e.type);
  case ExprKind::InlinedCall: {
    auto *c = cast<InlinedCallExpr>(&e);
    auto out = std::make_unique<InlinedCallExpr>(e.range, c->helper);
    out->body = cloneBlock(c->body);
    out->result = c->result ? cloneExpr(*c->result) : nullptr;
    return out;
  }
  }
  return nullptr;
}

StmtPtr cloneStmt(const Stmt &s) {
  switch (s.kind) {
  case StmtKind::Let: {
    auto *l = cast<LetStmt>(&s);
    auto var = std::make_unique<VarDecl>();
    var->kind = l->var->kind;
    var->name = l->var->name;
    var->range = l->var->range;
    auto out =
        std::make_unique<LetStmt>(s.range, std::move(var), cloneExpr(*l->init));
    if (l->annotation)
      out->annotation = cloneTypeRef(*l->annotation);
    return out;
  }
  case StmtKind::Assign: {
    auto *a = cast<AssignStmt>(&s);
    return std::make_unique<AssignStmt>(s.range, a->name, a->nameRange,
                                        cloneExpr(*a->value));
  }
  case StmtKind::Expr:
    return std::make_unique<ExprStmt>(s.range,
                                      cloneExpr(*cast<ExprStmt>(&s)->expr));
  case StmtKind::For: {
    auto *f = cast<ForStmt>(&s);
    auto out = std::make_unique<ForStmt>(s.range);
    out->index = std::make_unique<VarDecl>(*f->index);
    out->start = cloneExpr(*f->start);
    out->end = cloneExpr(*f->end);
    out->step = f->step ? cloneExpr(*f->step) : nullptr;
    out->unrollExpr = f->unrollExpr ? cloneExpr(*f->unrollExpr) : nullptr;
    out->unroll = f->unroll;
    out->body = cloneBlock(f->body);
    return out;
  }
  case StmtKind::If: {
    auto *i = cast<IfStmt>(&s);
    auto out = std::make_unique<IfStmt>(s.range);
    out->cond = cloneExpr(*i->cond);
    out->thenBody = cloneBlock(i->thenBody);
    out->elseBody = cloneBlock(i->elseBody);
    return out;
  }
  case StmtKind::Return: {
    auto *r = cast<ReturnStmt>(&s);
    return std::make_unique<ReturnStmt>(s.range, r->value ? cloneExpr(*r->value)
                                                          : nullptr);
  }
  }
  return nullptr;
}

} // namespace megac::fe
