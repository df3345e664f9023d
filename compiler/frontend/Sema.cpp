//===- Sema.cpp - Statements, scopes and helper inlining ------------------===//
#include "frontend/Sema.h"

#include "frontend/Builtins.h"
#include "frontend/Diagnostics.h"
#include "frontend/EditDistance.h"
#include "frontend/HabitHints.h"

namespace megac::fe {

bool analyzeModule(Module &module,
                   const std::map<std::string, std::string> &defines,
                   DiagnosticEngine &diags) {
  return Sema(module, defines, diags).run();
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

const Sema::Symbol *Sema::lookup(const std::string &name) const {
  for (auto it = fn_.scopes.rbegin(); it != fn_.scopes.rend(); ++it)
    if (auto found = it->find(name); found != it->end())
      return &found->second;
  if (auto found = globals_.find(name); found != globals_.end())
    return &found->second;
  return nullptr;
}

namespace {

// Words quoted in a list: 'a', 'b' and 'c'.
std::string quotedList(const std::vector<std::string> &words) {
  std::string text;
  for (size_t i = 0; i < words.size(); ++i)
    text += (i == 0 ? "" : i + 1 == words.size() ? " and " : ", ") + quoted(words[i]);
  return text;
}

template <size_t N> bool among(const char *const (&words)[N], const std::string &name) {
  for (const char *word : words)
    if (name == word)
      return true;
  return false;
}

} // namespace

bool isLaunchName(const std::string &name) {
  for (const LaunchName &launch : kLaunchNames)
    if (name == launch.name)
      return true;
  return false;
}

bool isGridName(const std::string &name) { return among(kGridNames, name); }

bool isExpressionFunction(const std::string &name) { return among(kExpressionFunctions, name); }

std::string launchAndGridNamesText() {
  std::vector<std::string> names;
  for (const LaunchName &launch : kLaunchNames)
    names.push_back(launch.name);
  names.insert(names.end(), std::begin(kGridNames), std::end(kGridNames));
  return quotedList(names);
}

std::string expressionFunctionsText() {
  return quotedList({std::begin(kExpressionFunctions), std::end(kExpressionFunctions)});
}

void Sema::reportUnknownName(SourceRange r, const std::string &name) {
  std::vector<std::string> candidates;
  for (const ScopeMap &scope : fn_.scopes)
    for (const auto &[n, sym] : scope)
      candidates.push_back(n);
  for (const auto &[n, sym] : globals_)
    candidates.push_back(n);
  std::string hint =
      isLaunchName(name)
          ? "'" + name + "' is known only in a variant's condition, @variant(name, when = ...)"
          : hintForUnknownName(name);
  if (hint.empty())
    hint = didYouMean(name, candidates);
  error(r, "unknown name '" + name.substr(0, 64) + "'", hint);
}

void Sema::declareVar(VarDecl &v) {
  fn_.scopes.back()[v.name] = Symbol{&v, nullptr, std::nullopt};
  fn_.regionDepth[&v] = fn_.regions.size();
}

/// Records `v` as carried by every enclosing for/if it was declared
/// outside of.
void Sema::noteAssignment(const VarDecl *v) {
  auto it = fn_.regionDepth.find(v);
  size_t declaredAt = it == fn_.regionDepth.end() ? 0 : it->second;
  for (size_t i = fn_.regions.size(); i > declaredAt; --i) {
    std::vector<CarriedVar> &carried = fn_.regions[i - 1].carried;
    bool seen = false;
    for (const CarriedVar &c : carried)
      seen |= c.var == v;
    if (!seen)
      carried.push_back({v, v->type});
  }
}

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

void Sema::checkBlock(Block &b) {
  fn_.scopes.emplace_back();
  for (StmtPtr &s : b) {
    if (diags_.limitReached())
      break;
    checkStmt(s);
  }
  fn_.scopes.pop_back();
}

void Sema::checkStmt(StmtPtr &s) {
  switch (s->kind) {
  case StmtKind::Let:
    return checkLet(*cast<LetStmt>(s.get()));
  case StmtKind::Assign:
    return checkAssign(*cast<AssignStmt>(s.get()));
  case StmtKind::Expr: {
    ExprPtr &e = cast<ExprStmt>(s.get())->expr;
    checkExpr(e);
    finalize(e);
    return;
  }
  case StmtKind::For:
    return checkFor(*cast<ForStmt>(s.get()));
  case StmtKind::If:
    return checkIf(*cast<IfStmt>(s.get()));
  case StmtKind::Return:
    return checkReturn(*cast<ReturnStmt>(s.get()));
  }
}

void Sema::checkLet(LetStmt &s) {
  checkExpr(s.init);
  Type declared;
  if (s.annotation && resolveTypeRef(*s.annotation))
    declared = s.annotation->resolved;
  if (!s.init->type.isInvalid()) {
    if (s.init->type.isVoid()) {
      error(s.init->range, "this call has no value");
    } else if (declared.isValue()) {
      if (adapt(s.init, declared.elem) && !s.init->type.isInvalid()) {
        std::vector<int64_t> shape;
        if (s.init->type.elem != declared.elem ||
            !broadcastShapes(s.init->type.shape, declared.shape, shape) ||
            shape != declared.shape) {
          error(s.init->range,
                "'" + s.var->name + "' is declared " + declared.str() +
                    " but the value is " + s.init->type.str(),
                "cast the value with 'as'");
        } else {
          broadcastTo(s.init, declared.shape);
        }
      }
    } else {
      finalize(s.init);
    }
  }
  s.var->type = declared.isValue() ? declared : s.init->type;
  declareVar(*s.var);
}

void Sema::checkAssign(AssignStmt &s) {
  const Symbol *sym = lookup(s.name);
  checkExpr(s.value);
  if (!sym) {
    reportUnknownName(s.nameRange, s.name);
    return;
  }
  if (!sym->var) {
    error(s.nameRange, "cannot assign to constant '" + s.name + "'",
          "declare a variable: let " + s.name + " = ...;");
    return;
  }
  const VarDecl *v = sym->var;
  if (v->kind == VarDecl::Kind::LoopIndex) {
    error(s.nameRange, "cannot assign to loop variable '" + s.name + "'");
    return;
  }
  s.target = v;
  noteAssignment(v);
  const Type &target = v->type;
  if (s.value->type.isInvalid() || target.isInvalid())
    return;
  if (s.value->type.isVoid()) {
    error(s.value->range, "this call has no value");
    return;
  }
  if (!adapt(s.value, target.elem))
    return;
  std::vector<int64_t> shape;
  if (s.value->type.elem != target.elem ||
      !broadcastShapes(s.value->type.shape, target.shape, shape) ||
      shape != target.shape) {
    error(s.value->range,
          "cannot assign " + s.value->type.str() + " to '" + s.name +
              "' of type " + target.str(),
          "a variable keeps the type of its 'let' (also across loop "
          "iterations); cast with 'as' or use a new 'let'");
    return;
  }
  broadcastTo(s.value, target.shape);
}

void Sema::checkFor(ForStmt &s) {
  checkExpr(s.start);
  checkExpr(s.end);
  if (!s.step)
    s.step = std::make_unique<IntLitExpr>(s.range, 1);
  checkExpr(s.step);
  ExprPtr *bounds[] = {&s.start, &s.end, &s.step};
  bool ok = true;
  for (ExprPtr *b : bounds)
    ok &= !(*b)->type.isInvalid();
  if (ok) {
    // One integer type for all three: the first typed bound decides.
    ElementType elem{ScalarKind::I32, false};
    for (ExprPtr *b : bounds)
      if (!(*b)->type.isUntyped()) {
        elem = (*b)->type.elem;
        break;
      }
    for (ExprPtr *b : bounds) {
      if (!adapt(*b, elem)) {
        ok = false;
        continue;
      }
      const Type &t = (*b)->type;
      if (!t.isScalar() || !t.isIntLike()) {
        error((*b)->range,
              "range() bounds must be integer scalars, got " + t.str());
        ok = false;
      } else if (t.elem != elem) {
        error((*b)->range,
              "range() bounds must share one type: " +
                  Type::value(elem, {}).str() + " and " + t.str(),
              "cast one with 'as'");
        ok = false;
      }
    }
    if (ok && s.step->constValue && s.step->constValue->i <= 0) {
      error(s.step->range, "range() step must be positive");
      ok = false;
    }
    if (s.unrollExpr) {
      std::optional<int64_t> u = constInt(s.unrollExpr, "range()'s unroll");
      if (u && (*u < 1 || *u > kMaxUnroll)) {
        error(s.unrollExpr->range,
              "range()'s unroll must be between 1 and " + std::to_string(kMaxUnroll) +
                  ", got " + std::to_string(*u),
              "unroll = 2 or 4 usually suffices to overlap loads");
      } else if (u) {
        s.unroll = *u;
      }
    }
    if (ok)
      s.index->type = Type::value(elem, {});
  }
  fn_.scopes.emplace_back();
  fn_.regions.emplace_back();
  declareVar(*s.index);
  ++fn_.loopDepth;
  checkBlock(s.body);
  --fn_.loopDepth;
  s.carried = std::move(fn_.regions.back().carried);
  fn_.regions.pop_back();
  fn_.scopes.pop_back();
}

void Sema::checkIf(IfStmt &s) {
  checkExpr(s.cond);
  const Type &t = s.cond->type;
  if (!t.isInvalid() && !(t.isScalar() && t.isBoolLike()))
    error(s.cond->range, "'if' condition must be a scalar i1, got " + t.str(),
          t.isTile() ? "for elementwise selection use where(cond, a, b)"
                     : "compare instead: x != 0");
  std::optional<bool> constant;
  if (s.cond->constValue && s.cond->constValue->isBool())
    constant = s.cond->constValue->b;
  fn_.regions.emplace_back();
  fn_.regions.back().taken = constant;
  checkBlock(s.thenBody);
  if (constant)
    fn_.regions.back().taken = !*constant;
  checkBlock(s.elseBody);
  s.carried = std::move(fn_.regions.back().carried);
  fn_.regions.pop_back();
}

void Sema::checkReturn(ReturnStmt &s) {
  if (fn_.inHelper) {
    // Only the final `return e;` of a helper is valid; inlineHelper
    // consumes it before the body is checked.
    error(s.range, "'return' must be the last statement of a helper");
    return;
  }
  if (s.value) {
    error(s.value->range, "kernels cannot return a value",
          "write results with store(ptr, value)");
    return;
  }
  if (fn_.loopDepth > 0)
    error(s.range, "early 'return' is not allowed inside a 'for' loop");
}

//===----------------------------------------------------------------------===//
// Helper inlining
//===----------------------------------------------------------------------===//

/// Arguments are checked in the caller; the helper body, a fresh copy per
/// call, is checked with only globals and its parameters in scope, so types
/// flow from each call's arguments. Constant arguments bind as constants
/// (they stay untyped and adapt inside the helper).
void Sema::inlineHelper(ExprPtr &e, const HelperDecl &h) {
  auto *call = cast<CallExpr>(e.get());
  for (const CallArg &a : call->args)
    if (!a.name.empty()) {
      error(a.nameRange, "helper '" + h.name + "' takes no keyword arguments");
      return;
    }
  if (call->args.size() != h.params.size()) {
    error(call->range,
          "'" + h.name + "' takes " + std::to_string(h.params.size()) +
              " arguments, got " + std::to_string(call->args.size()));
    return;
  }
  for (const HelperDecl *active : inlineStack_)
    if (active == &h) {
      error(call->calleeRange, "helper '" + h.name + "' calls itself",
            "helpers are inlined, so recursion is not supported");
      return;
    }
  if (++inlinedCalls_ > kMaxInlinedCalls) {
    if (inlinedCalls_ == kMaxInlinedCalls + 1)
      error(call->calleeRange, "too many helper calls to inline (more than " +
                                   std::to_string(kMaxInlinedCalls) + ")");
    return;
  }
  auto inl = std::make_unique<InlinedCallExpr>(call->range, h.name);
  ScopeMap params;
  bool ok = true;
  for (size_t i = 0; i < h.params.size(); ++i) {
    ExprPtr &arg = call->args[i].value;
    checkExpr(arg);
    if (arg->type.isInvalid() || arg->type.isVoid()) {
      if (arg->type.isVoid())
        error(arg->range, "this call has no value");
      ok = false;
      continue;
    }
    // Literals and constants stay compile-time inside the helper, so a
    // `true`/`false` argument can select a builtin's option (ue8m0 = flag).
    if (arg->type.isUntyped() || (arg->constValue && arg->constValue->isBool())) {
      params[h.params[i].first] = Symbol{nullptr, nullptr, arg->constValue};
      continue;
    }
    auto var = std::make_unique<VarDecl>();
    var->name = h.params[i].first;
    var->range = h.params[i].second;
    var->type = arg->type;
    params[var->name] = Symbol{var.get(), nullptr, std::nullopt};
    inl->body.push_back(
        std::make_unique<LetStmt>(arg->range, std::move(var), std::move(arg)));
  }
  if (!ok)
    return;

  FunctionContext saved = std::move(fn_);
  fn_ = FunctionContext();
  fn_.inHelper = true;
  fn_.scopes.push_back(std::move(params));
  for (StmtPtr &s : inl->body)
    fn_.regionDepth[cast<LetStmt>(s.get())->var.get()] = 0;
  inlineStack_.push_back(&h);

  Block body;
  for (const StmtPtr &s : h.body)
    body.push_back(cloneStmt(*s));
  ExprPtr result;
  if (!body.empty() && isa<ReturnStmt>(body.back().get())) {
    result = std::move(cast<ReturnStmt>(body.back().get())->value);
    body.pop_back();
  }
  fn_.scopes.emplace_back();
  for (StmtPtr &s : body) {
    if (diags_.limitReached())
      break;
    checkStmt(s);
    inl->body.push_back(std::move(s));
  }
  if (result) {
    checkExpr(result);
    finalize(result);
    inl->type = result->type;
    inl->result = std::move(result);
  } else {
    inl->type = Type::voidTy();
  }

  inlineStack_.pop_back();
  fn_ = std::move(saved);
  e = std::move(inl);
}

} // namespace megac::fe
