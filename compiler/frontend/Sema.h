//===- Sema.h - Semantic analysis of a parsed module ------------*- C++ -*-===//
//
// Sema walks the parsed Module in place: resolves names, folds constants
// (with -D overrides), type-checks every expression and rewrites the tree
// into the form AST.h promises the emitter. Implementation is split by
// topic: SemaDecls.cpp (constants, kernels, attributes), Sema.cpp
// (statements, scopes, helper inlining), SemaExpr.cpp (expressions,
// literals, broadcasting), SemaBuiltins.cpp (builtin calls: binding,
// memory, math, shapes, casts), SemaQuant.cpp (FP4 and FP8 quantization) and
// SemaTileOps.cpp (bitcast, trans, dot, with_layout).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/AST.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace megac::fe {

class DiagnosticEngine;

/// Returns false if any error was reported.
bool analyzeModule(Module &module,
                   const std::map<std::string, std::string> &defines,
                   DiagnosticEngine &diags);

/// The largest tile (elements) sema accepts; bounds work on hostile input.
constexpr int64_t kMaxTileElements = int64_t(1) << 24;
/// Helper calls inlined per module before sema gives up (exponential
/// fan-out guard).
constexpr unsigned kMaxInlinedCalls = 4096;
/// The largest range(.., unroll = N): more only multiplies code size.
constexpr int64_t kMaxUnroll = 16;

/// What the runtime knows at a launch and a variant's `when` may read (and
/// nothing else: the grid is computed before a variant is chosen): the grid's
/// CTAs, the device's SMs and L2 size in MiB (which tells an H100 from an
/// H200: both have 132 SMs), and whether it launches early-launch variants
/// early (LoadOptions::earlyLaunch).
struct LaunchName {
  const char *name;
  ScalarKind kind;
};
constexpr LaunchName kLaunchNames[] = {{"ctas", ScalarKind::I64},
                                       {"sms", ScalarKind::I64},
                                       {"l2_mb", ScalarKind::I64},
                                       {"early", ScalarKind::I1}};
/// The runtime's other names in launch expressions (runtime/expr.cpp): the
/// launch grid's dimensions (kBoundGridNames, megac/runtime/manifest.h) and
/// its functions.
constexpr const char *kGridNames[] = {"grid_x", "grid_y", "grid_z"};
constexpr const char *kExpressionFunctions[] = {"cdiv", "min", "max"};
bool isLaunchName(const std::string &name);
bool isGridName(const std::string &name);
bool isExpressionFunction(const std::string &name);
/// The launch names, then the grid's, quoted in a list: 'ctas', ... and 'grid_z'.
std::string launchAndGridNamesText();
/// The expression functions, quoted in a list: 'cdiv', 'min' and 'max'.
std::string expressionFunctionsText();

/// A name as diagnostics quote it: 'name'.
inline std::string quoted(const std::string &s) { return "'" + s + "'"; }

class Sema {
public:
  Sema(Module &module, const std::map<std::string, std::string> &defines,
       DiagnosticEngine &diags)
      : module_(module), defines_(defines), diags_(diags) {}
  bool run();

private:
  /// What a name refers to.
  struct Symbol {
    const VarDecl *var = nullptr;           // a value
    const ConstantDecl *constant = nullptr; // a compile-time constant
    std::optional<ConstValue> inlineConst;  // helper param bound to a constant
  };
  using ScopeMap = std::map<std::string, Symbol>;

  /// Variables assigned inside a `for`/`if` that were declared outside it.
  struct Region {
    std::vector<CarriedVar> carried;
    /// In an `if` on a compile-time constant (a variant's constant, say):
    /// whether the branch being checked is the one taken. Unset in a `for`
    /// and in an `if` on a runtime value.
    std::optional<bool> taken;
  };

  /// The state that helper inlining saves and replaces (a helper body sees
  /// only globals and its parameters).
  struct FunctionContext {
    std::vector<ScopeMap> scopes;
    std::vector<Region> regions;
    std::map<const VarDecl *, size_t> regionDepth;
    unsigned loopDepth = 0;
    bool inHelper = false;
  };

  // SemaDecls.cpp
  void declareGlobals();
  void checkConstant(ConstantDecl &c, bool isKernelParam);
  void applyDefine(ConstantDecl &c);
  void checkKernel(KernelDecl &k);
  void checkParam(ParamDecl &p);
  void checkAttributes(KernelDecl &k);
  bool isConstantName(const KernelDecl &k, const std::string &name) const;
  void checkVariantConstant(Variant &v, CallArg &arg);
  void checkVariant(KernelDecl &k, AttributeSyntax &a);
  bool constIntArg(AttributeSyntax &a, int64_t lo, int64_t hi, int64_t &out);
  void checkLaunchExpr(ExprPtr &e, const char *what, bool wantBool);
  bool checkRuntimeEvaluable(const Expr &e, const char *what);
  void checkUnusedDefines();

  // Sema.cpp
  void checkBlock(Block &b);
  void checkStmt(StmtPtr &s);
  void checkLet(LetStmt &s);
  void checkAssign(AssignStmt &s);
  void checkFor(ForStmt &s);
  void checkIf(IfStmt &s);
  void checkReturn(ReturnStmt &s);
  void declareVar(VarDecl &v);
  const Symbol *lookup(const std::string &name) const;
  void reportUnknownName(SourceRange r, const std::string &name);
  void noteAssignment(const VarDecl *v);
  void inlineHelper(ExprPtr &e, const HelperDecl &h);

  // SemaExpr.cpp
public:
  void checkExpr(ExprPtr &e);

private:
  void checkName(ExprPtr &e);
  void checkUnary(ExprPtr &e);
  void checkBinary(ExprPtr &e);
  bool checkCastSupported(const CastExpr &c, const Type &from, const ElementType &to);
  void checkCast(CastExpr &c);
  void checkIndex(IndexExpr &x);
  bool resolveTypeRef(TypeRef &t);
  /// Untyped literal -> literal of `target`'s element (false + error if it
  /// does not fit); typed values are left alone.
  bool adapt(ExprPtr &e, ElementType target);
  /// Untyped literal -> its default type (i32 / i64 / f32).
  void finalize(ExprPtr &e);
  /// Makes a and b agree on one element type (literal adaptation), or
  /// reports a mismatch for `what`.
  bool unifyElements(ExprPtr &a, ExprPtr &b, const std::string &what,
                     SourceRange where);
  bool broadcastShapes(const std::vector<int64_t> &a,
                       const std::vector<int64_t> &b,
                       std::vector<int64_t> &out) const;
  void broadcastTo(ExprPtr &e, const std::vector<int64_t> &shape);
  bool checkTileShape(SourceRange r, const std::vector<int64_t> &shape);
  bool requireArithmetic(const ExprPtr &e, const std::string &what);
  /// Whether the operand element class `t` suits `b`'s operator (i1 for
  /// && and ||, integers for bitwise ops and shifts, numbers otherwise);
  /// checked before constant folding too, so constants read as values do.
  bool checkOperandClass(const BinaryExpr &b, const Type &t, const std::string &op);
  ExprPtr makeLiteral(SourceRange r, const ConstValue &v, const Type &t);
  std::optional<int64_t> constInt(ExprPtr &e, const char *what);

  // SemaBuiltins.cpp
  void checkCall(ExprPtr &e);
  void checkBuiltin(CallExpr &c);
  bool bindArgs(CallExpr &c, const std::vector<const char *> &names,
                size_t required);
  bool bindAndCheck(CallExpr &c, const std::vector<const char *> &names,
                    size_t required);
  void checkCastCall(ExprPtr &e);
  void checkMemoryOp(CallExpr &c);
  bool checkStoreTargets(const CallExpr &c, const Expr &ptr, const Expr &value,
                         const Expr *mask);
  void checkLoad(CallExpr &c);
  void checkUnaryMath(CallExpr &c);
  void checkElementwise(CallExpr &c, bool floatOnly);
  void checkWhere(CallExpr &c);
  void checkCdiv(CallExpr &c);
  std::optional<bool> constBool(ExprPtr &e, const char *what);
  void checkReduction(CallExpr &c);
  void checkShapeBuiltin(CallExpr &c);
  void checkFactory(CallExpr &c);
  void checkWaitPriorKernel(CallExpr &c);
  void checkLaunchDependents(CallExpr &c);
  /// For wait_prior_kernel() and launch_dependents(): checks that `c` is a
  /// statement of an @early_launch kernel's own body (an if on a constant may
  /// hold it) and returns whether it runs (not in an untaken branch).
  bool checkKernelLevelStatement(CallExpr &c, const char *name);
  /// That, once a kernel: sets `called` when the call runs; twice is an error.
  bool checkOnceAtKernelLevel(CallExpr &c, const char *name, bool &called);
  bool constDims(CallExpr &c, size_t first, size_t count,
                 std::vector<int64_t> &shape);

  // SemaQuant.cpp
  void checkQuantize(CallExpr &c);
  void checkDequantize(CallExpr &c);
  bool checkScaleArg(ExprPtr &scale, const char *what);
  bool checkQuantizeInput(CallExpr &c, ExprPtr &x, int64_t block);
  bool checkBlocks(CallExpr &c, ExprPtr &x, int64_t block);
  void checkQuantizeFp8(CallExpr &c);
  void checkDequantizeFp8(CallExpr &c);
  std::optional<ScalarKind> typeArgAmong(CallExpr &c, ExprPtr &arg,
                                         std::vector<ScalarKind> allowed,
                                         const char *what, const char *hint);
  bool checkGroupRank(CallExpr &c, ExprPtr &x);

  // SemaTileOps.cpp
  void checkBitcast(CallExpr &c);
  void checkPointerBitcast(CallExpr &c, const ElementType &to);
  void checkWithLayout(CallExpr &c);
  void checkTrans(CallExpr &c);
  void checkDot(CallExpr &c);

  void error(SourceRange r, std::string msg, std::string hint = {});

  Module &module_;
  const std::map<std::string, std::string> &defines_;
  DiagnosticEngine &diags_;

  ScopeMap globals_; // constants of all files
  std::map<std::string, const HelperDecl *> helpers_;
  FunctionContext fn_;
  std::vector<const HelperDecl *> inlineStack_;
  unsigned inlinedCalls_ = 0;
  std::set<std::string> usedDefines_;
  KernelDecl *kernel_ = nullptr;
  /// The kernel's first store or atomic before its wait_prior_kernel() call
  /// (@early_launch kernels; unset once the wait is seen).
  std::optional<SourceRange> firstWrite_;
  std::set<const ConstantDecl *> badConstants_; // errors already reported
};

} // namespace megac::fe
