// Kernels, statements and expressions to the tile dialect; builtin calls are
// in IRGenCalls.cpp.
#include "IRGenImpl.h"
#include "frontend/WhenFacts.h"

#include "Tile/Layout/BlockedLayout.h"

namespace megac::irgen {

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
  bool fusedReductions = v && v->fusedReductions ? *v->fusedReductions : k.fusedReductions;
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
  if (fusedReductions)
    func->setAttr(tile::attr::kFusedReductions, b.getUnitAttr());
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
static bool endsWithReturn(const fe::Block &block) {
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

// A branch of `s` returns, and `s` is not one whose `if c { ...; return; }
// rest` form lets the rest move into the other branch.
LogicalResult IRGen::failNestedReturn(const fe::IfStmt &s) {
  fail(s.range, "'return' inside a nested 'if' is not supported; "
                "move it to an 'if' at the top of the kernel");
  return failure();
}

LogicalResult IRGen::emitIf(const fe::IfStmt &s, const fe::Block *rest,
                            size_t restFrom) {
  // On a compile-time condition (a variant's switch: `if FEW == 1 { ... }`)
  // only the branch taken is emitted, in line. Sema checked both; the other
  // never reaches the IR, so its tiles take no part in the kernel's layouts,
  // its register estimate or its shared memory.
  if (const std::optional<fe::ConstValue> &c = s.cond->constValue) {
    const fe::Block &taken = c->asDouble() != 0 ? s.thenBody : s.elseBody;
    bool outerReturned = returned;
    if (failed(emitBlock(taken)))
      return failure();
    if (!rest && returned && !outerReturned)
      return failNestedReturn(s);
    if (rest && !returned)
      return emitBlock(*rest, restFrom);
    return success();
  }
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
    return failNestedReturn(s);
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
    // A helper without `return` is called for its stores, as a statement
    // (sema refuses its call as a value): nothing to give.
    if (!inl->result)
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

} // namespace megac::irgen

namespace megac {

std::string variantSymbol(const std::string &kernel, const std::string &variant) {
  return kernel + "__" + variant;
}

mlir::OwningOpRef<mlir::ModuleOp> emitTileIR(mlir::MLIRContext &ctx, const fe::Module &module,
                                             const fe::SourceManager &sm,
                                             const VariantBodies &bodies) {
  return irgen::IRGen(ctx, sm).run(module, bodies);
}

} // namespace megac
