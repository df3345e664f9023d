//===- SemaDecls.cpp - Constants, kernels and attributes ------------------===//
#include "frontend/Builtins.h"
#include "frontend/ConstFold.h"
#include "frontend/Diagnostics.h"
#include "frontend/EditDistance.h"
#include "frontend/Sema.h"

namespace megac::fe {

bool Sema::run() {
  declareGlobals();
  for (auto &file : module_.files)
    for (KernelDecl &k : file->kernels) {
      if (diags_.limitReached())
        break;
      checkKernel(k);
    }
  checkUnusedDefines();
  return !diags_.hasErrors();
}

/// Helpers and constants of every file share one namespace; files come in
/// dependency order, so a constant may use constants of imported files and
/// earlier ones of its own file.
void Sema::declareGlobals() {
  for (auto &file : module_.files)
    for (HelperDecl &h : file->helpers) {
      if (lookupBuiltin(h.name) != Builtin::None || h.name == "cast")
        error(h.range, "'" + h.name + "' is a builtin and cannot be redefined");
      else if (!helpers_.emplace(h.name, &h).second)
        error(h.range, "helper '" + h.name + "' is already defined");
    }
  for (auto &file : module_.files)
    for (ConstantDecl &c : file->constants) {
      if (globals_.count(c.name)) {
        error(c.range, "constant '" + c.name + "' is already defined");
        continue;
      }
      checkConstant(c, /*isKernelParam=*/false);
    }
}

void Sema::checkConstant(ConstantDecl &c, bool isKernelParam) {
  bool ok = false;
  if (c.init) {
    checkExpr(c.init);
    if (c.init->constValue && !c.init->type.isInvalid()) {
      c.value = *c.init->constValue;
      ok = true;
      finalize(c.init);
    } else if (!c.init->type.isInvalid()) {
      error(c.init->range,
            "the value of '" + c.name + "' must be known at compile time");
    }
  }
  if (defines_.count(c.name)) {
    usedDefines_.insert(c.name);
    applyDefine(c);
    ok = c.overridden;
  } else if (!c.init) {
    error(c.range, "compile-time parameter '" + c.name + "' has no value",
          "give a default (<" + c.name + ": i32 = 1024>) or pass -D " + c.name +
              "=...");
  }
  if (ok && c.annotation && resolveTypeRef(*c.annotation)) {
    const Type &t = c.annotation->resolved;
    ScalarKind k = t.elem.scalar;
    if (!t.isScalar() || t.isPointer() || isStorageOnly(k)) {
      error(c.annotation->range, "constants are integers, floats or i1");
      ok = false;
    } else if (isBool(k) != c.value.isBool() ||
               (isInteger(k) && !c.value.isInt())) {
      error(c.range, "'" + c.name + "' is declared " + t.str() +
                         " but its value is " + c.value.str());
      ok = false;
    } else if (isInteger(k) && !intFits(c.value.i, k)) {
      error(c.range, "value " + c.value.str() + " of '" + c.name +
                         "' does not fit in " + t.str());
      ok = false;
    } else if (isFloat(k)) {
      c.value = ConstValue::ofFloat(c.value.asDouble());
    }
  }
  if (!ok)
    badConstants_.insert(&c);
  ScopeMap &scope = isKernelParam ? fn_.scopes.back() : globals_;
  scope[c.name] = Symbol{nullptr, &c, std::nullopt};
}

void Sema::applyDefine(ConstantDecl &c) {
  const std::string &text = defines_.at(c.name);
  std::optional<ConstValue> v = parseDefineValue(text);
  std::string flag = "-D " + c.name + "=" + text.substr(0, 64);
  if (!v) {
    error({}, flag + ": not an integer, float or true/false");
    return;
  }
  bool hasDefault = c.init && c.init->constValue;
  if (hasDefault) {
    const ConstValue &d = c.value;
    bool compatible = d.isBool()  ? v->isBool()
                      : d.isInt() ? v->isInt()
                                  : !v->isBool();
    if (!compatible) {
      const char *kind = d.isBool()  ? "a boolean"
                         : d.isInt() ? "an integer"
                                     : "a float";
      error({}, flag + ": '" + c.name + "' is " + kind + " constant");
      return;
    }
    if (d.isFloat())
      v = ConstValue::ofFloat(v->asDouble());
  }
  c.value = *v;
  c.overridden = true;
}

void Sema::checkUnusedDefines() {
  std::vector<std::string> names;
  for (const auto &[name, sym] : globals_)
    names.push_back(name);
  for (auto &file : module_.files)
    for (KernelDecl &k : file->kernels)
      for (ConstantDecl &c : k.constParams)
        names.push_back(c.name);
  for (const auto &[name, value] : defines_) {
    if (usedDefines_.count(name))
      continue;
    error({},
          "-D " + name.substr(0, 64) +
              ": no constant or compile-time "
              "parameter has this name",
          didYouMean(name, names));
  }
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

void Sema::checkKernel(KernelDecl &k) {
  kernel_ = &k;
  firstWrite_.reset();
  fn_ = FunctionContext();
  fn_.scopes.emplace_back(); // compile-time params and params
  for (ConstantDecl &c : k.constParams) {
    if (fn_.scopes.back().count(c.name))
      error(c.range, "parameter '" + c.name + "' is already defined");
    checkConstant(c, /*isKernelParam=*/true);
  }
  for (ParamDecl &p : k.params) {
    if (fn_.scopes.back().count(p.var->name))
      error(p.var->range, "parameter '" + p.var->name + "' is already defined");
    // The runtime's own names in launch expressions (runtime/.../expr.h): a
    // parameter so named would make its manifest unreadable (`min`) or mean
    // one thing to the language and another to the runtime (`sms`).
    const std::string &name = p.var->name;
    if (isLaunchName(name) || isGridName(name) || isExpressionFunction(name))
      error(p.var->range, "a kernel parameter cannot be named '" + name + "'",
            "in its launch expressions the runtime reads " + launchAndGridNamesText() + " as the launch's and " +
                expressionFunctionsText() + " as its functions; rename it");
    if (resolveTypeRef(p.typeRef))
      p.var->type = p.typeRef.resolved;
    declareVar(*p.var);
  }
  // Shapes may name any parameter, so they are checked once all exist.
  for (ParamDecl &p : k.params)
    checkParam(p);
  checkAttributes(k);
  checkBlock(k.body);
  kernel_ = nullptr;
}

void Sema::checkParam(ParamDecl &p) {
  const Type &t = p.var->type;
  if (t.isInvalid())
    return;
  const std::string &name = p.var->name;
  if (!t.isPointer() && isStorageOnly(t.elem.scalar))
    error(p.typeRef.range,
          std::string("scalar parameters cannot be ") + t.str(),
          "pass it as f32, or pass a pointer *" + t.str());
  if (p.multipleOf && !t.isIntLike())
    error(p.var->range, "'multiple_of' applies to integer parameters; '" +
                            name + "' is " + t.str());
  if (p.align <= 0 || (p.align & (p.align - 1)) != 0)
    error(p.var->range, "'align' of '" + name + "' must be a power of two");
  if (!p.shape.empty() && !t.isPointer())
    error(p.var->range,
          "only pointer parameters have a shape; '" + name + "' is " + t.str());
  for (ExprPtr &dim : p.shape) {
    // `_` leaves a dimension unchecked (e.g. the rows of a paged KV cache).
    if (auto *name = dyn_cast<NameExpr>(dim.get()); name && name->name == "_") {
      dim->type = Type::scalar(ScalarKind::I64);
      continue;
    }
    checkLaunchExpr(dim, "a shape dimension", /*wantBool=*/false);
  }
}

/// Grid, shape and `when` expressions are evaluated by the runtime: only
/// scalar params, constants (and in `when`, ctas, sms, early and l2_mb) may appear.
void Sema::checkLaunchExpr(ExprPtr &e, const char *what, bool wantBool) {
  checkExpr(e);
  if (e->type.isInvalid())
    return;
  finalize(e);
  const Type &t = e->type;
  bool ok = t.isScalar() && (wantBool ? t.isBoolLike() : t.isIntLike());
  if (!ok)
    error(e->range,
          std::string(what) + " must be " +
              (wantBool ? "an i1 condition" : "an integer scalar") + ", got " +
              t.str(),
          "it may use scalar parameters, constants and integer arithmetic");
  else
    checkRuntimeEvaluable(*e, what);
}

namespace {

/// Whether every value of integer (or i1) type `from` is a value of `to`.
bool holdsEveryValue(const Type &from, const Type &to) {
  if (from.kind == Type::Kind::UntypedInt || from.isBoolLike())
    return true;
  ScalarKind f = from.elem.scalar, t = to.elem.scalar;
  if (isSigned(f) != isSigned(t))
    return !isSigned(f) && bitWidth(t) > bitWidth(f);
  return bitWidth(t) >= bitWidth(f);
}

const char *const kRuntimeArithmetic =
    "the runtime evaluates grid, shape and 'when' expressions in 64-bit integers with + - * / %, "
    "comparisons, && || !, cdiv, min and max";

} // namespace

/// What the runtime evaluates (runtime/include/megac/runtime/expr.h) and
/// nothing else: the manifest would otherwise hold an expression the runtime
/// refuses to load, or one it reads otherwise than the language (a narrowing
/// cast, a float). Reports the first construct outside it; false then.
bool Sema::checkRuntimeEvaluable(const Expr &e, const char *what) {
  auto refuse = [&](const Expr &at, const std::string &construct, std::string hint = {}) {
    error(at.range, construct + " cannot appear in " + what,
          hint.empty() ? kRuntimeArithmetic : hint);
    return false;
  };
  if (e.constValue && !e.constValue->isFloat())
    return true; // printed as its value
  if (e.type.isFloatLike())
    return refuse(e, "a floating-point value");
  switch (e.kind) {
  case ExprKind::IntLit:
  case ExprKind::BoolLit:
    return true;
  case ExprKind::Name:
    // Scalar parameters, ctas, sms, early and l2_mb (constants folded above).
    return e.type.isScalar() && !e.type.isPointer()
               ? true
               : refuse(e, "'" + cast<NameExpr>(&e)->name + "' (" + e.type.str() + ")");
  case ExprKind::Unary: {
    auto *u = cast<UnaryExpr>(&e);
    if (u->op == UnaryOp::BitNot)
      return refuse(e, "'~'", std::string(kRuntimeArithmetic) + "; -x - 1 is ~x");
    return checkRuntimeEvaluable(*u->operand, what);
  }
  case ExprKind::Binary: {
    auto *b = cast<BinaryExpr>(&e);
    switch (b->op) {
    case BinaryOp::Shl:
    case BinaryOp::Shr:
      return refuse(e, std::string("'") + binaryOpSpelling(b->op) + "'",
                    std::string(kRuntimeArithmetic) + "; multiply or divide by a power of two");
    case BinaryOp::BitAnd:
    case BinaryOp::BitOr:
    case BinaryOp::BitXor:
      return refuse(e, std::string("'") + binaryOpSpelling(b->op) + "'",
                    std::string(kRuntimeArithmetic) + "; n % 8 == 0 tests what n & 7 == 0 does");
    default:
      return checkRuntimeEvaluable(*b->lhs, what) && checkRuntimeEvaluable(*b->rhs, what);
    }
  }
  case ExprKind::Cast: {
    auto *c = cast<CastExpr>(&e);
    if (!holdsEveryValue(c->operand->type, e.type))
      return refuse(e, "a cast from " + c->operand->type.str() + " to " + e.type.str(),
                    std::string(kRuntimeArithmetic) +
                        ", so a cast may only widen (the runtime would not wrap the value)");
    return checkRuntimeEvaluable(*c->operand, what);
  }
  case ExprKind::Broadcast:
    return checkRuntimeEvaluable(*cast<BroadcastExpr>(&e)->operand, what);
  case ExprKind::Call: {
    auto *c = cast<CallExpr>(&e);
    if (!isExpressionFunction(c->callee))
      return refuse(e, "a call of '" + c->callee + "'");
    for (const CallArg &a : c->args)
      if (a.value && !checkRuntimeEvaluable(*a.value, what))
        return false;
    return true;
  }
  default:
    return refuse(e, "this expression");
  }
}

bool Sema::constIntArg(AttributeSyntax &a, int64_t lo, int64_t hi,
                       int64_t &out) {
  if (a.args.size() != 1 || !a.args[0].name.empty()) {
    error(a.range, "@" + a.name + " takes one integer, e.g. @" + a.name + "(" +
                       std::to_string(lo) + ")");
    return false;
  }
  std::optional<int64_t> v = constInt(a.args[0].value, "the value");
  if (!v)
    return false;
  if (*v < lo || *v > hi) {
    error(a.args[0].value->range,
          "@" + a.name + " must be between " + std::to_string(lo) + " and " +
              std::to_string(hi) + ", got " + std::to_string(*v));
    return false;
  }
  out = *v;
  return true;
}

void Sema::checkAttributes(KernelDecl &k) {
  static const std::vector<std::string> kKnown = {
      "num_warps", "maxnreg", "min_ctas_per_sm", "grid", "variant", "fast_math", "fast_division",
      "value_major", "tile_division", "tree_reductions", "fused_reductions", "early_launch"};
  std::set<std::string> seen;
  for (AttributeSyntax &a : k.attributes) {
    if (a.name != "variant" && !seen.insert(a.name).second) {
      error(a.range, "duplicate attribute '@" + a.name + "'");
      continue;
    }
    int64_t v = 0;
    if (a.name == "num_warps") {
      if (constIntArg(a, 1, 32, v)) {
        if (v & (v - 1))
          error(a.range,
                "@num_warps must be a power of two, got " + std::to_string(v));
        k.numWarps = v;
      }
    } else if (a.name == "maxnreg") {
      if (constIntArg(a, 24, 255, v))
        k.maxnreg = v;
    } else if (a.name == "min_ctas_per_sm") {
      if (constIntArg(a, 1, 64, v))
        k.minCtasPerSm = v;
    } else if (a.name == "grid") {
      if (a.args.empty() || a.args.size() > 3) {
        error(a.range, "@grid takes 1 to 3 expressions",
              "@grid(cdiv(n, BLOCK)) or @grid(x, y, z)");
        continue;
      }
      for (CallArg &arg : a.args) {
        if (!arg.name.empty()) {
          error(arg.nameRange, "@grid takes positional expressions");
          continue;
        }
        checkLaunchExpr(arg.value, "a grid dimension", /*wantBool=*/false);
        k.grid.push_back(std::move(arg.value));
      }
    } else if (a.name == "variant") {
      checkVariant(k, a);
    } else if (bool *flag = a.name == "fast_math"         ? &k.fastMath
                            : a.name == "fast_division"   ? &k.fastDivision
                            : a.name == "value_major"     ? &k.valueMajor
                            : a.name == "tile_division"   ? &k.tileDivision
                            : a.name == "tree_reductions" ? &k.treeReductions
                            : a.name == "fused_reductions" ? &k.fusedReductions
                            : a.name == "early_launch"    ? &k.earlyLaunch
                                                          : nullptr) {
      if (!a.args.empty())
        error(a.range, "@" + a.name + " takes no arguments", "@" + a.name);
      *flag = true;
      if (k.fastMath && k.fastDivision)
        error(a.range, "@fast_math and @fast_division together: @fast_math makes f32 division "
                       "approximate already (div.approx.f32)",
              "keep @fast_math (all of the kernel's math approximate) or @fast_division "
              "(division only, div.full.f32)");
    } else {
      std::string hint = didYouMean(a.name, kKnown, "@");
      error(a.range, "unknown attribute '@" + a.name.substr(0, 64) + "'",
            !hint.empty() ? hint
                          : "attributes are @num_warps @maxnreg "
                            "@min_ctas_per_sm @grid @variant @fast_math @fast_division "
                            "@value_major @tile_division @tree_reductions @fused_reductions "
                            "@early_launch");
    }
  }
}

bool Sema::isConstantName(const KernelDecl &k, const std::string &name) const {
  auto g = globals_.find(name);
  if (g != globals_.end() && g->second.constant)
    return true;
  for (const ConstantDecl &c : k.constParams)
    if (c.name == name)
      return true;
  return false;
}

// `NAME = value` in a variant: an integer the constant takes in this
// variant's body. Checking the body with it is the driver's second pass.
void Sema::checkVariantConstant(Variant &v, CallArg &arg) {
  for (const auto &[name, value] : v.constants)
    if (name == arg.name)
      error(arg.nameRange, "'" + arg.name + "' is set twice in this variant");
  if (std::optional<int64_t> value = constInt(arg.value, "the value"))
    v.constants.emplace_back(arg.name, *value);
}

void Sema::checkVariant(KernelDecl &k, AttributeSyntax &a) {
  auto *name = a.args.empty() || !a.args[0].name.empty()
                   ? nullptr
                   : dyn_cast<NameExpr>(a.args[0].value.get());
  if (!name) {
    error(a.range, "@variant needs a name first",
          "@variant(big, maxnreg = 168, when = ctas > 2 * sms)");
    return;
  }
  Variant v;
  v.name = name->name;
  v.range = a.range;
  for (const Variant &other : k.variants)
    if (other.name == v.name)
      error(name->range, "duplicate variant '" + v.name + "'");
  // The kernel's own body is the variant named "default" in the manifest,
  // the runtime's logs and megac's report.
  if (v.name == "default")
    error(name->range, "'default' names the kernel's own body, the variant taken when no other's condition holds",
          "give this variant another name");
  if (k.launchVars.empty())
    for (const LaunchName &launch : kLaunchNames) {
      auto decl = std::make_unique<VarDecl>();
      decl->kind = VarDecl::Kind::LaunchVar;
      decl->name = launch.name;
      decl->type = Type::scalar(launch.kind);
      k.launchVars.push_back(std::move(decl));
    }
  for (size_t i = 1; i < a.args.size(); ++i) {
    CallArg &arg = a.args[i];
    if (arg.name == "when") {
      fn_.scopes.emplace_back();
      for (auto &decl : k.launchVars)
        declareVar(*decl);
      checkLaunchExpr(arg.value, "the 'when' condition", /*wantBool=*/true);
      fn_.scopes.pop_back();
      v.when = std::move(arg.value);
      continue;
    }
    // Flags of the kernel's that a variant turns on (1) or off (0).
    if (std::optional<bool> *flag = arg.name == "tile_division"     ? &v.tileDivision
                                    : arg.name == "tree_reductions" ? &v.treeReductions
                                    : arg.name == "fused_reductions" ? &v.fusedReductions
                                    : arg.name == "early_launch"    ? &v.earlyLaunch
                                                                    : nullptr) {
      std::optional<int64_t> value = constInt(arg.value, "the value");
      if (value && *value != 0 && *value != 1)
        error(arg.value->range,
              "'" + arg.name + "' must be 0 or 1, got " + std::to_string(*value));
      else if (value)
        *flag = *value == 1;
      continue;
    }
    std::optional<int64_t> *slot = arg.name == "maxnreg" ? &v.maxnreg
                                   : arg.name == "min_ctas_per_sm"
                                       ? &v.minCtasPerSm
                                   : arg.name == "num_warps" ? &v.numWarps
                                                             : nullptr;
    if (!slot && isConstantName(k, arg.name)) {
      checkVariantConstant(v, arg);
      continue;
    }
    if (!slot) {
      error(arg.name.empty() ? arg.value->range : arg.nameRange,
            "@variant takes keywords maxnreg, min_ctas_per_sm, num_warps, "
            "tile_division, tree_reductions, fused_reductions, early_launch, when, or the name of a "
            "constant to give another value",
            "@variant(small, BLOCK = 2048, when = H <= 2048)");
      continue;
    }
    // The same ranges as the kernel's own @num_warps, @maxnreg, @min_ctas_per_sm.
    int64_t lo = arg.name == "maxnreg" ? 24 : 1;
    int64_t hi = arg.name == "maxnreg" ? 255 : arg.name == "num_warps" ? 32 : 64;
    if (std::optional<int64_t> value = constInt(arg.value, "the value")) {
      if (*value < lo || *value > hi)
        error(arg.value->range, "'" + arg.name + "' must be in " + std::to_string(lo) +
                                    ".." + std::to_string(hi) + ", got " +
                                    std::to_string(*value));
      else if (arg.name == "num_warps" && (*value & (*value - 1)))
        error(arg.value->range,
              "'num_warps' must be a power of two, got " + std::to_string(*value));
      else
        *slot = *value;
    }
  }
  k.variants.push_back(std::move(v));
}

} // namespace megac::fe
