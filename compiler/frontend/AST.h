//===- AST.h - The typed AST of a megac module ------------------*- C++ -*-===//
//
// The parser builds this tree; sema then resolves names, folds constants,
// inlines helper calls, inserts implicit broadcasts and records a Type on
// every Expr. After a successful parseAndAnalyze() the emitter can rely on:
//
//  * every Expr has a final Type (never Untyped/Invalid); compile-time values
//    also have constValue set;
//  * named constants and untyped literal subtrees are replaced by literal
//    nodes of the concrete type they adapted to (IntLit/FloatLit/BoolLit);
//  * operands of Binary have exactly the result operand type: scalars are
//    splat and size-1 dims broadcast by explicit BroadcastExpr nodes. For
//    pointer arithmetic (Add/Sub) lhs is the pointer, rhs an integer of the
//    same shape;
//  * calls to helpers are InlinedCallExpr nodes (the emitter never sees a
//    helper); `cast(...)` calls become CastExpr;
//  * builtin calls have canonical positional args (see Builtin in
//    Builtins.h), absent optional args are null;
//  * each For/If lists its loop-carried / branch-assigned variables.
//
// Casting helpers isa<>/cast<>/dyn_cast<> work on Expr and Stmt without RTTI.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/SourceLocation.h"
#include "frontend/Types.h"

#include <cassert>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace megac::fe {

//===----------------------------------------------------------------------===//
// RTTI-free casting
//===----------------------------------------------------------------------===//

template <class To, class From> bool isa(const From *n) {
  return n && To::classof(n);
}
template <class To, class From> To *cast(From *n) {
  assert(isa<To>(n) && "bad cast");
  return static_cast<To *>(n);
}
template <class To, class From> const To *cast(const From *n) {
  assert(isa<To>(n) && "bad cast");
  return static_cast<const To *>(n);
}
template <class To, class From> To *dyn_cast(From *n) {
  return isa<To>(n) ? static_cast<To *>(n) : nullptr;
}
template <class To, class From> const To *dyn_cast(const From *n) {
  return isa<To>(n) ? static_cast<const To *>(n) : nullptr;
}

//===----------------------------------------------------------------------===//
// Variables
//===----------------------------------------------------------------------===//

/// A named value: a `let`, a loop index, a kernel parameter, or a launch
/// variable of a `@variant(when = ...)` condition. NameExpr points here; the
/// emitter keys its SSA value map on VarDecl*. Assignments rebind the same
/// VarDecl (its Type never changes).
struct VarDecl {
  enum class Kind : uint8_t {
    Let,         // let x = ...; (also helper parameters bound at inlining)
    LoopIndex,   // for i in range(...)
    KernelParam, // runtime kernel argument; see KernelDecl::params[paramIndex]
    LaunchVar,   // `ctas` / `sms` / `early` / `l2_mb` inside @variant(when = ...)
  };
  Kind kind = Kind::Let;
  std::string name;
  SourceRange range;
  Type type;
  int paramIndex = -1; // for KernelParam
};

//===----------------------------------------------------------------------===//
// Type syntax (annotations: `let x: T`, `as T`, dtype arguments, params)
//===----------------------------------------------------------------------===//

/// `f32`, `*bf16`, or `tile<128 x 64 x f32>` as written; sema fills
/// `resolved` (tile dims are constant expressions).
struct TypeRef {
  SourceRange range;
  ElementType elem;
  std::vector<std::unique_ptr<struct Expr>> tileDims; // empty: not a tile
  Type resolved;

  TypeRef();
  ~TypeRef();
  TypeRef(TypeRef &&) noexcept;
  TypeRef &operator=(TypeRef &&) noexcept;
};

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

enum class ExprKind : uint8_t {
  IntLit,
  FloatLit,
  BoolLit,
  Name,
  Unary,
  Binary,
  Cast,
  Call,
  Index,       // x[:, None]
  TypeArg,     // a type used as an argument: zeros(64, f32)
  Broadcast,   // implicit splat / broadcast inserted by sema
  InlinedCall, // a helper call after inlining
};

struct Expr {
  const ExprKind kind;
  SourceRange range;
  Type type;                            // set by sema
  std::optional<ConstValue> constValue; // set by sema when compile-time

  virtual ~Expr() = default;

protected:
  Expr(ExprKind k, SourceRange r) : kind(k), range(r) {}
};
using ExprPtr = std::unique_ptr<Expr>;

struct IntLitExpr : Expr {
  uint64_t value; // as written (unsigned so that 9223372036854775808 parses)
  IntLitExpr(SourceRange r, uint64_t v) : Expr(ExprKind::IntLit, r), value(v) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::IntLit; }
};

struct FloatLitExpr : Expr {
  double value;
  FloatLitExpr(SourceRange r, double v)
      : Expr(ExprKind::FloatLit, r), value(v) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::FloatLit; }
};

struct BoolLitExpr : Expr {
  bool value;
  BoolLitExpr(SourceRange r, bool v) : Expr(ExprKind::BoolLit, r), value(v) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::BoolLit; }
};

struct NameExpr : Expr {
  std::string name;
  const VarDecl *decl = nullptr; // set by sema
  NameExpr(SourceRange r, std::string n)
      : Expr(ExprKind::Name, r), name(std::move(n)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Name; }
};

enum class UnaryOp : uint8_t { Neg, Not, BitNot };
const char *unaryOpSpelling(UnaryOp op);

struct UnaryExpr : Expr {
  UnaryOp op;
  ExprPtr operand;
  UnaryExpr(SourceRange r, UnaryOp o, ExprPtr x)
      : Expr(ExprKind::Unary, r), op(o), operand(std::move(x)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Unary; }
};

enum class BinaryOp : uint8_t {
  LogicalOr,
  LogicalAnd,
  BitOr,
  BitXor,
  BitAnd,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Shl,
  Shr, // arithmetic for signed, logical for unsigned element types
  Add,
  Sub,
  Mul,
  Div, // ints truncate toward zero
  Rem, // ints: sign of the dividend (C semantics)
};
const char *binaryOpSpelling(BinaryOp op);
bool isComparison(BinaryOp op);

struct BinaryExpr : Expr {
  BinaryOp op;
  SourceRange opRange;
  ExprPtr lhs, rhs;
  BinaryExpr(SourceRange r, BinaryOp o, SourceRange opR, ExprPtr l, ExprPtr rr)
      : Expr(ExprKind::Binary, r), op(o), opRange(opR), lhs(std::move(l)),
        rhs(std::move(rr)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Binary; }
};

enum class Rounding : uint8_t {
  Default, // only before sema; sema picks one of the others
  RNE,     // round to nearest, ties to even
  RZ,      // toward zero (float -> int always uses this)
  RU,      // toward +inf
  RD,      // toward -inf
};
const char *roundingName(Rounding r);

/// `x as T` and `cast(x, T, rounding = .., saturate = ..)`. After sema,
/// `rounding` and `saturate` are explicit: `as` to f8/f4/e8m0 means RNE with
/// saturation to the finite range, float->int means RZ.
struct CastExpr : Expr {
  ExprPtr operand;
  TypeRef target; // element type; the shape follows the operand
  Rounding rounding = Rounding::Default;
  std::optional<bool> saturate; // set by sema
  bool explicitCall = false;    // written as cast(...), not `as`
  CastExpr(SourceRange r, ExprPtr x, TypeRef t)
      : Expr(ExprKind::Cast, r), operand(std::move(x)), target(std::move(t)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Cast; }
};

/// Builtin functions; see Builtins.h for each one's canonical argument list.
enum class Builtin : uint8_t {
  None, // unresolved (before sema)
  ProgramId,
  NumPrograms,
  Arange,
  Zeros,
  Full,
  Load,
  Store,
  AtomicAdd,
  AtomicMax,
  Exp,
  Exp2,
  Log,
  Log2,
  Sqrt,
  Rsqrt,
  Sigmoid,
  Silu,
  Softplus,
  Tanh,
  Abs,
  Fma,
  Minimum, // elementwise min(a, b)
  Maximum, // elementwise max(a, b)
  Where,
  Cdiv,
  Sum,
  ReduceMax, // max(x, axis = k) / max(x)
  ReduceMin,
  Argmax,
  Argmin,
  Reshape,
  BroadcastTo,
  ExpandDims,
  Bitcast, // bitcast(x, T): the same bits as another type of the same width
  WithLayout, // with_layout(x, spt0 = .., tpw0 = .., wpc0 = .., order0 = ..)
  Trans,      // trans(x): a 2-D tile with its dimensions swapped
  Dot,        // dot(a, b, acc?): a @ b (+ acc) on tensor cores, f32
  // Quantization (docs/language.md, "Quantization"): the values and the
  // scales of one scheme are separate calls on the same input; the compiler
  // computes the shared work once.
  QuantizeNvfp4,
  Nvfp4Scales,
  DequantizeNvfp4,
  QuantizeMxfp4,
  Mxfp4Scales,
  DequantizeMxfp4,
  QuantizeFp8,        // static per-tensor: quantize_fp8(x, scale, f8e4m3)
  DequantizeFp8,
  QuantizeFp8Group,   // per-token groups of 128 along the last dimension
  Fp8GroupScales,
  DequantizeFp8Group,
  WaitPriorKernel,
  LaunchDependents,
};

/// One call argument; `name` is set for keyword arguments (`mask = m`).
struct CallArg {
  std::string name;
  SourceRange nameRange;
  ExprPtr value;
};

struct CallExpr : Expr {
  std::string callee;
  SourceRange calleeRange;
  std::vector<CallArg> args; // after sema: canonical order, names cleared
  Builtin builtin = Builtin::None;
  // Compile-time operands resolved by sema (also visible in `type`):
  int axis = -1;              // program_id, num_programs, reductions,
                              // expand_dims
  int64_t start = 0;          // arange start (end = start + shape[0])
  std::vector<int64_t> shape; // zeros, full, reshape, broadcast_to
  // with_layout: sizePerThread, threadsPerWarp, warpsPerCTA, order, each
  // `rank` entries, concatenated.
  std::vector<int64_t> layout;
  // FP8 quantization: the FP8 type of the values, and whether group scales
  // are rounded up to powers of two (UE8M0).
  ScalarKind fp8 = ScalarKind::F8E4M3;
  bool ue8m0 = false;
  // store(..., streaming = 1): the stores carry the streaming cache hint.
  bool streaming = false;
  CallExpr(SourceRange r, std::string c, SourceRange cr)
      : Expr(ExprKind::Call, r), callee(std::move(c)), calleeRange(cr) {}
  Expr *arg(size_t i) const {
    return i < args.size() ? args[i].value.get() : nullptr;
  }
  static bool classof(const Expr *e) { return e->kind == ExprKind::Call; }
};

/// `x[:, None]`: each entry is a kept dim (`:`) or a new size-1 dim (None).
struct IndexExpr : Expr {
  ExprPtr base;
  std::vector<bool> isNewDim; // true for None
  IndexExpr(SourceRange r, ExprPtr b, std::vector<bool> n)
      : Expr(ExprKind::Index, r), base(std::move(b)), isNewDim(std::move(n)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::Index; }
};

/// A type written where a value is expected (dtype arguments). Its `type` is
/// the named type itself.
struct TypeArgExpr : Expr {
  TypeRef typeRef;
  TypeArgExpr(SourceRange r, TypeRef t)
      : Expr(ExprKind::TypeArg, r), typeRef(std::move(t)) {}
  static bool classof(const Expr *e) { return e->kind == ExprKind::TypeArg; }
};

/// Inserted by sema: the operand (scalar or tile) broadcast to `type`
/// (a tile of the same element type). A scalar operand is a splat; a tile
/// operand has rank <= the target's, its dims aligned right (numpy): missing
/// leading dims and size-1 dims are broadcast.
struct BroadcastExpr : Expr {
  ExprPtr operand;
  BroadcastExpr(ExprPtr x, Type to)
      : Expr(ExprKind::Broadcast, x->range), operand(std::move(x)) {
    type = std::move(to);
  }
  static bool classof(const Expr *e) { return e->kind == ExprKind::Broadcast; }
};

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;
using Block = std::vector<StmtPtr>;

/// A helper call after inlining: `body` first binds each parameter with a
/// LetStmt (in parameter order), then runs the helper's statements; the
/// value is `result`. Names inside resolve to VarDecls of this copy.
struct InlinedCallExpr : Expr {
  std::string helper;
  Block body;
  ExprPtr result;
  InlinedCallExpr(SourceRange r, std::string h)
      : Expr(ExprKind::InlinedCall, r), helper(std::move(h)) {}
  static bool classof(const Expr *e) {
    return e->kind == ExprKind::InlinedCall;
  }
};

//===----------------------------------------------------------------------===//
// Statements
//===----------------------------------------------------------------------===//

enum class StmtKind : uint8_t { Let, Assign, Expr, For, If, Return };

struct Stmt {
  const StmtKind kind;
  SourceRange range;
  virtual ~Stmt() = default;

protected:
  Stmt(StmtKind k, SourceRange r) : kind(k), range(r) {}
};

struct LetStmt : Stmt {
  std::unique_ptr<VarDecl> var;
  std::optional<TypeRef> annotation;
  ExprPtr init; // after sema: has exactly var->type
  LetStmt(SourceRange r, std::unique_ptr<VarDecl> v, ExprPtr i)
      : Stmt(StmtKind::Let, r), var(std::move(v)), init(std::move(i)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Let; }
};

/// `x = e;`. The parser desugars `x op= e` to `x = x op e`.
struct AssignStmt : Stmt {
  std::string name;
  SourceRange nameRange;
  const VarDecl *target = nullptr; // set by sema
  ExprPtr value;                   // after sema: has exactly target->type
  AssignStmt(SourceRange r, std::string n, SourceRange nr, ExprPtr v)
      : Stmt(StmtKind::Assign, r), name(std::move(n)), nameRange(nr),
        value(std::move(v)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Assign; }
};

struct ExprStmt : Stmt {
  ExprPtr expr;
  ExprStmt(SourceRange r, ExprPtr e)
      : Stmt(StmtKind::Expr, r), expr(std::move(e)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Expr; }
};

/// A variable defined before a `for`/`if` and assigned inside it: the
/// emitter threads it through iter_args / yields. Listed in order of first
/// assignment.
struct CarriedVar {
  const VarDecl *var;
  Type type;
};

/// `for i in range(start, end, step) { body }`; start/end/step are integer
/// scalars of one type (the index's type); step is a literal 1 when omitted.
struct ForStmt : Stmt {
  std::unique_ptr<VarDecl> index;
  ExprPtr start, end, step;
  ExprPtr unrollExpr;   // range(.., unroll = N); null: not unrolled
  int64_t unroll = 1;   // set by sema from unrollExpr
  Block body;
  std::vector<CarriedVar> carried; // set by sema
  ForStmt(SourceRange r) : Stmt(StmtKind::For, r) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::For; }
};

/// `if cond { .. } else { .. }` on a scalar i1; `else if` nests an IfStmt as
/// the only statement of elseBody.
struct IfStmt : Stmt {
  ExprPtr cond;
  Block thenBody, elseBody;
  std::vector<CarriedVar> carried; // assigned in either branch; set by sema
  IfStmt(SourceRange r) : Stmt(StmtKind::If, r) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::If; }
};

/// `return;` in kernels (not inside a `for`), `return e;` as the last
/// statement of a helper (consumed by inlining; never seen by the emitter).
struct ReturnStmt : Stmt {
  ExprPtr value; // null for `return;`
  ReturnStmt(SourceRange r, ExprPtr v)
      : Stmt(StmtKind::Return, r), value(std::move(v)) {}
  static bool classof(const Stmt *s) { return s->kind == StmtKind::Return; }
};

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

/// `const NAME = expr;` or a kernel compile-time param `<NAME: T = expr>`.
/// Constants behave like untyped literals in expressions (they adapt to the
/// other operand); a written type only constrains the value.
struct ConstantDecl {
  std::string name;
  SourceRange range;
  std::optional<TypeRef> annotation;
  ExprPtr init;
  ConstValue value;        // set by sema (after any -D override)
  bool overridden = false; // value came from -D
};

/// `fn name(a, b) { ...; return e; }`: inlined at each call.
struct HelperDecl {
  std::string name;
  SourceRange range;
  std::vector<std::pair<std::string, SourceRange>> params;
  Block body;
};

/// A runtime kernel parameter.
struct ParamDecl {
  std::unique_ptr<VarDecl> var; // var->type: scalar or pointer
  TypeRef typeRef;
  std::vector<ExprPtr> shape;        // `*bf16[M, 2 * I]`: runtime shape check
  std::optional<int64_t> multipleOf; // ints: value % N == 0
  int64_t align = 16; // pointers: byte alignment assumed (default 16)
};

/// A written attribute before sema interprets it: `@name(args)`.
struct AttributeSyntax {
  std::string name;
  SourceRange range;
  std::vector<CallArg> args;
};

/// `@variant(name, maxnreg = N, min_ctas_per_sm = N, num_warps = N,
/// tile_division = 0|1, tree_reductions = 0|1, fused_reductions = 0|1, early_launch = 0|1,
/// when = cond)`: an alternative compilation picked at launch when `when` holds
/// (over scalar params, constants, `ctas`, `sms`, `early` and `l2_mb`).
struct Variant {
  std::string name;
  SourceRange range;
  std::optional<int64_t> numWarps, maxnreg, minCtasPerSm;
  std::optional<bool> tileDivision;   // unset: the kernel's
  std::optional<bool> treeReductions; // unset: the kernel's
  std::optional<bool> fusedReductions; // unset: the kernel's
  std::optional<bool> earlyLaunch;    // unset: the kernel's
  ExprPtr when; // null: always eligible
  /// Constants (module constants or the kernel's compile-time params) with
  /// other values in this variant, e.g. BLOCK = 2048: the driver compiles the
  /// body again with them, like -D.
  std::vector<std::pair<std::string, int64_t>> constants;
};

struct KernelDecl {
  std::string name;
  SourceRange range;
  std::vector<AttributeSyntax> attributes; // as written
  std::vector<ConstantDecl> constParams;   // `<BLOCK: i32 = 1024>`
  std::vector<ParamDecl> params;
  Block body;

  // Interpreted attributes (set by sema):
  int64_t numWarps = 4;
  std::optional<int64_t> maxnreg, minCtasPerSm;
  bool fastMath = false; // @fast_math: approximate exp/log/tanh and f32 division
  bool fastDivision = false; // @fast_division: approximate f32 division only
  bool valueMajor = false; // @value_major: each value's operations together
  bool tileDivision = false; // @tile_division: one range check for a tile's f32 divisions
  bool treeReductions = false; // @tree_reductions: a thread's values combine pairwise
  /// @fused_reductions: a block's reductions across the same lanes share one
  /// reduce-scatter butterfly.
  bool fusedReductions = false;
  /// @early_launch: launched while the kernel before it on the stream still
  /// runs (programmatic dependent launch); it waits for that kernel at its
  /// wait_prior_kernel() call, or at entry when it has none.
  bool earlyLaunch = false;
  bool explicitWait = false; // the body calls wait_prior_kernel()
  /// The body calls launch_dependents(): the next early-launched kernel may
  /// start from there on, not only once the wait has passed.
  bool explicitTrigger = false;
  std::vector<ExprPtr> grid; // 0-3 scalar integer exprs; empty: grid (1)
  std::vector<Variant> variants;
  /// `ctas`, `sms`, `early` and `l2_mb`, referenced from Variant::when.
  std::vector<std::unique_ptr<VarDecl>> launchVars;
};

/// One parsed file. Imports are resolved by the frontend into Module::files.
struct FileAST {
  uint32_t fileId = 0;
  std::vector<std::pair<std::string, SourceRange>> imports;
  std::vector<ConstantDecl> constants;
  std::vector<HelperDecl> helpers;
  std::vector<KernelDecl> kernels;
};

/// The root file and everything it imports (each file once), in dependency
/// order (imports first, root last). Kernels of imported files are checked
/// but only the root file's kernels are compiled: see kernels().
struct Module {
  std::vector<std::unique_ptr<FileAST>> files;

  FileAST &root() { return *files.back(); }
  const FileAST &root() const { return *files.back(); }
  std::vector<KernelDecl> &kernels() { return root().kernels; }
  const std::vector<KernelDecl> &kernels() const { return root().kernels; }
  const KernelDecl *findKernel(const std::string &name) const;
  /// Drops the root file's kernels not named in `names` (--kernel; a
  /// variant's own analysis).
  void keepKernels(const std::vector<std::string> &names);
};

/// Deep copy of a parsed (not yet analyzed) tree; used to inline helpers.
ExprPtr cloneExpr(const Expr &e);
StmtPtr cloneStmt(const Stmt &s);
TypeRef cloneTypeRef(const TypeRef &t);

} // namespace megac::fe
