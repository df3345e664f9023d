#include "IRGen.h"
#include "frontend/WhenFacts.h"

#include "Tile/IR/TileDialect.h"
#include "Tile/Layout/BlockedLayout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
namespace fe = megac::fe;

namespace megac {
namespace {

class IRGen {
public:
  IRGen(MLIRContext &ctx, const fe::SourceManager &sm)
      : ctx(ctx), sm(sm), b(&ctx) {}

  OwningOpRef<ModuleOp> run(const fe::Module &module, const VariantBodies &bodies);

private:
  // --- types and locations ----------------------------------------------------
  // A variant's ops carry its name around their source location, so that a
  // diagnostic from the passes or the lowering can say which variant of the
  // kernel it is about (the driver unwraps it: driver/Compiler.cpp).
  Location loc(fe::SourceRange r) {
    if (!r.isValid())
      return UnknownLoc::get(&ctx);
    auto lc = sm.lineCol(r.file, r.begin);
    Location at = FileLineColLoc::get(&ctx, sm.name(r.file), lc.line, lc.col);
    return variantName ? Location(NameLoc::get(variantName, at)) : at;
  }
  Type scalarType(fe::ScalarKind k) {
    using K = fe::ScalarKind;
    switch (k) {
    case K::I1:
      return b.getI1Type();
    case K::I8:
    case K::U8:
    case K::F4E2M1X2: // a byte holding two E2M1 values
      return b.getI8Type();
    case K::I16:
    case K::U16:
      return b.getI16Type();
    case K::I32:
    case K::U32:
      return b.getI32Type();
    case K::I64:
    case K::U64:
      return b.getI64Type();
    case K::F16:
      return b.getF16Type();
    case K::BF16:
      return b.getBF16Type();
    case K::F32:
      return b.getF32Type();
    case K::F64:
      return b.getF64Type();
    case K::F8E4M3:
      return b.getType<Float8E4M3FNType>();
    case K::F8E5M2:
      return b.getType<Float8E5M2Type>();
    case K::E8M0:
      return b.getType<Float8E8M0FNUType>();
    }
    return b.getI32Type();
  }
  Type elementType(const fe::ElementType &e) {
    Type s = scalarType(e.scalar);
    return e.isPointer ? Type(tile::PtrType::get(&ctx, s)) : s;
  }
  Type toMLIR(const fe::Type &t) {
    Type elem = elementType(t.elem);
    if (t.shape.empty())
      return elem;
    return RankedTensorType::get(t.shape, elem);
  }

  // --- statements ---------------------------------------------------------------
  /// `body` is the kernel's, or a variant's own when its constants differ;
  /// the settings come from the kernel `k` and the variant `v` (null: none).
  LogicalResult emitKernel(const fe::KernelDecl &body, const std::string &symbol,
                           const fe::KernelDecl &k, const fe::Variant *v,
                           ModuleOp module);
  LogicalResult emitBlock(const fe::Block &block, size_t from = 0);
  LogicalResult emitStmt(const fe::Stmt &s);
  LogicalResult emitFor(const fe::ForStmt &s);
  LogicalResult emitIf(const fe::IfStmt &s, const fe::Block *rest,
                       size_t restFrom);
  /// The wait for the prior kernel, then, unless the kernel launches its
  /// dependents itself (launch_dependents()), the next kernel's launch.
  void emitWait(Location l) {
    tile::WaitPriorKernelOp::create(b, l, /*launch_dependents=*/!explicitTrigger);
  }

  // --- expressions --------------------------------------------------------------
  Value emit(const fe::Expr &e);
  Value emitLiteral(const fe::Expr &e, Attribute scalar);
  Value emitBinary(const fe::BinaryExpr &e);
  Value emitCast(Value v, const fe::Type &from, const fe::Type &to, Location l);
  Value emitCall(const fe::CallExpr &e);
  Value constant(Type type, double v) {
    Type elem = getElementTypeOrSelf(type);
    TypedAttr scalar = isa<FloatType>(elem)
                           ? TypedAttr(b.getFloatAttr(elem, v))
                           : TypedAttr(b.getIntegerAttr(elem, int64_t(v)));
    if (auto t = dyn_cast<RankedTensorType>(type))
      return arith::ConstantOp::create(b, b.getUnknownLoc(),
                                         SplatElementsAttr::get(t, scalar));
    return arith::ConstantOp::create(b, b.getUnknownLoc(), scalar);
  }
  Type withF32(Type t) { return tile::withElementType(t, b.getF32Type()); }
  bool fail(fe::SourceRange r, const Twine &msg) {
    emitError(loc(r), msg);
    failed_ = true;
    return false;
  }

  static bool isFloatType(const fe::Type &t) {
    return fe::isFloat(t.elem.scalar) && !t.elem.isPointer;
  }
  static bool isSignedType(const fe::Type &t) {
    return fe::isSigned(t.elem.scalar);
  }

  MLIRContext &ctx;
  const fe::SourceManager &sm;
  OpBuilder b;
  llvm::DenseMap<const fe::VarDecl *, Value> vars;
  bool failed_ = false;
  bool returned = false; // the current block ended with `return;`
  int64_t numWarps = 4;  // of the kernel being emitted
  bool explicitTrigger = false; // the kernel being emitted calls launch_dependents()
  bool earlyLaunch = false; // of the kernel being emitted: its waits are emitted
  StringAttr variantName;   // "variant 'v' of kernel 'k'" while a variant is emitted
};

OwningOpRef<ModuleOp> IRGen::run(const fe::Module &module,
                                 const VariantBodies &bodies) {
  ctx.loadDialect<tile::TileDialect, arith::ArithDialect, math::MathDialect,
                  scf::SCFDialect, func::FuncDialect>();
  // Owned from here: an error below must not leak the partial module.
  OwningOpRef<ModuleOp> owned = ModuleOp::create(loc(module.root().kernels.empty()
                                        ? fe::SourceRange()
                                        : module.root().kernels[0].range));
  for (const fe::KernelDecl &k : module.kernels()) {
    if (failed(emitKernel(k, k.name, k, nullptr, *owned)))
      return nullptr;
    for (const fe::Variant &v : k.variants) {
      std::string symbol = variantSymbol(k.name, v.name);
      auto own = bodies.find(symbol);
      if (failed(emitKernel(own == bodies.end() ? k : *own->second, symbol, k, &v,
                            *owned)))
        return nullptr;
    }
  }
  return owned;
}

LogicalResult IRGen::emitKernel(const fe::KernelDecl &body,
                                const std::string &symbol,
                                const fe::KernelDecl &k, const fe::Variant *v,
                                ModuleOp module) {
  int64_t warps = v && v->numWarps ? *v->numWarps : k.numWarps;
  std::optional<int64_t> maxnreg = v && v->maxnreg ? v->maxnreg : k.maxnreg;
  std::optional<int64_t> minCtas = v && v->minCtasPerSm ? v->minCtasPerSm : k.minCtasPerSm;
  bool tileDivision = v && v->tileDivision ? *v->tileDivision : k.tileDivision;
  bool treeReductions = v && v->treeReductions ? *v->treeReductions : k.treeReductions;
  bool early = v && v->earlyLaunch ? *v->earlyLaunch : k.earlyLaunch;
  // A variant runs only when its `when` holds: its divisibility facts hold
  // in its body (frontend/WhenFacts.h).
  std::map<int, int64_t> divisors;
  if (v && v->when)
    divisors = fe::divisorsFromWhen(*v->when);
  vars.clear();
  returned = false;
  variantName = v ? b.getStringAttr("variant '" + v->name + "' of kernel '" + k.name + "'")
                  : StringAttr();
  this->numWarps = warps;
  this->earlyLaunch = early;
  this->explicitTrigger = body.explicitTrigger;
  SmallVector<Type> params;
  for (const fe::ParamDecl &p : body.params)
    params.push_back(toMLIR(p.var->type));
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc(body.range), symbol,
                                     b.getFunctionType(params, {}));
  func->setAttr(tile::attr::kKernel, b.getUnitAttr());
  func->setAttr(tile::attr::kNumWarps, b.getI32IntegerAttr(int32_t(warps)));
  if (k.fastMath)
    func->setAttr(tile::attr::kFastMath, b.getUnitAttr());
  if (k.fastDivision)
    func->setAttr(tile::attr::kFastDivision, b.getUnitAttr());
  if (k.valueMajor)
    func->setAttr(tile::attr::kValueMajor, b.getUnitAttr());
  if (tileDivision)
    func->setAttr(tile::attr::kTileDivision, b.getUnitAttr());
  if (treeReductions)
    func->setAttr(tile::attr::kTreeReductions, b.getUnitAttr());
  if (early)
    func->setAttr(tile::attr::kEarlyLaunch, b.getUnitAttr());
  if (maxnreg)
    func->setAttr(tile::attr::kMaxNReg, b.getI32IntegerAttr(int32_t(*maxnreg)));
  if (minCtas)
    func->setAttr(tile::attr::kMinCtasPerSM,
                  b.getI32IntegerAttr(int32_t(*minCtas)));
  for (size_t i = 0; i < body.params.size(); ++i) {
    const fe::ParamDecl &p = body.params[i];
    if (p.var->type.isPointer()) {
      func.setArgAttr(i, tile::attr::kAlignment, b.getI64IntegerAttr(p.align));
      continue;
    }
    int64_t divisor = p.multipleOf.value_or(1);
    auto known = divisors.find(int(i));
    if (known != divisors.end())
      divisor = fe::combineDivisors(divisor, known->second);
    if (divisor > 1)
      func.setArgAttr(i, tile::attr::kDivisibility, b.getI64IntegerAttr(divisor));
  }
  Block *entry = func.addEntryBlock();
  for (size_t i = 0; i < body.params.size(); ++i)
    vars[body.params[i].var.get()] = entry->getArgument(i);
  b.setInsertionPointToStart(entry);
  // Without its own wait_prior_kernel() call, an @early_launch kernel waits
  // before anything else: only its launch overlaps the prior kernel.
  if (early && !body.explicitWait)
    emitWait(loc(body.range));
  if (failed(emitBlock(body.body)) || failed_)
    return failure();
  func::ReturnOp::create(b, loc(body.range));
  return success();
}

// A statement list whose last statement is `return;`.
bool endsWithReturn(const fe::Block &block) {
  return !block.empty() && fe::isa<fe::ReturnStmt>(block.back().get());
}

LogicalResult IRGen::emitBlock(const fe::Block &block, size_t from) {
  for (size_t i = from; i < block.size(); ++i) {
    const fe::Stmt &s = *block[i];
    if (fe::isa<fe::ReturnStmt>(&s)) {
      returned = true;
      return success(); // statements after a return never run
    }
    // `if c { ...; return; } rest`: the rest runs only on the other branch.
    if (auto *branch = fe::dyn_cast<fe::IfStmt>(&s))
      if (endsWithReturn(branch->thenBody) || endsWithReturn(branch->elseBody))
        return emitIf(*branch, &block, i + 1);
    if (failed(emitStmt(s)))
      return failure();
  }
  return success();
}

LogicalResult IRGen::emitStmt(const fe::Stmt &s) {
  if (auto *let = fe::dyn_cast<fe::LetStmt>(&s)) {
    Value v = emit(*let->init);
    if (!v)
      return failure();
    vars[let->var.get()] = v;
    return success();
  }
  if (auto *assign = fe::dyn_cast<fe::AssignStmt>(&s)) {
    Value v = emit(*assign->value);
    if (!v)
      return failure();
    vars[assign->target] = v;
    return success();
  }
  if (auto *expr = fe::dyn_cast<fe::ExprStmt>(&s)) {
    emit(*expr->expr);
    return failure(failed_);
  }
  if (auto *loop = fe::dyn_cast<fe::ForStmt>(&s))
    return emitFor(*loop);
  if (auto *branch = fe::dyn_cast<fe::IfStmt>(&s))
    return emitIf(*branch, nullptr, 0);
  fail(s.range, "this statement is not supported here");
  return failure();
}

LogicalResult IRGen::emitFor(const fe::ForStmt &s) {
  Value lb = emit(*s.start), ub = emit(*s.end), step = emit(*s.step);
  if (!lb || !ub || !step)
    return failure();
  SmallVector<Value> inits;
  for (const fe::CarriedVar &c : s.carried)
    inits.push_back(vars.lookup(c.var));
  auto loop = scf::ForOp::create(b, loc(s.range), lb, ub, step, inits);
  if (s.unroll > 1)
    loop->setAttr(tile::attr::kUnroll, b.getI64IntegerAttr(s.unroll));
  OpBuilder::InsertionGuard guard(b);
  Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    body->back().erase();
  b.setInsertionPointToEnd(body);
  vars[s.index.get()] = loop.getInductionVar();
  for (auto [c, arg] : llvm::zip(s.carried, loop.getRegionIterArgs()))
    vars[c.var] = arg;
  bool outerReturned = returned;
  if (failed(emitBlock(s.body)))
    return failure();
  if (returned && !outerReturned)
    return fail(s.range, "'return' inside a loop is not supported"), failure();
  SmallVector<Value> yields;
  for (const fe::CarriedVar &c : s.carried)
    yields.push_back(vars.lookup(c.var));
  scf::YieldOp::create(b, loc(s.range), yields);
  b.setInsertionPointAfter(loop);
  for (auto [c, result] : llvm::zip(s.carried, loop.getResults()))
    vars[c.var] = result;
  return success();
}

LogicalResult IRGen::emitIf(const fe::IfStmt &s, const fe::Block *rest,
                            size_t restFrom) {
  Value cond = emit(*s.cond);
  if (!cond)
    return failure();
  // With a trailing return in one branch, nothing after this `if` runs on
  // that path, so the remaining statements move into the other branch and
  // the `if` yields nothing.
  bool absorbsRest = rest != nullptr;
  SmallVector<Type> types;
  if (!absorbsRest)
    for (const fe::CarriedVar &c : s.carried)
      types.push_back(toMLIR(c.type));
  auto branch = scf::IfOp::create(b, loc(s.range), types, cond, true);
  auto saved = vars;
  bool thenReturned = false, elseReturned = false;
  for (int side = 0; side < 2; ++side) {
    const fe::Block &body = side == 0 ? s.thenBody : s.elseBody;
    Block *block = side == 0 ? branch.thenBlock() : branch.elseBlock();
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      block->back().erase();
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(block);
    vars = saved;
    returned = false;
    if (failed(emitBlock(body)))
      return failure();
    if (absorbsRest && !returned && failed(emitBlock(*rest, restFrom)))
      return failure();
    (side == 0 ? thenReturned : elseReturned) = returned;
    SmallVector<Value> yields;
    if (!absorbsRest)
      for (const fe::CarriedVar &c : s.carried)
        yields.push_back(vars.lookup(c.var));
    scf::YieldOp::create(b, loc(s.range), yields);
  }
  vars = saved;
  if (!absorbsRest && (thenReturned || elseReturned))
    return fail(s.range, "'return' inside a nested 'if' is not supported; "
                         "move it to an 'if' at the top of the kernel"),
           failure();
  returned = absorbsRest; // the rest of the enclosing block was consumed
  if (!absorbsRest)
    for (auto [c, result] : llvm::zip(s.carried, branch.getResults()))
      vars[c.var] = result;
  return success();
}

Value IRGen::emitLiteral(const fe::Expr &e, Attribute) {
  Type type = toMLIR(e.type);
  Type elem = getElementTypeOrSelf(type);
  TypedAttr scalar;
  // Literals carry their written value; sema may also have folded one.
  fe::ConstValue c;
  if (e.constValue)
    c = *e.constValue;
  else if (auto *i = fe::dyn_cast<fe::IntLitExpr>(&e))
    c = fe::ConstValue::ofInt(int64_t(i->value));
  else if (auto *f = fe::dyn_cast<fe::FloatLitExpr>(&e))
    c = fe::ConstValue::ofFloat(f->value);
  else if (auto *bl = fe::dyn_cast<fe::BoolLitExpr>(&e))
    c = fe::ConstValue::ofBool(bl->value);
  if (isa<FloatType>(elem))
    scalar = b.getFloatAttr(elem, c.asDouble());
  else if (elem.isInteger(1))
    scalar = b.getBoolAttr(c.isBool() ? c.b : c.asDouble() != 0);
  else
    scalar = b.getIntegerAttr(elem, c.isInt() ? c.i : int64_t(c.asDouble()));
  if (auto t = dyn_cast<RankedTensorType>(type))
    return arith::ConstantOp::create(b, loc(e.range),
                                       SplatElementsAttr::get(t, scalar));
  return arith::ConstantOp::create(b, loc(e.range), scalar);
}

Value IRGen::emit(const fe::Expr &e) {
  if (failed_)
    return nullptr;
  Location l = loc(e.range);
  if (fe::isa<fe::IntLitExpr>(&e) || fe::isa<fe::FloatLitExpr>(&e) ||
      fe::isa<fe::BoolLitExpr>(&e)) {
    return emitLiteral(e, {});
  }
  if (auto *name = fe::dyn_cast<fe::NameExpr>(&e)) {
    if (e.constValue && !e.type.isPointer())
      return emitLiteral(e, {});
    Value v = vars.lookup(name->decl);
    if (!v)
      return fail(e.range, "'" + name->name + "' has no value here"), nullptr;
    return v;
  }
  if (auto *un = fe::dyn_cast<fe::UnaryExpr>(&e)) {
    Value x = emit(*un->operand);
    if (!x)
      return nullptr;
    switch (un->op) {
    case fe::UnaryOp::Neg:
      if (isFloatType(e.type))
        return arith::NegFOp::create(b, l, x);
      return arith::SubIOp::create(b, l, constant(x.getType(), 0), x);
    case fe::UnaryOp::Not:
      return arith::XOrIOp::create(b, l, x, constant(x.getType(), 1));
    case fe::UnaryOp::BitNot:
      return arith::XOrIOp::create(b, l, x, constant(x.getType(), -1));
    }
  }
  if (auto *bin = fe::dyn_cast<fe::BinaryExpr>(&e))
    return emitBinary(*bin);
  if (auto *cast = fe::dyn_cast<fe::CastExpr>(&e)) {
    Value x = emit(*cast->operand);
    if (!x)
      return nullptr;
    return emitCast(x, cast->operand->type, e.type, l);
  }
  if (auto *call = fe::dyn_cast<fe::CallExpr>(&e))
    return emitCall(*call);
  if (auto *index = fe::dyn_cast<fe::IndexExpr>(&e)) {
    Value x = emit(*index->base);
    if (!x)
      return nullptr;
    auto t = dyn_cast<RankedTensorType>(x.getType());
    if (!t)
      return fail(e.range, "only tiles can be indexed"), nullptr;
    SmallVector<int64_t> shape(t.getShape());
    for (size_t d = 0; d < index->isNewDim.size(); ++d)
      if (index->isNewDim[d]) {
        shape.insert(shape.begin() + d, 1);
        x = tile::ExpandDimsOp::create(b, 
            l, RankedTensorType::get(shape, t.getElementType()), x,
            b.getI32IntegerAttr(int32_t(d)));
      }
    return x;
  }
  if (auto *bc = fe::dyn_cast<fe::BroadcastExpr>(&e)) {
    Value x = emit(*bc->operand);
    if (!x)
      return nullptr;
    auto to = dyn_cast<RankedTensorType>(toMLIR(e.type));
    if (!to)
      return x; // a scalar "broadcast" to a scalar changes nothing
    if (!isa<RankedTensorType>(x.getType()))
      return tile::SplatOp::create(b, l, to, x);
    if (x.getType() == to)
      return x;
    return tile::BroadcastOp::create(b, l, to, x);
  }
  if (auto *inl = fe::dyn_cast<fe::InlinedCallExpr>(&e)) {
    if (failed(emitBlock(inl->body)))
      return nullptr;
    return emit(*inl->result);
  }
  return fail(e.range, "this expression is not supported by code generation"),
         nullptr;
}

Value IRGen::emitBinary(const fe::BinaryExpr &e) {
  Value x = emit(*e.lhs), y = emit(*e.rhs);
  if (!x || !y)
    return nullptr;
  Location l = loc(e.opRange);
  const fe::Type &operand = e.lhs->type;
  using Op = fe::BinaryOp;
  if (operand.isPointer()) {
    if (e.op == Op::Sub)
      y = arith::SubIOp::create(b, l, constant(y.getType(), 0), y);
    if (e.op == Op::Add || e.op == Op::Sub)
      return tile::AddPtrOp::create(b, l, x.getType(), x, y);
    return fail(e.range, "unsupported pointer operation"), nullptr;
  }
  bool isF = isFloatType(operand), isS = isSignedType(operand);
  if (fe::isComparison(e.op)) {
    if (isF) {
      arith::CmpFPredicate p;
      switch (e.op) {
      case Op::Eq: p = arith::CmpFPredicate::OEQ; break;
      case Op::Ne: p = arith::CmpFPredicate::UNE; break;
      case Op::Lt: p = arith::CmpFPredicate::OLT; break;
      case Op::Le: p = arith::CmpFPredicate::OLE; break;
      case Op::Gt: p = arith::CmpFPredicate::OGT; break;
      default: p = arith::CmpFPredicate::OGE; break;
      }
      return arith::CmpFOp::create(b, l, p, x, y);
    }
    arith::CmpIPredicate p;
    switch (e.op) {
    case Op::Eq: p = arith::CmpIPredicate::eq; break;
    case Op::Ne: p = arith::CmpIPredicate::ne; break;
    case Op::Lt: p = isS ? arith::CmpIPredicate::slt : arith::CmpIPredicate::ult; break;
    case Op::Le: p = isS ? arith::CmpIPredicate::sle : arith::CmpIPredicate::ule; break;
    case Op::Gt: p = isS ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt; break;
    default: p = isS ? arith::CmpIPredicate::sge : arith::CmpIPredicate::uge; break;
    }
    return arith::CmpIOp::create(b, l, p, x, y);
  }
  switch (e.op) {
  case Op::LogicalOr:
  case Op::BitOr:
    return arith::OrIOp::create(b, l, x, y);
  case Op::LogicalAnd:
  case Op::BitAnd:
    return arith::AndIOp::create(b, l, x, y);
  case Op::BitXor:
    return arith::XOrIOp::create(b, l, x, y);
  case Op::Shl:
    return arith::ShLIOp::create(b, l, x, y);
  case Op::Shr:
    return isS ? arith::ShRSIOp::create(b, l, x, y).getResult()
               : arith::ShRUIOp::create(b, l, x, y).getResult();
  case Op::Add:
    return isF ? arith::AddFOp::create(b, l, x, y).getResult()
               : arith::AddIOp::create(b, l, x, y).getResult();
  case Op::Sub:
    return isF ? arith::SubFOp::create(b, l, x, y).getResult()
               : arith::SubIOp::create(b, l, x, y).getResult();
  case Op::Mul:
    return isF ? arith::MulFOp::create(b, l, x, y).getResult()
               : arith::MulIOp::create(b, l, x, y).getResult();
  case Op::Div:
    if (isF)
      return arith::DivFOp::create(b, l, x, y);
    return isS ? arith::DivSIOp::create(b, l, x, y).getResult()
               : arith::DivUIOp::create(b, l, x, y).getResult();
  case Op::Rem:
    if (isF)
      return arith::RemFOp::create(b, l, x, y);
    return isS ? arith::RemSIOp::create(b, l, x, y).getResult()
               : arith::RemUIOp::create(b, l, x, y).getResult();
  default:
    break;
  }
  return fail(e.range, "unsupported operator"), nullptr;
}

Value IRGen::emitCast(Value v, const fe::Type &from, const fe::Type &to,
                      Location l) {
  Type dst = toMLIR(to);
  if (v.getType() == dst)
    return v;
  // Sema refused every cast without a lowering (Sema::checkCastSupported):
  // pointer casts, packed FP4 and E8M0, integers to or from FP8, FP8 without
  // rne or saturation, and rounding modes other than the conversion's own.
  using K = fe::ScalarKind;
  K fk = from.elem.scalar, tk = to.elem.scalar;
  bool fFloat = fe::isFloat(fk), tFloat = fe::isFloat(tk);
  if (from.elem.isPointer || to.elem.isPointer) {
    emitError(l, "internal: unchecked pointer cast");
    failed_ = true;
    return nullptr;
  }
  if (tk == K::F8E4M3 || tk == K::F8E5M2)
    return tile::FpTruncOp::create(b, l, dst, v, b.getStringAttr("rne"),
                                     b.getBoolAttr(true));
  if (fk == K::F8E4M3 || fk == K::F8E5M2)
    return arith::ExtFOp::create(b, l, dst, v);
  Type fe_ = getElementTypeOrSelf(v.getType()), te = getElementTypeOrSelf(dst);
  if (fFloat && tFloat) {
    if (te.getIntOrFloatBitWidth() > fe_.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, l, dst, v);
    if (te.getIntOrFloatBitWidth() == fe_.getIntOrFloatBitWidth()) {
      // f16 <-> bf16 goes through f32, which is exact for both.
      Value wide = arith::ExtFOp::create(b, l, withF32(v.getType()), v);
      return arith::TruncFOp::create(b, l, dst, wide);
    }
    return arith::TruncFOp::create(b, l, dst, v);
  }
  if (!fFloat && !tFloat) {
    if (tk == K::I1)
      return arith::CmpIOp::create(b, l, arith::CmpIPredicate::ne, v,
                                     constant(v.getType(), 0));
    unsigned fw = fe_.getIntOrFloatBitWidth(), tw = te.getIntOrFloatBitWidth();
    if (tw > fw)
      return fe::isSigned(fk) ? arith::ExtSIOp::create(b, l, dst, v).getResult()
                              : arith::ExtUIOp::create(b, l, dst, v).getResult();
    if (tw < fw)
      return arith::TruncIOp::create(b, l, dst, v);
    return v; // same width, other signedness: same bits
  }
  if (tFloat)
    return fe::isSigned(fk) ? arith::SIToFPOp::create(b, l, dst, v).getResult()
                            : arith::UIToFPOp::create(b, l, dst, v).getResult();
  return fe::isSigned(tk) ? arith::FPToSIOp::create(b, l, dst, v).getResult()
                          : arith::FPToUIOp::create(b, l, dst, v).getResult();
}

Value IRGen::emitCall(const fe::CallExpr &e) {
  using B = fe::Builtin;
  Location l = loc(e.range);
  Type result = e.type.isValue() ? toMLIR(e.type) : Type();
  auto arg = [&](size_t i) -> Value {
    const fe::Expr *a = e.arg(i);
    return a ? emit(*a) : Value();
  };
  switch (e.builtin) {
  case B::ProgramId:
    return tile::ProgramIdOp::create(b, l, b.getI32Type(), e.axis);
  case B::NumPrograms:
    return tile::NumProgramsOp::create(b, l, b.getI32Type(), e.axis);
  case B::Arange:
    return tile::ArangeOp::create(b, l, result, int32_t(e.start),
                                    int32_t(e.start + e.shape[0]));
  case B::Zeros:
    return constant(result, 0);
  case B::Full: {
    const fe::Expr *v = e.arg(0);
    if (v->constValue)
      return constant(result, v->constValue->asDouble());
    Value s = emit(*v);
    return s ? tile::SplatOp::create(b, l, result, s).getResult() : Value();
  }
  case B::Dot: {
    // Sema checked the shapes; tile-assign-layouts checks that the kernel's
    // warps can split the result (all dots of a kernel at once).
    Value a = arg(0), bm = arg(1), acc = arg(2);
    if (!a || !bm)
      return nullptr;
    if (!acc)
      acc = constant(result, 0);
    return tile::DotOp::create(b, l, result, a, bm, acc);
  }
  case B::Load: {
    Value ptr = arg(0), mask = arg(1), other = arg(2);
    if (!ptr)
      return nullptr;
    return tile::LoadOp::create(b, l, result, ptr, mask, other);
  }
  case B::Store: {
    Value ptr = arg(0), value = arg(1), mask = arg(2);
    if (!ptr || !value)
      return nullptr;
    tile::StoreOp::create(b, l, ptr, value, mask, e.streaming);
    return ptr; // statements discard it
  }
  case B::WaitPriorKernel:
    // A variant with early_launch = 0 is launched plainly: no wait.
    if (earlyLaunch)
      emitWait(l);
    return Value(); // a statement: nothing to discard
  case B::LaunchDependents:
    if (earlyLaunch)
      tile::LaunchDependentsOp::create(b, l);
    return Value();
  case B::AtomicAdd:
  case B::AtomicMax: {
    Value ptr = arg(0), value = arg(1), mask = arg(2);
    if (!ptr || !value)
      return nullptr;
    // value types: checked by sema (atom.add f32/i32, atom.max i32)
    return tile::AtomicRMWOp::create(b, 
        l, value.getType(), b.getStringAttr(e.builtin == B::AtomicAdd ? "add" : "max"),
        ptr, value, mask);
  }
  default:
    break;
  }

  SmallVector<Value> args;
  for (size_t i = 0; i < e.args.size(); ++i) {
    Value v = arg(i);
    if (!v)
      return nullptr;
    args.push_back(v);
  }
  const fe::Type &argType = e.args.empty() ? e.type : e.arg(0)->type;
  bool isF = isFloatType(argType), isS = isSignedType(argType);
  Value x = args.empty() ? Value() : args[0];
  switch (e.builtin) {
  case B::Exp:
    return math::ExpOp::create(b, l, x);
  case B::Exp2:
    return math::Exp2Op::create(b, l, x);
  case B::Log:
    return math::LogOp::create(b, l, x);
  case B::Log2:
    return math::Log2Op::create(b, l, x);
  case B::Sqrt:
    return math::SqrtOp::create(b, l, x);
  case B::Rsqrt:
    return math::RsqrtOp::create(b, l, x);
  case B::Tanh:
    return math::TanhOp::create(b, l, x);
  case B::Abs:
    return isF ? math::AbsFOp::create(b, l, x).getResult()
               : math::AbsIOp::create(b, l, x).getResult();
  case B::Sigmoid:
  case B::Silu: {
    // x / (1 + exp(-x)): the formula PyTorch's kernels use, so results match
    // to the bit.
    Value one = constant(x.getType(), 1.0);
    Value e1 = math::ExpOp::create(b, l, arith::NegFOp::create(b, l, x));
    Value den = arith::AddFOp::create(b, l, one, e1);
    return arith::DivFOp::create(b, l, e.builtin == B::Silu ? x : one, den);
  }
  case B::Softplus: {
    // PyTorch's default: x above the threshold 20 passes through.
    Value ex = math::ExpOp::create(b, l, x);
    Value lp = math::Log1pOp::create(b, l, ex);
    Value big = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                                        constant(x.getType(), 20.0));
    return arith::SelectOp::create(b, l, big, x, lp);
  }
  case B::Fma:
    return math::FmaOp::create(b, l, args[0], args[1], args[2]);
  case B::Minimum:
    if (isF)
      return arith::MinimumFOp::create(b, l, args[0], args[1]);
    return isS ? arith::MinSIOp::create(b, l, args[0], args[1]).getResult()
               : arith::MinUIOp::create(b, l, args[0], args[1]).getResult();
  case B::Maximum:
    if (isF)
      return arith::MaximumFOp::create(b, l, args[0], args[1]);
    return isS ? arith::MaxSIOp::create(b, l, args[0], args[1]).getResult()
               : arith::MaxUIOp::create(b, l, args[0], args[1]).getResult();
  case B::Where:
    return arith::SelectOp::create(b, l, args[0], args[1], args[2]);
  case B::Cdiv: {
    Value one = constant(args[1].getType(), 1);
    Value num = arith::AddIOp::create(b, 
        l, args[0], arith::SubIOp::create(b, l, args[1], one));
    return isS ? arith::DivSIOp::create(b, l, num, args[1]).getResult()
               : arith::DivUIOp::create(b, l, num, args[1]).getResult();
  }
  case B::Sum:
  case B::ReduceMax:
  case B::ReduceMin:
  case B::Argmax:
  case B::Argmin: {
    const char *kind = e.builtin == B::Sum         ? "sum"
                       : e.builtin == B::ReduceMax ? "max"
                       : e.builtin == B::ReduceMin ? "min"
                       : e.builtin == B::Argmax    ? "argmax"
                                                   : "argmin";
    // The result drops the reduced axis (a scalar for a 1-D tile).
    auto src = cast<RankedTensorType>(x.getType());
    int axis = std::max(0, e.axis);
    Type elem = e.builtin == B::Argmax || e.builtin == B::Argmin
                    ? Type(b.getI32Type())
                    : src.getElementType();
    SmallVector<int64_t> shape(src.getShape());
    shape.erase(shape.begin() + axis);
    result = shape.empty() ? elem : Type(RankedTensorType::get(shape, elem));
    return tile::ReduceOp::create(b, l, result, x,
                                    b.getI32IntegerAttr(std::max(0, e.axis)),
                                    b.getStringAttr(kind));
  }
  case B::BroadcastTo:
    if (!isa<RankedTensorType>(x.getType()))
      return tile::SplatOp::create(b, l, result, x);
    return x.getType() == result ? x
                                 : tile::BroadcastOp::create(b, l, result, x).getResult();
  case B::ExpandDims:
    if (!isa<RankedTensorType>(x.getType())) // a scalar: a tile of one
      return tile::SplatOp::create(b, l, result, x);
    return tile::ExpandDimsOp::create(b, l, result, x,
                                        b.getI32IntegerAttr(e.axis));
  case B::Bitcast:
    if (isa<tile::PtrType>(result)) // bitcast(p, *T): the same address
      return tile::PtrCastOp::create(b, l, result, x);
    return arith::BitcastOp::create(b, l, result, x);
  case B::WithLayout: {
    // Checked with the rules the #tile.blocked verifier applies, plus the
    // kernel's warp count, so a mistake is reported at the call.
    size_t rank = e.layout.size() / 4;
    megac::layout::Blocked blocked;
    auto part = [&](int k) {
      return std::vector<unsigned>(e.layout.begin() + k * rank,
                                   e.layout.begin() + (k + 1) * rank);
    };
    for (int64_t v : e.layout)
      if (v < 0 || v > 4096)
        return fail(e.range, "invalid layout: entries must be between 0 and 4096"), nullptr;
    blocked = {part(0), part(1), part(2), part(3)};
    std::string why = blocked.validate();
    if (!why.empty())
      return fail(e.range, "invalid layout: " + why), nullptr;
    if (int64_t(blocked.numWarps()) != numWarps)
      return fail(e.range, "invalid layout: wpc multiplies to " +
                               std::to_string(blocked.numWarps()) + " warps but the kernel has " +
                               std::to_string(numWarps)),
             nullptr;
    auto type = cast<RankedTensorType>(x.getType());
    auto encoding = tile::BlockedEncodingAttr::get(&ctx, blocked.sizePerThread,
                                                   blocked.threadsPerWarp,
                                                   blocked.warpsPerCTA, blocked.order);
    // The layout rides as an attribute until tile-assign-layouts gives the
    // result that encoding: until then no tile type has one, so the tile
    // placed here mixes freely with others (casts, where, arithmetic).
    auto placed = tile::ConvertLayoutOp::create(b, l, type, x);
    placed->setAttr(tile::attr::kWantedLayout, encoding);
    return placed;
  }
  case B::QuantizeNvfp4:
  case B::Nvfp4Scales:
  case B::QuantizeMxfp4:
  case B::Mxfp4Scales: {
    // Values and scales are the two results of one op; asking for each
    // separately makes two identical ops that CSE merges.
    bool nv = e.builtin == B::QuantizeNvfp4 || e.builtin == B::Nvfp4Scales;
    auto src = cast<RankedTensorType>(x.getType());
    int64_t block = nv ? 16 : 32;
    SmallVector<int64_t> vshape(src.getShape()), sshape(src.getShape());
    vshape.back() /= 2;
    sshape.back() /= block;
    Type scaleElem = nv ? Type(b.getType<Float8E4M3FNType>())
                        : Type(b.getType<Float8E8M0FNUType>());
    auto op = tile::QuantizeOp::create(b, 
        l, RankedTensorType::get(vshape, b.getI8Type()),
        RankedTensorType::get(sshape, scaleElem), x, nv ? args[1] : Value(),
        b.getStringAttr(nv ? "nvfp4" : "mxfp4"));
    bool values = e.builtin == B::QuantizeNvfp4 || e.builtin == B::QuantizeMxfp4;
    return values ? op.getValues() : op.getScales();
  }
  case B::DequantizeNvfp4:
  case B::DequantizeMxfp4: {
    bool nv = e.builtin == B::DequantizeNvfp4;
    return tile::DequantizeOp::create(b, l, result, args[0], args[1],
                                        nv ? args[2] : Value(),
                                        b.getStringAttr(nv ? "nvfp4" : "mxfp4"));
  }
  case B::QuantizeFp8:
    return tile::QuantizeOp::create(b, l, result, Type(), x, args[1], b.getStringAttr("fp8"))
        .getValues();
  case B::QuantizeFp8Group:
  case B::Fp8GroupScales: {
    // One op gives both results, as for FP4: CSE merges the two calls.
    auto src = cast<RankedTensorType>(x.getType());
    SmallVector<int64_t> sshape(src.getShape());
    sshape.back() /= tile::fp8::kGroup;
    auto op = tile::QuantizeOp::create(b, 
        l, src.clone(scalarType(e.fp8)), RankedTensorType::get(sshape, b.getF32Type()), x,
        Value(), b.getStringAttr(e.ue8m0 ? "fp8_group_ue8m0" : "fp8_group"));
    return e.builtin == B::QuantizeFp8Group ? op.getValues() : op.getScales();
  }
  case B::DequantizeFp8:
  case B::DequantizeFp8Group:
    return tile::DequantizeOp::create(b, 
        l, result, args[0], args[1], Value(),
        b.getStringAttr(e.builtin == B::DequantizeFp8 ? "fp8" : "fp8_group"));
  case B::Reshape:
    return tile::ReshapeOp::create(b, l, result, x);
  case B::Trans:
    return tile::TransOp::create(b, l, result, x);
  default:
    break;
  }
  return fail(e.range, "'" + e.callee + "' is not supported by code generation"),
         nullptr;
}

} // namespace

std::string variantSymbol(const std::string &kernel, const std::string &variant) {
  return kernel + "__" + variant;
}

OwningOpRef<ModuleOp> emitTileIR(MLIRContext &ctx, const fe::Module &module,
                                 const fe::SourceManager &sm,
                                 const VariantBodies &bodies) {
  return IRGen(ctx, sm).run(module, bodies);
}

} // namespace megac
