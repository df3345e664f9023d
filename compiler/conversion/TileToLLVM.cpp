#include "TileToLLVM.h"
#include "KernelLowering.h"
#include "NVVMBuilders.h"
#include "PredicatedAccess.h"
#include "../codegen/ValueMajorOrder.h"
#include "../target/Target.h"

#include "Tile/Analysis/AxisInfo.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/Layout/BlockedLayout.h"
#include "Tile/Math/ExactQuotient.h"
#include "Tile/Quant/E2M1.h"
#include "Tile/Quant/Fp8Quotient.h"
#include "Tile/Quant/Nvfp4Inverse.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::tile;

namespace megac {
namespace lowering {

LogicalResult KernelLowering::run() {
  ModuleOp module = func->getParentOfType<ModuleOp>();
  loc = func.getLoc();
  b.setInsertionPoint(func);

  SmallVector<Type> argTypes;
  for (Type t : func.getArgumentTypes()) {
    if (isa<RankedTensorType>(t))
      return func.emitError("kernel parameters must be scalars or pointers");
    argTypes.push_back(storageType(t));
  }
  auto fnType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                            argTypes);
  auto kernel = LLVM::LLVMFuncOp::create(b, loc, func.getName(), fnType);
  int numWarps = getNumWarps(func);
  auto intAttr = [&](StringRef name) -> unsigned {
    auto a = func->getAttrOfType<IntegerAttr>(name);
    return a ? unsigned(a.getInt()) : 0;
  };
  nvvm::setKernelAttributes(kernel, numWarps * 32, intAttr(attr::kMaxNReg),
                            intAttr(attr::kMinCtasPerSM));
  // @value_major: an LLVM function attribute for the PTX emitter, which
  // reorders the optimized IR (compiler/codegen/ValueMajorOrder.h).
  if (func->hasAttr(attr::kValueMajor))
    kernel.setPassthroughAttr(b.getArrayAttr({b.getStringAttr(kValueMajorAttr)}));
  // Pointers from the runtime never alias across parameters of our kernels?
  // Not guaranteed (in-place ops), so no noalias; alignment is a contract the
  // runtime checks, so tell LLVM.
  for (unsigned i = 0; i < argTypes.size(); ++i)
    if (auto a = func.getArgAttrOfType<IntegerAttr>(i, attr::kAlignment))
      kernel.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                        b.getI64IntegerAttr(a.getInt()));
  smemName = ("__megac_smem_" + func.getName()).str();

  Block *entry = kernel.addEntryBlock(b);
  entryBlock = entry;
  b.setInsertionPointToStart(entry);
  Value tid = nvvm::threadIdX(b, loc);
  lane = arith::RemUIOp::create(b, loc, tid, i32(32));
  warp = arith::DivUIOp::create(b, loc, tid, i32(32));
  for (auto [old, now] : llvm::zip(func.getArguments(), entry->getArguments()))
    values[old] = Regs{now};

  findCopiedLoads();
  if (failed(lowerBlock(func.getBody().front())))
    return failure();
  LLVM::ReturnOp::create(b, loc, ValueRange{});

  if (smemBytes > 0)
    copyBuffers.insert(copyBuffers.begin(), {smemName, smemBytes});
  int64_t sharedTotal = 0;
  for (auto &[name, bytes] : copyBuffers) {
    OpBuilder mb(module.getBodyRegion());
    mb.setInsertionPointToStart(module.getBody());
    auto arrayType = LLVM::LLVMArrayType::get(mb.getI8Type(), bytes);
    LLVM::GlobalOp::create(mb, loc, arrayType, /*isConstant=*/false,
                              LLVM::Linkage::Internal, name, Attribute(),
                              /*alignment=*/16, kShared);
    sharedTotal += (bytes + 15) / 16 * 16;
  }
  kernel->setAttr(attr::kSharedBytes, b.getI64IntegerAttr(sharedTotal));
  func.erase();
  return success();
}

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block) {
    if (isa<func::ReturnOp, scf::YieldOp>(op))
      continue;
    if (failed(lowerOp(&op)))
      return failure();
  }
  return success();
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  loc = op->getLoc();
  if (copiedTransposes.contains(op))
    return success(); // its load's copy stands for it
  if (auto load = dyn_cast<LoadOp>(op); load && copies.count(op))
    return lowerCopiedLoad(load);
  if (auto load = dyn_cast<LoadOp>(op); load && pipelineOfLoad.count(op))
    return lowerPipelinedLoad(load);
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return lowerConstant(c);
  if (auto p = dyn_cast<ProgramIdOp>(op)) {
    values[p] = Regs{nvvm::blockId(b, loc, p.getAxis())};
    return success();
  }
  if (auto p = dyn_cast<NumProgramsOp>(op)) {
    values[p] = Regs{nvvm::gridDim(b, loc, p.getAxis())};
    return success();
  }
  if (auto r = dyn_cast<ArangeOp>(op)) {
    auto d = distOf(op, r.getType());
    if (failed(d))
      return failure();
    Regs out;
    for (auto &idx : elementIndices(*d))
      out.push_back(arith::AddIOp::create(b, loc, idx[0], i32(r.getStart())));
    values[r] = out;
    return success();
  }
  if (auto s = dyn_cast<SplatOp>(op)) {
    auto d = distOf(op, s.getType());
    if (failed(d))
      return failure();
    values[s] = Regs(d->numRegs(), lookup(s.getSrc())[0]);
    return success();
  }
  if (auto bc = dyn_cast<BroadcastOp>(op))
    return lowerBroadcastLike(op, bc.getSrc(), bc.getType());
  if (auto ex = dyn_cast<ExpandDimsOp>(op))
    return lowerBroadcastLike(op, ex.getSrc(), ex.getType());
  if (auto add = dyn_cast<AddPtrOp>(op)) {
    Type pointee = storageType(
        cast<PtrType>(getElementTypeOrSelf(add.getPtr().getType()))
            .getPointeeType());
    Regs out;
    int64_t n = std::max(numRegsOf(add.getPtr()), numRegsOf(add.getOffset()));
    for (int64_t i = 0; i < n; ++i)
      out.push_back(LLVM::GEPOp::create(b, 
          loc, LLVM::LLVMPointerType::get(ctx, kGlobal), pointee,
          reg(add.getPtr(), i), ValueRange{reg(add.getOffset(), i)}));
    values[add] = out;
    return success();
  }
  if (auto l = dyn_cast<LoadOp>(op))
    return lowerLoad(l);
  if (auto s = dyn_cast<StoreOp>(op))
    return lowerStore(s);
  if (auto a = dyn_cast<AtomicRMWOp>(op))
    return lowerAtomic(a);
  if (auto r = dyn_cast<ReduceOp>(op))
    return lowerReduce(r);
  if (auto c = dyn_cast<ConvertLayoutOp>(op))
    return lowerConvert(c);
  if (auto r = dyn_cast<ReshapeOp>(op))
    return lowerReshape(r);
  if (auto t = dyn_cast<TransOp>(op)) {
    // The result's layout is the source's transposed: same registers.
    Regs same = lookup(t.getSrc());
    values[t] = same;
    return success();
  }
  if (auto d = dyn_cast<DotOp>(op))
    return lowerDot(d);
  if (auto q = dyn_cast<QuantizeOp>(op))
    return lowerQuantize(q);
  if (auto d = dyn_cast<DequantizeOp>(op))
    return lowerDequantize(d);
  if (auto t = dyn_cast<FpTruncOp>(op))
    return lowerNarrowTrunc(op, t.getSrc(),
                            getElementTypeOrSelf(t.getResult().getType()));
  if (auto f = dyn_cast<scf::ForOp>(op))
    return lowerFor(f);
  if (auto i = dyn_cast<scf::IfOp>(op))
    return lowerIf(i);
  if (isa<arith::TruncFOp>(op) &&
      isNarrowFloat(getElementTypeOrSelf(op->getResult(0).getType())))
    return lowerNarrowTrunc(op, op->getOperand(0),
                            getElementTypeOrSelf(op->getResult(0).getType()));
  if (isa<arith::ExtFOp>(op) && getElementTypeOrSelf(op->getOperand(0).getType()).isBF16() &&
      getElementTypeOrSelf(op->getResult(0).getType()).isF32())
    return lowerBf16ToF32(op);
  if (isa<arith::ExtFOp>(op) &&
      isNarrowFloat(getElementTypeOrSelf(op->getOperand(0).getType())))
    return lowerNarrowExt(op, op->getOperand(0),
                          getElementTypeOrSelf(op->getResult(0).getType()));
  if (isa<math::MathDialect>(op->getDialect()))
    return lowerMath(op);
  if (auto div = dyn_cast<arith::DivFOp>(op)) {
    bool f32 = getElementTypeOrSelf(div.getType()).isF32();
    if (f32 && func->hasAttr(tile::attr::kFastMath))
      return lowerFastDivide(div);
    if (f32 && div->hasAttr(tile::attr::kFp8Quotient))
      return lowerFp8Quotient(div);
    if (f32)
      return lowerIeeeDivide(div);
  }
  if (isa<arith::ArithDialect>(op->getDialect()))
    return lowerElementwise(op);
  return op->emitError("cannot lower '") << op->getName() << "' to LLVM";
}

LogicalResult KernelLowering::lowerConstant(arith::ConstantOp op) {
  Type type = op.getType();
  Attribute value = op.getValue();
  int64_t n = 1;
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    auto splat = dyn_cast<SplatElementsAttr>(value);
    if (!splat)
      return op.emitError("only splat tile constants are supported");
    auto d = distOf(op, t);
    if (failed(d))
      return failure();
    n = d->numRegs();
    value = splat.getSplatValue<Attribute>();
  }
  Type elem = getElementTypeOrSelf(type);
  TypedAttr scalarAttr;
  if (isNarrowFloat(elem)) {
    APInt bits = cast<FloatAttr>(value).getValue().bitcastToAPInt();
    scalarAttr = b.getIntegerAttr(b.getI8Type(), bits.zextOrTrunc(8));
  } else {
    scalarAttr = cast<TypedAttr>(value);
  }
  values[op] = Regs(n, constant(scalarAttr));
  return success();
}

LogicalResult KernelLowering::lowerElementwise(Operation *op) {
  if (op->getNumRegions() != 0)
    return op->emitError("cannot lower '") << op->getName() << "'";
  int64_t n = 1;
  for (Value v : op->getOperands())
    n = std::max(n, numRegsOf(v));
  for (Type t : op->getResultTypes())
    if (isNarrowFloat(getElementTypeOrSelf(t)))
      return op->emitError("arithmetic on ")
             << getElementTypeOrSelf(t)
             << " is not supported: convert to f32 first";
  SmallVector<Regs> results(op->getNumResults());
  // An exact division by 2^k (the dividend a known multiple) is a shift:
  // one instruction instead of sdiv's shift-add-shift rounding toward zero.
  if (int64_t divisor = axisInfo.exactPowerOfTwoDivisor(op)) {
    Type elem = getElementTypeOrSelf(op->getResult(0).getType());
    Value shift = arith::ConstantOp::create(
        b, loc, b.getIntegerAttr(elem, llvm::Log2_64(uint64_t(divisor))));
    for (int64_t i = 0; i < n; ++i) {
      Value x = reg(op->getOperand(0), i);
      results[0].push_back(isa<arith::DivSIOp>(op)
                               ? arith::ShRSIOp::create(b, loc, x, shift).getResult()
                               : arith::ShRUIOp::create(b, loc, x, shift).getResult());
    }
    values[op->getResult(0)] = results[0];
    return success();
  }
  for (int64_t i = 0; i < n; ++i) {
    OperationState state(loc, op->getName());
    for (Value v : op->getOperands())
      state.addOperands(reg(v, i));
    for (Type t : op->getResultTypes())
      state.addTypes(storageType(getElementTypeOrSelf(t)));
    state.addAttributes(op->getAttrs());
    Operation *scalar = b.create(state);
    for (unsigned r = 0; r < op->getNumResults(); ++r)
      results[r].push_back(scalar->getResult(r));
  }
  for (unsigned r = 0; r < op->getNumResults(); ++r)
    values[op->getResult(r)] = results[r];
  return success();
}

// A bf16 register that is element `index` of a loaded vector of bf16 (of an
// even length): the vector and the index, or nothing.
struct Bf16Element {
  Value vector;
  int64_t index;
};
static std::optional<Bf16Element> bf16ElementOf(Value v) {
  auto extract = v.getDefiningOp<LLVM::ExtractElementOp>();
  if (!extract)
    return std::nullopt;
  auto vec = dyn_cast<VectorType>(extract.getVector().getType());
  APInt index;
  if (!vec || !vec.getElementType().isBF16() || vec.getNumElements() % 2 ||
      !matchPattern(extract.getPosition(), m_ConstantInt(&index)))
    return std::nullopt;
  return Bf16Element{extract.getVector(), index.getSExtValue()};
}

// The 32-bit word of a vector of bf16 that holds its elements 2w and 2w + 1.
static Value bf16Word(OpBuilder &b, Location loc, Value vector, int64_t w) {
  Type i32t = b.getI32Type();
  auto wordsType = VectorType::get({cast<VectorType>(vector.getType()).getNumElements() / 2}, i32t);
  Value words = LLVM::BitcastOp::create(b, loc, wordsType, vector);
  Value index = LLVM::ConstantOp::create(b, loc, i32t, b.getI32IntegerAttr(int32_t(w)));
  return LLVM::ExtractElementOp::create(b, loc, words, index);
}

// bf16 -> f32 is exact: the bf16 bits become the f32's top half. Written as
// that shift (not cvt.f32.bf16) so that LLVM sees through to the 32-bit words
// the loads return: the high bf16 of a word widens with one and, the low one
// with one shift (cvt took a byte permute and a shift for the high one).
LogicalResult KernelLowering::lowerBf16ToF32(Operation *op) {
  Type i16 = b.getI16Type(), i32t = b.getI32Type(), f32 = b.getF32Type();
  Regs out;
  for (Value narrow : lookup(op->getOperand(0))) {
    Value wide;
    // Element k of a loaded vector of bf16: half k % 2 of its word k / 2.
    if (std::optional<Bf16Element> e = bf16ElementOf(narrow)) {
      Value word = bf16Word(b, loc, e->vector, e->index / 2);
      wide = e->index % 2 ? arith::AndIOp::create(b, loc, word, i32(int32_t(0xFFFF0000))).getResult()
                          : arith::ShLIOp::create(b, loc, word, i32(16)).getResult();
    } else {
      Value bits = arith::ExtUIOp::create(b, loc, i32t, arith::BitcastOp::create(b, loc, i16, narrow));
      wide = arith::ShLIOp::create(b, loc, bits, i32(16));
    }
    wide = arith::BitcastOp::create(b, loc, f32, wide);
    widenedFrom[wide] = narrow;
    out.push_back(wide);
  }
  values[op->getResult(0)] = out;
  return success();
}

// Declares a libdevice function `name` of `arity` arguments of type `elem`
// (once per module; linked when PTX is emitted).
void KernelLowering::declareLibdevice(StringRef name, Type elem, unsigned arity) {
  ModuleOp module = func->getParentOfType<ModuleOp>();
  if (module.lookupSymbol(name))
    return;
  OpBuilder mb(module.getBodyRegion());
  mb.setInsertionPointToEnd(module.getBody());
  LLVM::LLVMFuncOp::create(mb, loc, name,
                           LLVM::LLVMFunctionType::get(elem, SmallVector<Type>(arity, elem)));
}

// @fast_math f32 division: __nv_fast_fdividef (div.approx.f32, about 2 ulp;
// no slow path for zero or denormal dividends).
LogicalResult KernelLowering::lowerFastDivide(arith::DivFOp op) {
  Type f32 = b.getF32Type();
  declareLibdevice("__nv_fast_fdividef", f32, 2);
  Regs out;
  int64_t n = std::max(numRegsOf(op.getLhs()), numRegsOf(op.getRhs()));
  for (int64_t i = 0; i < n; ++i)
    out.push_back(LLVM::CallOp::create(b, loc, TypeRange{f32},
                                       FlatSymbolRefAttr::get(ctx, "__nv_fast_fdividef"),
                                       ValueRange{reg(op.getLhs(), i), reg(op.getRhs(), i)})
                      .getResult());
  values[op] = out;
  return success();
}

LogicalResult KernelLowering::lowerMath(Operation *op) {
  // fma and abs map to LLVM intrinsics; the rest call libdevice, which is
  // what CUDA C++ (and so PyTorch's reference kernels) compile to.
  if (isa<math::FmaOp, math::AbsFOp, math::AbsIOp, math::CopySignOp,
          math::FloorOp, math::CeilOp>(op))
    return lowerElementwise(op);
  // sqrt is IEEE (llvm.sqrt: sqrt.rn.f32), as CUDA C++ compiles sqrtf without
  // fast math; libdevice's __nv_sqrtf would ask __nvvm_reflect for
  // __CUDA_PREC_SQRT, which LLVM answers 0 (sqrt.approx). @fast_math keeps
  // the approximate one.
  if (isa<math::SqrtOp>(op) && !func->hasAttr(tile::attr::kFastMath))
    return lowerElementwise(op);
  Type elem = getElementTypeOrSelf(op->getResult(0).getType());
  StringRef base = llvm::StringSwitch<StringRef>(op->getName().getStringRef())
                       .Case("math.exp", "exp")
                       .Case("math.exp2", "exp2")
                       .Case("math.log", "log")
                       .Case("math.log2", "log2")
                       .Case("math.log1p", "log1p")
                       .Case("math.sqrt", "sqrt")
                       .Case("math.rsqrt", "rsqrt")
                       .Case("math.tanh", "tanh")
                       .Case("math.erf", "erf")
                       .Default("");
  if (base.empty())
    return op->emitError("cannot lower '") << op->getName() << "'";
  if (!elem.isF32() && !elem.isF64())
    return op->emitError(op->getName().getStringRef().drop_front(5))
           << " needs f32 or f64, got " << elem
           << "; hint: compute in f32, e.g. exp(x as f32)";
  // @fast_math: libdevice's approximate f32 versions (ex2.approx, lg2.approx,
  // tanh.approx), about 2 ulp, instead of the accurate ones.
  bool fast = elem.isF32() && func->hasAttr(tile::attr::kFastMath) &&
              llvm::is_contained({"exp", "log", "log2", "tanh"}, base);
  std::string callee =
      ((fast ? "__nv_fast_" : "__nv_") + base + (elem.isF32() ? "f" : "")).str();
  declareLibdevice(callee, elem, 1);
  Regs out;
  for (int64_t i = 0, n = numRegsOf(op->getOperand(0)); i < n; ++i)
    out.push_back(LLVM::CallOp::create(b, loc, TypeRange{elem},
                                         FlatSymbolRefAttr::get(ctx, callee),
                                         ValueRange{reg(op->getOperand(0), i)})
                      .getResult());
  values[op->getResult(0)] = out;
  return success();
}

LogicalResult KernelLowering::lowerBroadcastLike(Operation *op, Value src,
                                                 RankedTensorType dstType) {
  auto srcDist = distOf(op, cast<RankedTensorType>(src.getType()));
  auto dstDist = distOf(op, dstType);
  if (failed(srcDist) || failed(dstDist))
    return failure();
  if (srcDist->blocked.str() != dstDist->blocked.str())
    return op->emitError("operand and result layouts differ: run "
                         "tile-assign-layouts");
  // Both are views of one blocked layout: find, for each result register,
  // the source register at the same offset (0 along broadcast dimensions).
  std::map<layout::Index, int64_t> byOffset;
  for (int64_t r = 0; r < srcDist->numRegs(); ++r) {
    layout::Index off = srcDist->offset(r);
    for (unsigned d = 0; d < off.size(); ++d)
      if (srcDist->parentShape[d] == 1)
        off[d] = 0;
    byOffset.emplace(off, r);
  }
  Regs out;
  for (int64_t r = 0; r < dstDist->numRegs(); ++r) {
    layout::Index off = dstDist->offset(r);
    for (unsigned d = 0; d < off.size(); ++d)
      if (srcDist->parentShape[d] == 1)
        off[d] = 0;
    auto it = byOffset.find(off);
    if (it == byOffset.end())
      return op->emitError("internal: no source register for a result register");
    out.push_back(lookup(src)[it->second]);
  }
  values[op->getResult(0)] = out;
  return success();
}


LogicalResult KernelLowering::lowerLoad(LoadOp op) {
  Type elem = getElementTypeOrSelf(op.getType());
  Type stor = storageType(elem);
  int64_t bytes = storageBytes(elem);
  bool isTile = isa<RankedTensorType>(op.getType());
  int64_t n = isTile ? numRegsOf(op.getPtr()) : 1;
  if (isTile && failed(distOf(op, cast<RankedTensorType>(op.getType()))))
    return failure();
  AccessPlan plan = planAccess(axisInfo, op, op.getPtr(), op.getMask(),
                               op.getType(), bytes);
  int64_t width = plan.width;
  auto otherOf = [&](int64_t r) -> Value {
    return op.getOther() ? reg(op.getOther(), r) : constantLike(stor, 0);
  };
  // One element, loaded only when its mask is set.
  auto maskedScalar = [&](int64_t r) -> Value {
    if (!op.getMask() && !isTile)
      if (Value v = ptx::loadScalarInOrder(b, loc, reg(op.getPtr(), r), bytes, stor))
        return v;
    if (!op.getMask())
      return LLVM::LoadOp::create(b, loc, stor, reg(op.getPtr(), r), bytes);
    Value other = otherOf(r);
    if (ptx::predicatable(bytes))
      return ptx::fromWords(b, loc,
                            ptx::loadWords(b, loc, reg(op.getPtr(), r), reg(op.getMask(), r),
                                           ptx::toWords(b, loc, other)),
                            stor);
    auto branch = scf::IfOp::create(b, loc, TypeRange{stor}, reg(op.getMask(), r), true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, 
        loc, LLVM::LoadOp::create(b, loc, stor, reg(op.getPtr(), r), bytes).getResult());
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, other);
    return branch.getResult(0);
  };
  Regs out;
  for (int64_t r = 0; r < n; r += width) {
    if (width == 1) {
      out.push_back(maskedScalar(r));
      continue;
    }
    auto vecType = VectorType::get({width}, stor);
    auto pack = [&](ArrayRef<Value> elems) {
      Value v = LLVM::UndefOp::create(b, loc, vecType);
      for (int64_t k = 0; k < width; ++k)
        v = LLVM::InsertElementOp::create(b, loc, v, elems[k], i32(k));
      return v;
    };
    Value loaded;
    if (!op.getMask()) {
      loaded = LLVM::LoadOp::create(b, loc, vecType, reg(op.getPtr(), r), width * bytes);
    } else if (plan.maskUniform && ptx::predicatable(width * bytes)) {
      SmallVector<Value> others;
      for (int64_t k = 0; k < width; ++k)
        others.push_back(otherOf(r + k));
      SmallVector<Value> words = ptx::loadWords(b, loc, reg(op.getPtr(), r), reg(op.getMask(), r),
                                                ptx::toWords(b, loc, pack(others)));
      loaded = ptx::fromWords(b, loc, words, vecType);
    } else {
      Value all = reg(op.getMask(), r);
      if (!plan.maskUniform)
        for (int64_t k = 1; k < width; ++k)
          all = arith::AndIOp::create(b, loc, all, reg(op.getMask(), r + k));
      auto branch = scf::IfOp::create(b, loc, TypeRange{vecType}, all, true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(b, 
          loc, LLVM::LoadOp::create(b, loc, vecType, reg(op.getPtr(), r), width * bytes)
                   .getResult());
      b.setInsertionPointToStart(branch.elseBlock());
      SmallVector<Value> elems;
      for (int64_t k = 0; k < width; ++k)
        elems.push_back(plan.maskUniform ? otherOf(r + k) : maskedScalar(r + k));
      scf::YieldOp::create(b, loc, pack(elems));
      loaded = branch.getResult(0);
    }
    for (int64_t k = 0; k < width; ++k)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, loaded, i32(k)));
  }
  values[op] = out;
  return success();
}

LogicalResult KernelLowering::lowerStore(StoreOp op) {
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  Type stor = storageType(elem);
  int64_t bytes = storageBytes(elem);
  bool isTile = isa<RankedTensorType>(op.getValue().getType());
  int64_t n = isTile ? numRegsOf(op.getPtr()) : 1;
  if (isTile && failed(distOf(op, cast<RankedTensorType>(op.getValue().getType()))))
    return failure();
  AccessPlan plan = planAccess(axisInfo, op, op.getPtr(), op.getMask(),
                               op.getValue().getType(), bytes);
  int64_t width = plan.width;
  auto guarded = [&](Value pred, function_ref<void()> body) {
    if (!pred)
      return body();
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, pred, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    body();
  };
  auto maskOf = [&](int64_t r) {
    return op.getMask() ? reg(op.getMask(), r) : Value();
  };
  for (int64_t r = 0; r < n; r += width) {
    Value ptr = reg(op.getPtr(), r);
    if (width == 1) {
      if (maskOf(r) && ptx::predicatable(bytes)) {
        ptx::storeWords(b, loc, ptr, maskOf(r), ptx::toWords(b, loc, reg(op.getValue(), r)));
        continue;
      }
      if (maskOf(r) && bytes <= 2) {
        ptx::storeNarrow(b, loc, ptr, maskOf(r), reg(op.getValue(), r));
        continue;
      }
      guarded(maskOf(r), [&] {
        LLVM::StoreOp::create(b, loc, reg(op.getValue(), r), ptr, bytes);
      });
      continue;
    }
    Value v = bytePairsVector(op.getValue(), r, width);
    if (!v) {
      v = LLVM::UndefOp::create(b, loc, VectorType::get({width}, stor));
      for (int64_t k = 0; k < width; ++k)
        v = LLVM::InsertElementOp::create(b, loc, v, reg(op.getValue(), r + k), i32(k));
    }
    if (op.getMask() && plan.maskUniform && ptx::predicatable(width * bytes)) {
      ptx::storeWords(b, loc, ptr, maskOf(r), ptx::toWords(b, loc, v));
      continue;
    }
    if (op.getMask() && plan.maskUniform && width * bytes == 2) {
      ptx::storeNarrow(b, loc, ptr, maskOf(r), v);
      continue;
    }
    if (!op.getMask() || plan.maskUniform) {
      guarded(maskOf(r), [&] { LLVM::StoreOp::create(b, loc, v, ptr, width * bytes); });
      continue;
    }
    Value all = maskOf(r);
    for (int64_t k = 1; k < width; ++k)
      all = arith::AndIOp::create(b, loc, all, maskOf(r + k));
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, all, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    LLVM::StoreOp::create(b, loc, v, ptr, width * bytes);
    b.setInsertionPointToStart(branch.elseBlock());
    for (int64_t k = 0; k < width; ++k)
      guarded(maskOf(r + k), [&] {
        LLVM::StoreOp::create(b, loc, reg(op.getValue(), r + k),
                                reg(op.getPtr(), r + k), bytes);
      });
  }
  return success();
}

LogicalResult KernelLowering::lowerAtomic(AtomicRMWOp op) {
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  auto kind = op.getKind() == "max"
                  ? LLVM::AtomicBinOp::max
                  : (elem.isF32() ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add);
  SmallVector<Value> owners;
  int64_t n = numRegsOf(op.getValue());
  if (auto t = dyn_cast<RankedTensorType>(op.getValue().getType())) {
    auto d = distOf(op, t);
    if (failed(d))
      return failure();
    owners = ownerPredicates(*d);
  } else {
    // A scalar atomic is one operation of the program, not one per thread:
    // thread 0 performs it.
    Value tid = arith::AddIOp::create(b, 
        loc, arith::MulIOp::create(b, loc, warp, i32(32)), lane);
    owners.push_back(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             tid, i32(0)));
  }
  Regs out;
  for (int64_t r = 0; r < n; ++r) {
    // Replicas must not add twice: only the owner thread performs the RMW.
    Value pred = owners.empty() ? Value() : owners[r];
    if (op.getMask())
      pred = pred ? arith::AndIOp::create(b, loc, pred, reg(op.getMask(), r))
                        .getResult()
                  : reg(op.getMask(), r);
    auto emit = [&](OpBuilder &ib) -> Value {
      return LLVM::AtomicRMWOp::create(ib, loc, kind, reg(op.getPtr(), r),
                                          reg(op.getValue(), r),
                                          LLVM::AtomicOrdering::monotonic);
    };
    if (!pred) {
      out.push_back(emit(b));
      continue;
    }
    Value zero = constantLike(elem, 0);
    auto branch = scf::IfOp::create(b, loc, TypeRange{elem}, pred, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, emit(b));
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, zero);
    out.push_back(branch.getResult(0));
  }
  // Every thread sees the old value of a scalar atomic: thread 0 hands it
  // over through shared memory.
  if (!isa<RankedTensorType>(op.getType()) && !op.getResult().use_empty()) {
    Type stor = storageType(elem);
    smemBytes = std::max(smemBytes, storageBytes(elem));
    Value slot = sharedSlot(sharedBase(), stor, i32(0));
    nvvm::barrier(b, loc); // earlier users of the buffer are done
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, owners[0], false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(branch.thenBlock());
      LLVM::StoreOp::create(b, loc, out[0], slot);
    }
    nvvm::barrier(b, loc);
    out[0] = LLVM::LoadOp::create(b, loc, stor, slot);
  }
  values[op] = out;
  return success();
}

Value KernelLowering::combine(StringRef kind, Value x, Value y) {
  bool isFloat = isa<FloatType>(x.getType());
  if (kind == "sum")
    return isFloat ? arith::AddFOp::create(b, loc, x, y).getResult()
                   : arith::AddIOp::create(b, loc, x, y).getResult();
  if (kind == "max")
    return isFloat ? arith::MaximumFOp::create(b, loc, x, y).getResult()
                   : arith::MaxSIOp::create(b, loc, x, y).getResult();
  return isFloat ? arith::MinimumFOp::create(b, loc, x, y).getResult()
                 : arith::MinSIOp::create(b, loc, x, y).getResult();
}

LogicalResult KernelLowering::lowerReduce(ReduceOp op) {
  auto srcType = op.getSrc().getType();
  Type elem = srcType.getElementType();
  if (!elem.isF32() && !elem.isInteger(32))
    return op.emitError("reductions need an f32 or i32 tile, got ")
           << elem << "; hint: reduce a converted tile, e.g. sum(x as f32)";
  auto src = distOf(op, srcType);
  if (failed(src))
    return failure();
  // A sliced 1-D tile reduces like its parent, over the parent's dimension
  // (threads that differ only along the sliced dimension hold replicas).
  if (src->sliceDim >= 0 && isa<RankedTensorType>(op.getType()))
    return op.emitError("internal: partially reducing a sliced tile");
  StringRef kind = op.getKind();
  bool isArg = kind == "argmax" || kind == "argmin";
  StringRef valueKind = kind == "argmax" ? "max" : kind == "argmin" ? "min" : kind;
  unsigned tileAxis = op.getAxis();
  auto argKey = std::make_tuple(op.getSrc().getAsOpaquePointer(), tileAxis, valueKind.str());
  if (!isArg) {
    auto known = argValues.find(argKey);
    if (known != argValues.end() && known->second.first->getBlock() == op->getBlock() &&
        known->second.first->isBeforeInBlock(op)) {
      values[op] = known->second.second;
      return success();
    }
  }
  unsigned axis = src->parentDim(tileAxis);
  const layout::Blocked &l = src->blocked;

  // 1. Within the thread: group registers by their offset off the axis.
  std::map<layout::Index, SmallVector<int64_t>> groups;
  std::vector<layout::Index> groupOrder;
  for (int64_t r = 0; r < src->numRegs(); ++r) {
    layout::Index off = src->offset(r);
    int64_t along = off[axis] % src->parentShape[axis];
    off[axis] = 0;
    auto &g = groups[off];
    if (g.empty())
      groupOrder.push_back(off);
    // Registers that wrap onto an element already in the group are replicas.
    bool replica = false;
    for (int64_t other : g)
      if (src->offset(other)[axis] % src->parentShape[axis] == along)
        replica = true;
    if (!replica)
      g.push_back(r);
  }
  SmallVector<SmallVector<Value>> indices;
  if (isArg)
    indices = elementIndices(*src);

  struct Partial {
    Value value, index;
  };
  auto pick = [&](Partial a, Partial c) -> Partial {
    if (!isArg)
      return {combine(valueKind, a.value, c.value), Value()};
    auto pred = kind == "argmax" ? arith::CmpFPredicate::OGT
                                 : arith::CmpFPredicate::OLT;
    auto ipred = kind == "argmax" ? arith::CmpIPredicate::sgt
                                  : arith::CmpIPredicate::slt;
    Value better = isa<FloatType>(elem)
                       ? arith::CmpFOp::create(b, loc, pred, c.value, a.value)
                             .getResult()
                       : arith::CmpIOp::create(b, loc, ipred, c.value, a.value)
                             .getResult();
    Value equal = isa<FloatType>(elem)
                      ? arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                                c.value, a.value)
                            .getResult()
                      : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                                c.value, a.value)
                            .getResult();
    Value lower = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                          c.index, a.index);
    Value tieWin = arith::AndIOp::create(b, loc, equal, lower);
    Value take = arith::OrIOp::create(b, loc, better, tieWin);
    // The value as max (min) combines it, NaN and signed zeros included, so
    // that it is exactly the max (min) a sibling reduction would give.
    return {combine(valueKind, a.value, c.value),
            arith::SelectOp::create(b, loc, take, c.index, a.index)};
  };

  SmallVector<Partial> partials;
  // argmax and argmin give the same result in any order, and each step of
  // theirs is five dependent operations: they combine a thread's values
  // pairwise, log2(n) steps instead of n - 1 (route's ten argmax rounds over
  // 16 values a thread wait on that chain). Sums add in register order (the
  // rounding is part of the result); max and min too: one instruction a step,
  // and a tree's partials cost registers (softmax_small 72 -> 76, and slower
  // at M = 16384). `@tree_reductions` makes them pairwise too where the
  // chain is what a program waits on (softmax at M = 4096: 0.97 -> 1.00 of
  // Triton; results/tuning_tree_reductions_95ad055.md).
  bool pairwise = isArg || func->hasAttr(tile::attr::kTreeReductions);
  for (auto &off : groupOrder) {
    auto &g = groups[off];
    SmallVector<Partial> level;
    for (int64_t r : g)
      level.push_back({lookup(op.getSrc())[r], isArg ? indices[r][tileAxis] : Value()});
    if (!pairwise) {
      for (size_t k = 1; k < level.size(); ++k)
        level[0] = pick(level[0], level[k]);
    } else {
      while (level.size() > 1) {
        SmallVector<Partial> next;
        for (size_t k = 0; k + 1 < level.size(); k += 2)
          next.push_back(pick(level[k], level[k + 1]));
        if (level.size() % 2)
          next.push_back(level.back());
        level = std::move(next);
      }
    }
    partials.push_back(level[0]);
  }

  // 2. Across lanes of the warp that hold other elements along the axis.
  layout::Shape shape = src->parentShape;
  for (unsigned mask : l.laneXorMasks(shape, axis))
    for (Partial &p : partials) {
      Partial other{nvvm::shuffleXor(b, loc, p.value, mask),
                    isArg ? nvvm::shuffleXor(b, loc, p.index, mask) : Value()};
      p = pick(p, other);
    }

  // 3. Across warps, through shared memory.
  auto warpMasks = l.warpXorMasks(shape, axis);
  if (!warpMasks.empty()) {
    int64_t ways = int64_t(1) << warpMasks.size();
    // Threads that differ only in the axis digits share a result: name the
    // group by the thread's lane and warp bits with the axis bits removed
    // (Blocked::reductionKey), so there is one slot per group, not per thread.
    int64_t keys = l.numReductionKeys(shape, axis);
    int64_t slots = int64_t(partials.size()) * keys * ways;
    int64_t fields = isArg ? 2 : 1;
    smemBytes = std::max(smemBytes, slots * 4 * fields);
    auto compress = [&](Value v, std::vector<unsigned> masks) {
      std::sort(masks.rbegin(), masks.rend());
      for (unsigned m : masks) {
        Value below = arith::AndIOp::create(b, loc, v, i32(m - 1));
        Value above = arith::MulIOp::create(b, 
            loc, arith::DivUIOp::create(b, loc, v, i32(2 * int64_t(m))), i32(m));
        v = arith::OrIOp::create(b, loc, below, above);
      }
      return v;
    };
    auto laneMasks = l.laneXorMasks(shape, axis);
    Value laneKey = compress(lane, laneMasks);
    Value warpKey = compress(
        arith::RemUIOp::create(b, loc, warp, i32(l.numWarps())), warpMasks);
    Value key = arith::AddIOp::create(b, 
        loc, arith::MulIOp::create(b, loc, warpKey, i32(32 >> laneMasks.size())),
        laneKey);
    Value digit = warpDigit(l, axis);
    digit = arith::RemUIOp::create(b, loc, digit, i32(ways));
    // Slots ordered (partial, way, key): the lanes of a warp have
    // consecutive keys, so each store and each load of one way touches
    // consecutive words, free of bank conflicts (keyed innermost, one
    // warp's stores would land `ways` words apart). Slot (k, way) is word
    // (k * ways + way) * keys + key: one variable address for the stores and
    // one for the loads, then constant offsets (smaller IR, less for LLVM).
    Type i32t = b.getI32Type();
    Value storeAt = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, digit, i32(keys)), key);
    Value valuesAtStore = sharedSlot(sharedBase(), elem, storeAt);
    Value valuesAtLoad = sharedSlot(sharedBase(), elem, key);
    Value indicesAtStore, indicesAtLoad;
    if (isArg) {
      indicesAtStore = sharedSlot(sharedSlot(sharedBase(), i32t, i32(slots)), i32t, storeAt);
      indicesAtLoad = sharedSlot(sharedSlot(sharedBase(), i32t, i32(slots)), i32t, key);
    }
    nvvm::barrier(b, loc);
    for (size_t k = 0; k < partials.size(); ++k) {
      Value offset = i32(int64_t(k) * ways * keys);
      LLVM::StoreOp::create(b, loc, partials[k].value, sharedSlot(valuesAtStore, elem, offset));
      if (isArg)
        LLVM::StoreOp::create(b, loc, partials[k].index,
                                sharedSlot(indicesAtStore, i32t, offset));
    }
    nvvm::barrier(b, loc);
    for (size_t k = 0; k < partials.size(); ++k) {
      Partial acc{};
      for (int64_t w = 0; w < ways; ++w) {
        Value offset = i32((int64_t(k) * ways + w) * keys);
        Partial p{LLVM::LoadOp::create(b, loc, elem, sharedSlot(valuesAtLoad, elem, offset)),
                  Value()};
        if (isArg)
          p.index = LLVM::LoadOp::create(b, loc, i32t, sharedSlot(indicesAtLoad, i32t, offset));
        acc = w == 0 ? p : pick(acc, p);
      }
      partials[k] = acc;
    }
  }

  // 4. Hand the partials to the result's registers (the slice layout keeps
  // the parent registers at offset 0 along the axis, in order).
  Regs out;
  auto resultType = dyn_cast<RankedTensorType>(op.getType());
  std::map<layout::Index, size_t> partialOf;
  for (size_t k = 0; k < groupOrder.size(); ++k)
    partialOf[groupOrder[k]] = k;
  Regs maxima;
  if (!resultType) {
    out.push_back(isArg ? partials[0].index : partials[0].value);
    maxima.push_back(partials[0].value);
  } else {
    auto dst = distOf(op, resultType);
    if (failed(dst))
      return failure();
    for (int64_t r = 0; r < dst->numRegs(); ++r) {
      layout::Index off = dst->offset(r);
      off[axis] = 0;
      auto it = partialOf.find(off);
      if (it == partialOf.end())
        return op.emitError("internal: reduction result register unmatched");
      out.push_back(isArg ? partials[it->second].index
                          : partials[it->second].value);
      maxima.push_back(partials[it->second].value);
    }
  }
  if (isArg)
    argValues[argKey] = {op.getOperation(), maxima};
  values[op] = out;
  return success();
}

LogicalResult KernelLowering::lowerConvert(ConvertLayoutOp op) {
  auto srcType = op.getSrc().getType(), dstType = op.getType();
  auto src = distOf(op, srcType), dst = distOf(op, dstType);
  if (failed(src) || failed(dst))
    return failure();
  unsigned numWarps = unsigned(getNumWarps(func));
  layout::TileLayout srcLayout{src->blocked, src->sliceDim},
      dstLayout{dst->blocked, dst->sliceDim};
  switch (layout::classifyConversion(srcLayout, dstLayout, src->shape,
                                     numWarps)) {
  case layout::ConversionKind::NoOp: {
    Regs same = lookup(op.getSrc());
    values[op] = same;
    return success();
  }
  case layout::ConversionKind::WarpShuffles:
    return lowerConvertByShuffles(
        op, *src, *dst,
        *layout::planWarpShuffles(srcLayout, dstLayout, src->shape, numWarps));
  case layout::ConversionKind::SharedMemory:
    break;
  }
  // The buffer's layout: the one tile-assign-shared-layouts chose (or that
  // the IR names), else the same choice made here.
  auto shared = sharedLayoutOf(op->getAttr(attr::kShared));
  if (!shared)
    shared = layout::chooseSharedLayout(
                 srcLayout, dstLayout, src->shape, numWarps,
                 sharedElementBytes(srcType.getElementType()))
                 .layout;
  values[op] = exchangeThroughShared(op.getSrc(), *src, *dst, *shared, *shared);
  return success();
}

LogicalResult KernelLowering::lowerReshape(ReshapeOp op) {
  auto src = distOf(op, op.getSrc().getType()), dst = distOf(op, op.getType());
  if (failed(src) || failed(dst))
    return failure();
  // Row-major on both sides: a reshape keeps the row-major order.
  values[op] = exchangeThroughShared(
      op.getSrc(), *src, *dst, layout::SharedLayout::rowMajor(src->shape.size()),
      layout::SharedLayout::rowMajor(dst->shape.size()));
  return success();
}


// The element offset of `idx` in a buffer of layout `s` (SharedLayout::offsetOf
// in IR); divisions and remainders are by powers of two.
Value KernelLowering::sharedOffset(const layout::SharedLayout &s,
                                   const layout::Shape &shape,
                                   ArrayRef<Value> idx) {
  auto mul = [&](Value v, int64_t c) -> Value {
    return arith::MulIOp::create(b, loc, v, i32(c));
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  Value row = i32(0);
  for (size_t k = s.order.size(); k-- > 1;)
    row = add(mul(row, shape[s.order[k]]), idx[s.order[k]]);
  Value col = idx[s.order[0]];
  int64_t cols = shape[s.order[0]];
  if (s.kind == layout::SharedLayout::Kind::Padded) {
    Value linear = add(mul(row, cols), col);
    Value pads = arith::DivUIOp::create(b, loc, linear, i32(s.interval));
    return add(linear, mul(pads, s.padding));
  }
  int64_t phases = s.phaseCount(shape);
  if (phases == 1)
    return add(mul(row, cols), col);
  Value phase = arith::RemUIOp::create(b, 
      loc, arith::DivUIOp::create(b, loc, row, i32(s.perPhase)), i32(phases));
  Value chunk = arith::DivUIOp::create(b, loc, col, i32(s.vec));
  Value swizzled = mul(arith::XOrIOp::create(b, loc, chunk, phase), s.vec);
  Value within = arith::RemUIOp::create(b, loc, col, i32(s.vec));
  return add(add(mul(row, cols), swizzled), within);
}

void KernelLowering::storeToShared(const Dist &src, Type elem, unsigned bytes,
                                   const layout::SharedLayout &at, Value base,
                                   function_ref<Value(int64_t)> regAt) {
  auto srcIdx = elementIndices(src);
  int64_t width = layout::sharedAccessWidth(layout::TileLayout{src.blocked, src.sliceDim},
                                            src.shape, at, bytes);
  for (int64_t r = 0; r < src.numRegs(); r += width) {
    Value slot = sharedSlot(base, elem, sharedOffset(at, src.shape, srcIdx[r]));
    Value v;
    if (width == 1) {
      v = regAt(r);
    } else {
      v = LLVM::UndefOp::create(b, loc, VectorType::get({width}, elem));
      for (int64_t k = 0; k < width; ++k)
        v = LLVM::InsertElementOp::create(b, loc, v, regAt(r + k), i32(k));
    }
    LLVM::StoreOp::create(b, loc, v, slot, width * bytes);
  }
}

// Every thread writes its registers into a shared buffer of layout `writeAt`
// (replicas write the same value to the same place), then reads what its new
// layout holds at `readAt` (the shapes may differ: a reshape). Runs of
// registers that are consecutive in the buffer move as one vector access
// (layout::sharedAccessWidth, the width the bank-conflict count assumes).
Regs KernelLowering::exchangeThroughShared(Value source, const Dist &src,
                                          const Dist &dst,
                                          const layout::SharedLayout &writeAt,
                                          const layout::SharedLayout &readAt) {
  Type elemType = getElementTypeOrSelf(source.getType());
  Type stor = storageType(elemType);
  // Masks travel as bytes, pointers as i64 (vectors of integers).
  Type elem = stor.isInteger(1) ? b.getI8Type()
              : isa<LLVM::LLVMPointerType>(stor) ? b.getI64Type()
                                                  : stor;
  unsigned bytes = sharedElementBytes(elemType);
  smemBytes = std::max({smemBytes, writeAt.allocationElems(src.shape) * bytes,
                        readAt.allocationElems(dst.shape) * bytes});
  auto toShared = [&](Value v) -> Value {
    if (stor.isInteger(1))
      return arith::ExtUIOp::create(b, loc, elem, v);
    if (isa<LLVM::LLVMPointerType>(stor))
      return LLVM::PtrToIntOp::create(b, loc, elem, v);
    return v;
  };
  auto fromShared = [&](Value v) -> Value {
    if (stor.isInteger(1))
      return arith::TruncIOp::create(b, loc, stor, v);
    if (isa<LLVM::LLVMPointerType>(stor))
      return LLVM::IntToPtrOp::create(b, loc, stor, v);
    return v;
  };
  auto widthOf = [&](const Dist &d, const layout::SharedLayout &s) {
    return int64_t(layout::sharedAccessWidth(
        layout::TileLayout{d.blocked, d.sliceDim}, d.shape, s, bytes));
  };
  Value base = sharedBase();
  nvvm::barrier(b, loc);
  storeToShared(src, elem, bytes, writeAt, base,
                [&](int64_t r) { return toShared(lookup(source)[r]); });
  nvvm::barrier(b, loc);
  auto dstIdx = elementIndices(dst);
  int64_t width = widthOf(dst, readAt);
  Regs out;
  for (int64_t r = 0; r < dst.numRegs(); r += width) {
    Value slot = sharedSlot(base, elem, sharedOffset(readAt, dst.shape, dstIdx[r]));
    if (width == 1) {
      out.push_back(fromShared(LLVM::LoadOp::create(b, loc, elem, slot, bytes)));
      continue;
    }
    Value v = LLVM::LoadOp::create(b, loc, VectorType::get({width}, elem), slot,
                                     width * bytes);
    for (int64_t k = 0; k < width; ++k)
      out.push_back(fromShared(LLVM::ExtractElementOp::create(b, loc, v, i32(k))));
  }
  return out;
}


Value KernelLowering::shuffleIdxAny(Value v, Value srcLane) {
  Type t = v.getType();
  Type i32t = b.getI32Type(), i64t = b.getI64Type();
  if (t.isF32() || t.isInteger(32))
    return nvvm::shuffleIdx(b, loc, v, srcLane);
  auto asI64 = [&](Value x) -> Value {
    if (isa<LLVM::LLVMPointerType>(x.getType()))
      return LLVM::PtrToIntOp::create(b, loc, i64t, x);
    return LLVM::BitcastOp::create(b, loc, i64t, x); // f64 (i64 passes through)
  };
  if (isa<LLVM::LLVMPointerType>(t) || t.isF64() || t.isInteger(64)) {
    Value x = t.isInteger(64) ? v : asI64(v);
    Value lo = arith::TruncIOp::create(b, loc, i32t, x);
    Value hi = arith::TruncIOp::create(b, 
        loc, i32t,
        arith::ShRUIOp::create(b, loc, x, arith::ConstantIntOp::create(b, loc, i64t, 32)));
    lo = nvvm::shuffleIdx(b, loc, lo, srcLane);
    hi = nvvm::shuffleIdx(b, loc, hi, srcLane);
    Value y = arith::OrIOp::create(b, 
        loc, arith::ExtUIOp::create(b, loc, i64t, lo),
        arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64t, hi),
                                arith::ConstantIntOp::create(b, loc, i64t, 32)));
    if (t.isInteger(64))
      return y;
    if (isa<LLVM::LLVMPointerType>(t))
      return LLVM::IntToPtrOp::create(b, loc, t, y);
    return LLVM::BitcastOp::create(b, loc, t, y);
  }
  // Narrower: widen the bits to 32.
  unsigned bits = t.getIntOrFloatBitWidth();
  Type bitsType = b.getIntegerType(bits);
  Value x = isa<FloatType>(t) ? LLVM::BitcastOp::create(b, loc, bitsType, v).getResult() : v;
  x = arith::ExtUIOp::create(b, loc, i32t, x);
  x = nvvm::shuffleIdx(b, loc, x, srcLane);
  x = arith::TruncIOp::create(b, loc, bitsType, x);
  return isa<FloatType>(t) ? LLVM::BitcastOp::create(b, loc, t, x).getResult() : x;
}

// The lane (within the warp) and the parent register that hold element
// `idx` (the tile's dimensions) in `d`: Blocked::locate in IR.
std::pair<Value, Value> KernelLowering::locate(const Dist &d, ArrayRef<Value> idx) {
  const layout::Blocked &l = d.blocked;
  SmallVector<Value> e(idx.begin(), idx.end());
  if (d.sliceDim >= 0)
    e.insert(e.begin() + d.sliceDim, i32(0));
  auto div = [&](Value v, int64_t c) -> Value {
    return c == 1 ? v : arith::DivUIOp::create(b, loc, v, i32(c)).getResult();
  };
  auto rem = [&](Value v, int64_t c) -> Value {
    return c == 1 ? i32(0) : arith::RemUIOp::create(b, loc, v, i32(c)).getResult();
  };
  Value laneV = i32(0), within = i32(0), rep = i32(0);
  int64_t laneScale = 1, withinScale = 1, repScale = 1;
  for (unsigned dim : l.order) {
    int64_t spt = l.sizePerThread[dim], tpw = l.threadsPerWarp[dim];
    int64_t reps = l.repetitions(d.parentShape, dim);
    if (tpw > 1)
      laneV = arith::AddIOp::create(b, 
          loc, laneV,
          arith::MulIOp::create(b, loc, rem(div(e[dim], spt), tpw), i32(laneScale)));
    if (spt > 1)
      within = arith::AddIOp::create(b, 
          loc, within,
          arith::MulIOp::create(b, loc, rem(e[dim], spt), i32(withinScale)));
    if (reps > 1)
      rep = arith::AddIOp::create(b, 
          loc, rep,
          arith::MulIOp::create(b, loc, rem(div(e[dim], l.ctaTile(dim)), reps),
                                  i32(repScale)));
    laneScale *= tpw;
    withinScale *= spt;
    repScale *= reps;
  }
  Value regV = arith::AddIOp::create(b, 
      loc, within, arith::MulIOp::create(b, loc, rep, i32(withinScale)));
  return {laneV, regV};
}

LogicalResult KernelLowering::lowerConvertByShuffles(
    ConvertLayoutOp op, const Dist &src, const Dist &dst,
    const layout::ShufflePlan &plan) {
  Regs in = lookup(op.getSrc());
  auto dstIdx = elementIndices(dst);
  Regs out;
  for (int64_t r = 0; r < dst.numRegs(); ++r) {
    auto [fromLane, fromReg] = locate(src, dstIdx[r]);
    const auto &sources = plan.sources[r];
    Value acc;
    for (int64_t s : sources) {
      Value got = shuffleIdxAny(in[s], fromLane);
      if (!acc) {
        acc = got;
        continue;
      }
      Value mine = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           fromReg, i32(src.parentRegs[s]));
      acc = arith::SelectOp::create(b, loc, mine, got, acc);
    }
    out.push_back(acc);
  }
  values[op] = out;
  return success();
}

// The IR side of megac::quant's algorithms: each operation emits one op.
struct IROps {
  using Value = mlir::Value;
  OpBuilder &b;
  Location loc;
  Value abs(Value x) { return math::AbsFOp::create(b, loc, x); }
  Value f32(float v) {
    return arith::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(v));
  }
  Value minf(Value x, float bound) { return arith::MinNumFOp::create(b, loc, x, f32(bound)); }
  Value exponent(Value x) { return arith::ShRUIOp::create(b, loc, bits(x), i32(23)); }
  Value maxi(Value x, int bound) { return arith::MaxSIOp::create(b, loc, x, i32(bound)); }
  // One mad.lo.s32, as inline asm: LLVM's straight-line strength reduction
  // otherwise spends more time on these multiply-adds by one stride (two a
  // pair of values) than on the rest of an NVFP4 kernel, to no effect.
  Value madi(Value x, int32_t mul, int32_t add) {
    return asm32(ValueRange{x},
                 "mad.lo.s32 $0, $1, " + std::to_string(mul) + ", " + std::to_string(add) + ";",
                 "=r,r");
  }
  Value addBits(Value x, Value pattern) {
    Value m = arith::BitcastOp::create(b, loc, b.getF32Type(), pattern);
    return arith::AddFOp::create(b, loc, x, m);
  }
  Value i32(int v) { return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v); }
  Value bits(Value x) { return arith::BitcastOp::create(b, loc, b.getI32Type(), x); }
  Value top4(Value x) { return arith::ShRUIOp::create(b, loc, bits(x), i32(28)); }
  // (bits(rounded) & 7) | (rest & ~7) as one lop3 (LUT 0xE2: "b ? a : c"
  // bitwise, with b = 7): LLVM would narrow rest & ~7 to rest & 8, and ptxas
  // would then spend two instructions.
  Value mergeLow3(Value rounded, Value rest) {
    return asm32(ValueRange{bits(rounded), i32(7), rest}, "lop3.b32 $0, $1, $2, $3, 0xE2;",
                 "=r,r,n,r");
  }
  // One PTX instruction with an i32 result and no side effects.
  Value asm32(ValueRange operands, const std::string &text, const char *constraints) {
    return LLVM::InlineAsmOp::create(
               b, loc, b.getI32Type(), operands, text, constraints, /*has_side_effects=*/false,
               /*is_align_stack=*/false, LLVM::tailcallkind::TailCallKind::None,
               LLVM::AsmDialectAttr::get(b.getContext(), LLVM::AsmDialect::AD_ATT), ArrayAttr())
        .getResult(0);
  }
  Value or32(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl4add(Value hi, Value lo) {
    return arith::AddIOp::create(b, loc, arith::ShLIOp::create(b, loc, bits(hi), i32(4)), bits(lo));
  }
  // (word & 0x80008000) * (2^20 + 2^8) >> 32: mul.hi.u32.
  Value bf16PairSigns(Value word) {
    Type i64 = b.getI64Type();
    Value masked = arith::AndIOp::create(b, loc, word, i32(int32_t(0x80008000u)));
    Value product = arith::MulIOp::create(
        b, loc, arith::ExtUIOp::create(b, loc, i64, masked),
        arith::ConstantIntOp::create(b, loc, i64, (1 << 20) + (1 << 8)));
    return arith::TruncIOp::create(
        b, loc, b.getI32Type(),
        arith::ShRUIOp::create(b, loc, product, arith::ConstantIntOp::create(b, loc, i64, 32)));
  }
  Value mask77or(Value codes, Value signs) {
    return arith::OrIOp::create(b, loc, arith::AndIOp::create(b, loc, codes, i32(0x77)), signs);
  }
  Value minNaN(Value x, float bound) { return arith::MinimumFOp::create(b, loc, x, f32(bound)); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) { return math::FmaOp::create(b, loc, x, y, z); }
  Value neg(Value x) { return arith::NegFOp::create(b, loc, x); }
  Value copysign(Value x, Value sign) { return math::CopySignOp::create(b, loc, x, sign); }
};

// IROps with rcp.approx, for Nvfp4Inverse.h.
struct IRInverseOps : IROps {
  Value rcpApprox(Value x) { return nvvm::rcpApprox(b, loc, x); }
};

// An FP8 quantization's x / s (tile-expand-fp8 marks it): when the tile's
// divisors are few (a per-tensor or per-group scale, one register reused),
// one div.rn per distinct divisor gives its reciprocal and every quotient is
// Tile/Quant/Fp8Quotient.h's five instructions. The path is taken only when
// every divisor is in the range where that rounds to the same FP8 bytes as
// IEEE division (one branch for the tile); otherwise, or when nearly every
// element has its own divisor, each element takes div.rn as before.
LogicalResult KernelLowering::lowerFp8Quotient(arith::DivFOp op) {
  int64_t n = std::max(numRegsOf(op.getLhs()), numRegsOf(op.getRhs()));
  llvm::MapVector<Value, Value> reciprocals; // divisor -> RN(1 / divisor)
  for (int64_t i = 0; i < n; ++i)
    reciprocals.insert({reg(op.getRhs(), i), Value()});
  if (int64_t(reciprocals.size()) * 2 > n)
    return lowerIeeeDivide(op);
  IROps ops{b, loc};
  Value inRange;
  for (auto &[s, y] : reciprocals) {
    y = arith::DivFOp::create(b, loc, ops.f32(1.0f), s);
    Value ok = inClosedRange(s, quant::kMinDivisor, quant::kMaxDivisor);
    inRange = inRange ? arith::AndIOp::create(b, loc, inRange, ok).getResult() : ok;
  }
  values[op] = fastOrExact(
      inRange, n,
      [&](int64_t i) {
        Value s = reg(op.getRhs(), i);
        return quant::fp8Quotient(ops, reg(op.getLhs(), i), s, reciprocals.lookup(s));
      },
      [&](int64_t i) {
        return arith::DivFOp::create(b, loc, reg(op.getLhs(), i), reg(op.getRhs(), i)).getResult();
      });
  return success();
}

// An IEEE f32 division: under one check for the tile with @tile_division,
// else div.rn.f32 a value.
LogicalResult KernelLowering::lowerIeeeDivide(arith::DivFOp op) {
  return func->hasAttr(tile::attr::kTileDivision) ? lowerTileDivide(op) : lowerElementwise(op);
}

// True when v is at least 1 or NaN: `c + exp(..)` with a constant c >= 1
// (silu's and sigmoid's 1 + exp(-x)), or such a constant.
static bool atLeastOneOrNaN(Value v) {
  auto constantAtLeastOne = [](Value c) {
    if (auto splat = c.getDefiningOp<SplatOp>())
      c = splat.getOperand();
    auto k = c.getDefiningOp<arith::ConstantOp>();
    if (!k)
      return false;
    Attribute value = k.getValue();
    if (auto dense = dyn_cast<SplatElementsAttr>(value))
      value = dense.getSplatValue<Attribute>();
    auto f = dyn_cast<FloatAttr>(value);
    return f && f.getValueAsDouble() >= 1.0;
  };
  if (constantAtLeastOne(v))
    return true;
  auto add = v.getDefiningOp<arith::AddFOp>();
  return add && ((constantAtLeastOne(add.getLhs()) && add.getRhs().getDefiningOp<math::ExpOp>()) ||
                 (constantAtLeastOne(add.getRhs()) && add.getLhs().getDefiningOp<math::ExpOp>()));
}

// `@tile_division`: an f32 division of several values a thread takes
// div.rn.f32's own fast path for all of them (Tile/Math/ExactQuotient.h)
// when every dividend and divisor is in the range where it is exact - one
// check, one branch - and div.rn for all of them otherwise. The check is a
// NaN-propagating min and max of the operands' magnitudes (a divisor known
// to be >= 1 needs only its max), computed from the operands before any
// quotient, so it keeps no extra value alive. Measured on the H200: faster
// than per-value div.rn on small, latency-bound grids, slower on large ones
// (results/tuning_saq_gng_7770c7c.md). One value a thread gains nothing.
LogicalResult KernelLowering::lowerTileDivide(arith::DivFOp op) {
  int64_t n = std::max(numRegsOf(op.getLhs()), numRegsOf(op.getRhs()));
  if (n < 2)
    return lowerElementwise(op);
  IRInverseOps ops{b, loc};
  llvm::SetVector<Value> dividends, divisors; // each distinct register once
  for (int64_t i = 0; i < n; ++i) {
    dividends.insert(reg(op.getLhs(), i));
    divisors.insert(reg(op.getRhs(), i));
  }
  // The largest and (when `low`) the smallest of the values (magnitudes),
  // NaN if one is NaN.
  auto bounds = [&](ArrayRef<Value> vs, bool magnitude, bool low) {
    Value lo, hi;
    for (Value v : vs) {
      Value m = magnitude ? ops.abs(v) : v;
      if (low)
        lo = lo ? arith::MinimumFOp::create(b, loc, lo, m).getResult() : m;
      hi = hi ? arith::MaximumFOp::create(b, loc, hi, m).getResult() : m;
    }
    return std::pair(lo, hi);
  };
  auto cmp = [&](arith::CmpFPredicate p, Value v, float bound) {
    return arith::CmpFOp::create(b, loc, p, v, ops.f32(bound)).getResult();
  };
  using P = arith::CmpFPredicate;
  bool atLeastOne = atLeastOneOrNaN(op.getRhs());
  auto [xlo, xhi] = bounds(dividends.getArrayRef(), true, true);
  // A divisor >= 1 (or NaN) is checked only against the largest.
  auto [slo, shi] = bounds(divisors.getArrayRef(), !atLeastOne, !atLeastOne);
  // (Built in this order, the comparisons give the PTX the H200 measured.)
  Value xBelow = cmp(P::OLE, xhi, ieee::kMaxDividend);
  Value xAbove = cmp(P::OGE, xlo, ieee::kMinDividend);
  Value inRange = arith::AndIOp::create(b, loc, xAbove, xBelow);
  Value sBelow = cmp(P::OLE, shi, ieee::kMaxDivisor);
  inRange = arith::AndIOp::create(b, loc, inRange, sBelow);
  if (!atLeastOne) {
    Value sAbove = cmp(P::OGE, slo, ieee::kMinDivisor);
    inRange = arith::AndIOp::create(b, loc, inRange, sAbove);
  }
  values[op] = fastOrExact(
      inRange, n,
      [&](int64_t i) { return ieee::exactQuotient(ops, reg(op.getLhs(), i), reg(op.getRhs(), i)); },
      [&](int64_t i) {
        return arith::DivFOp::create(b, loc, reg(op.getLhs(), i), reg(op.getRhs(), i)).getResult();
      });
  return success();
}

Value KernelLowering::inClosedRange(Value v, float lo, float hi) {
  return arith::AndIOp::create(
      b, loc, arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v, constant(b.getF32FloatAttr(lo))),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, v, constant(b.getF32FloatAttr(hi))));
}

Regs KernelLowering::fastOrExact(Value take, int64_t n, function_ref<Value(int64_t)> fast,
                                 function_ref<Value(int64_t)> exact) {
  auto branch = scf::IfOp::create(b, loc, SmallVector<Type>(n, b.getF32Type()), take, true);
  OpBuilder::InsertionGuard guard(b);
  for (bool isFast : {true, false}) {
    b.setInsertionPointToStart(isFast ? branch.thenBlock() : branch.elseBlock());
    SmallVector<Value> results;
    for (int64_t i = 0; i < n; ++i)
      results.push_back(isFast ? fast(i) : exact(i));
    scf::YieldOp::create(b, loc, results);
  }
  return Regs(branch.getResults().begin(), branch.getResults().end());
}

Value KernelLowering::softwareF4(Value x) {
  IROps ops{b, loc};
  return quant::e2m1Code(ops, x);
}

// The 32-bit word holding bf16 elements 2j and 2j + 1 of a loaded vector,
// when `lo` and `hi` are those elements (null otherwise).
static Value wordOfBf16Pair(OpBuilder &b, Location loc, Value lo, Value hi) {
  std::optional<Bf16Element> first = bf16ElementOf(lo), second = bf16ElementOf(hi);
  if (!first || !second || first->vector != second->vector || first->index % 2 ||
      second->index != first->index + 1)
    return {};
  return bf16Word(b, loc, first->vector, first->index / 2);
}

Value KernelLowering::softwareF4Pair(Value lo, Value hi, Value loNarrow, Value hiNarrow) {
  if (loNarrow && hiNarrow)
    if (Value word = wordOfBf16Pair(b, loc, loNarrow, hiNarrow)) {
      IROps ops{b, loc};
      return arith::TruncIOp::create(b, loc, b.getI8Type(),
                                     quant::e2m1PairFromBf16Word(ops, lo, hi, word));
    }
  return softwareF4Pair(lo, hi);
}

Value KernelLowering::softwareF4Pair(Value lo, Value hi) {
  IROps ops{b, loc};
  Value low = quant::e2m1Code(ops, lo);
  Value high = quant::e2m1Code(ops, hi);
  Value byte = ops.or32(low, arith::ShLIOp::create(b, loc, high, ops.i32(4)));
  return arith::TruncIOp::create(b, loc, b.getI8Type(), byte);
}

// An E4M3 byte as f32, exactly (through cvt.rn.f16x2.e4m3x2).
Value KernelLowering::decodeE4M3(Value bits) {
  Type i8 = b.getI8Type();
  Value pair = LLVM::UndefOp::create(b, loc, VectorType::get({2}, i8));
  pair = LLVM::InsertElementOp::create(b, loc, pair, bits, i32(0));
  pair = LLVM::InsertElementOp::create(b, loc, pair, bits, i32(1));
  Value halves = nvvm::f8x2ToF16x2(b, loc, pair, b.getType<Float8E4M3FNType>());
  Value h = LLVM::ExtractElementOp::create(b, loc, halves, i32(0));
  return arith::ExtFOp::create(b, loc, b.getF32Type(), h);
}

// A 4-bit E2M1 code (sign in bit 3) as f32.
Value KernelLowering::decodeE2M1(Value nibble) {
  Type i8 = b.getI8Type(), f32 = b.getF32Type();
  Value code = arith::AndIOp::create(b, loc, nibble, arith::ConstantIntOp::create(b, loc, i8, 7));
  static const float kMagnitudes[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  Value mag = arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0));
  for (int c = 1; c < 8; ++c) {
    Value is = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, code,
                                       arith::ConstantIntOp::create(b, loc, i8, c));
    mag = arith::SelectOp::create(b, 
        loc, is, arith::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(kMagnitudes[c])), mag);
  }
  Value negative = arith::CmpIOp::create(b, 
      loc, arith::CmpIPredicate::ne,
      arith::AndIOp::create(b, loc, nibble, arith::ConstantIntOp::create(b, loc, i8, 8)),
      arith::ConstantIntOp::create(b, loc, i8, 0));
  return arith::SelectOp::create(b, loc, negative, arith::NegFOp::create(b, loc, mag), mag);
}

LogicalResult KernelLowering::lowerQuantize(QuantizeOp op) {
  if (fp8::isScheme(op.getScheme()))
    return op.emitError("internal: FP8 quantization is expanded by tile-expand-fp8");
  auto d = distOf(op, op.getSrc().getType());
  if (failed(d))
    return failure();
  bool nv = op.getScheme() == "nvfp4";
  int64_t block = nv ? 16 : 32;
  if (d->sliceDim >= 0 || d->blocked.sizePerThread[d->blocked.order[0]] != block)
    return op.emitError("internal: quantize needs ")
           << block << " contiguous elements per thread: run tile-assign-layouts";
  if (nv && !target.fp8Convert)
    return op.emitError("nvfp4 needs E4M3 conversion, which ") << target.name << " lacks";
  Type f32 = b.getF32Type(), i8 = b.getI8Type(), i32t = b.getI32Type();
  Type srcElem = op.getSrc().getType().getElementType();
  auto asF32 = [&](Value v) -> Value {
    return srcElem.isF32() ? v : arith::ExtFOp::create(b, loc, f32, v).getResult();
  };
  auto f32c = [&](float v) -> Value { return constant(b.getF32FloatAttr(v)); };
  auto i32c = [&](int32_t v) -> Value { return constant(b.getI32IntegerAttr(v)); };
  Regs in = lookup(op.getSrc());
  Value gs = nv ? reg(op.getScale(), 0) : Value();
  Regs packedRegs, scaleRegs;
  struct Block {
    SmallVector<Value> x, narrow;
    Value scaleBits, sf, multiplier;
  };
  SmallVector<Block> blocks;
  for (size_t g = 0; g < in.size(); g += block) {
    Block &blk = blocks.emplace_back();
    SmallVector<Value> &x = blk.x, &narrow = blk.narrow;
    for (int64_t k = 0; k < block; ++k)
      x.push_back(asF32(in[g + k]));
    // The block as bf16 when it is (a bf16 tile, or one widened to f32 for
    // the quantization, as kernels write it).
    for (int64_t k = 0; k < block; ++k) {
      Value v = in[g + k];
      if (Value narrowed = widenedFrom.lookup(v))
        v = narrowed;
      if (v.getType().isBF16())
        narrow.push_back(v);
    }
    Value amax;
    if (int64_t(narrow.size()) == block) {
      // max |x| on bf16 pairs (abs.bf16x2, max.NaN.bf16x2), widened once:
      // the same value as the f32 maxima (abs, max and widening are exact)
      // in half the instructions.
      auto pairType = VectorType::get({2}, narrow[0].getType());
      Value acc;
      for (int64_t k = 0; k < block; k += 2) {
        Value pair = LLVM::UndefOp::create(b, loc, pairType);
        pair = LLVM::InsertElementOp::create(b, loc, pair, narrow[k], i32c(0));
        pair = LLVM::InsertElementOp::create(b, loc, pair, narrow[k + 1], i32c(1));
        pair = math::AbsFOp::create(b, loc, pair);
        acc = acc ? arith::MaximumFOp::create(b, loc, acc, pair).getResult() : pair;
      }
      Value widest = arith::MaximumFOp::create(b, loc, LLVM::ExtractElementOp::create(b, loc, acc, i32c(0)),
                                               LLVM::ExtractElementOp::create(b, loc, acc, i32c(1)));
      amax = arith::ExtFOp::create(b, loc, f32, widest);
    } else {
      amax = math::AbsFOp::create(b, loc, x[0]);
      for (int64_t k = 1; k < block; ++k)
        amax = arith::MaximumFOp::create(b, loc, amax, math::AbsFOp::create(b, loc, x[k]));
    }
    if (nv) {
      // sf = e4m3((gs * amax) / 6). The quotient by 6 only feeds the E4M3
      // rounding: Fp8Quotient.h's reciprocal and correction give the same
      // byte as div.rn (6 is in its divisor range), in five instructions,
      // and with no slow path for the zero dividends of all-zero blocks
      // (padding, rows past M).
      IROps ops{b, loc};
      Value prod = arith::MulFOp::create(b, loc, gs, amax);
      Value t = quant::fp8Quotient(ops, prod, f32c(6.0f), f32c(1.0f / 6.0f));
      Value pair = nvvm::f32x2ToF8x2(b, loc, t, t, b.getType<Float8E4M3FNType>());
      blk.scaleBits = arith::TruncIOp::create(b, loc, i8, pair);
      blk.sf = decodeE4M3(blk.scaleBits);
    } else {
      // shared exponent = floor(log2(amax)) - 2 (E2M1's largest exponent),
      // clamped to E8M0's range; values are x * 2^-shared, exactly.
      Value bits = arith::BitcastOp::create(b, loc, i32t, amax);
      Value e = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, i32c(23)), i32c(255));
      Value shared = arith::SubIOp::create(b, loc, e, i32c(127 + 2));
      shared = arith::MaxSIOp::create(b, loc, shared, i32c(-127));
      shared = arith::MinSIOp::create(b, loc, shared, i32c(126));
      blk.scaleBits = arith::TruncIOp::create(b, loc, i8, arith::AddIOp::create(b, loc, shared, i32c(127)));
      Value inverse = arith::ShLIOp::create(b, loc, arith::SubIOp::create(b, loc, i32c(127), shared), i32c(23));
      blk.multiplier = arith::BitcastOp::create(b, loc, f32, inverse);
    }
  }
  if (nv) {
    // inv = gs / float(sf) exactly, 0 when sf is 0 (a zero divisor would take
    // div.rn's slow path: divide by 1 and select). With gs in the range of
    // Nvfp4Inverse.h (a uniform branch), its reciprocal and correction;
    // otherwise div.rn.
    Value inRange = inClosedRange(gs, quant::kMinGlobalScale, quant::kMaxGlobalScale);
    SmallVector<Value> zeros, divisors;
    for (Block &blk : blocks) {
      zeros.push_back(arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, blk.sf, f32c(0)));
      divisors.push_back(arith::SelectOp::create(b, loc, zeros.back(), f32c(1), blk.sf));
    }
    IRInverseOps ops{b, loc};
    Regs inverses = fastOrExact(
        inRange, int64_t(blocks.size()),
        [&](int64_t i) { return quant::nvfp4Inverse(ops, gs, divisors[i]); },
        [&](int64_t i) { return arith::DivFOp::create(b, loc, gs, divisors[i]).getResult(); });
    for (size_t i = 0; i < blocks.size(); ++i)
      blocks[i].multiplier = arith::SelectOp::create(b, loc, zeros[i], f32c(0), inverses[i]);
  }
  for (Block &blk : blocks) {
    SmallVector<Value> &x = blk.x, &narrow = blk.narrow;
    for (int64_t j = 0; j < block; j += 2) {
      Value lo = arith::MulFOp::create(b, loc, x[j], blk.multiplier);
      Value hi = arith::MulFOp::create(b, loc, x[j + 1], blk.multiplier);
      Value byte;
      if (target.fp4Convert) {
        byte = nvvm::f32x2ToF4x2(b, loc, hi, lo); // saturates like the clamp
      } else {
        // The multiplier is never negative, so lo and hi have the inputs' signs.
        byte = int64_t(narrow.size()) == block ? softwareF4Pair(lo, hi, narrow[j], narrow[j + 1])
                                               : softwareF4Pair(lo, hi);
      }
      packedRegs.push_back(byte);
    }
    scaleRegs.push_back(blk.scaleBits);
  }
  values[op.getValues()] = packedRegs;
  values[op.getScales()] = scaleRegs;
  return success();
}

LogicalResult KernelLowering::lowerDequantize(DequantizeOp op) {
  if (fp8::isScheme(op.getScheme()))
    return op.emitError("internal: FP8 quantization is expanded by tile-expand-fp8");
  auto d = distOf(op, op.getResult().getType());
  if (failed(d))
    return failure();
  bool nv = op.getScheme() == "nvfp4";
  int64_t block = nv ? 16 : 32;
  if (d->sliceDim >= 0 || d->blocked.sizePerThread[d->blocked.order[0]] != block)
    return op.emitError("internal: dequantize needs ")
           << block << " contiguous elements per thread: run tile-assign-layouts";
  Type f32 = b.getF32Type(), i8 = b.getI8Type(), i32t = b.getI32Type();
  Regs packed = lookup(op.getValues()), scales = lookup(op.getScales());
  Value gs = nv ? reg(op.getGlobalScale(), 0) : Value();
  Regs out;
  for (size_t g = 0; g < scales.size(); ++g) {
    Value factor;
    if (nv) {
      factor = arith::DivFOp::create(b, loc, decodeE4M3(scales[g]), gs);
    } else {
      // E8M0 e is 2^(e - 127); e = 0 is the subnormal 2^-127.
      Value e = arith::ExtUIOp::create(b, loc, i32t, scales[g]);
      Value bits = arith::ShLIOp::create(b, loc, e, arith::ConstantIntOp::create(b, loc, i32t, 23));
      Value isZero = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, e,
                                             arith::ConstantIntOp::create(b, loc, i32t, 0));
      bits = arith::SelectOp::create(b, loc, isZero,
                                       arith::ConstantIntOp::create(b, loc, i32t, 0x00400000), bits);
      factor = arith::BitcastOp::create(b, loc, f32, bits);
    }
    for (int64_t j = 0; j < block / 2; ++j) {
      Value byte = packed[g * (block / 2) + j];
      Value lo = decodeE2M1(arith::AndIOp::create(b, loc, byte, arith::ConstantIntOp::create(b, loc, i8, 15)));
      Value hi = decodeE2M1(arith::ShRUIOp::create(b, loc, byte, arith::ConstantIntOp::create(b, loc, i8, 4)));
      out.push_back(arith::MulFOp::create(b, loc, lo, factor));
      out.push_back(arith::MulFOp::create(b, loc, hi, factor));
    }
  }
  values[op.getResult()] = out;
  return success();
}

// The i16 that FP8 conversion made the byte `v` from, with v its low (byte
// 0) or high (byte 1) half: lowerNarrowTrunc's trunc(pair) or
// trunc(pair >> 8). Null for any other value.
static Value bytePairOf(Value v, int byte) {
  auto trunc = v.getDefiningOp<arith::TruncIOp>();
  if (!trunc || !trunc.getType().isInteger(8) || !trunc.getIn().getType().isInteger(16))
    return Value();
  Value in = trunc.getIn();
  if (byte == 0)
    return in;
  auto shift = in.getDefiningOp<arith::ShRUIOp>();
  auto amount = shift ? shift.getRhs().getDefiningOp<arith::ConstantIntOp>() : nullptr;
  return amount && amount.value() == 8 ? shift.getLhs() : Value();
}

// Registers r .. r + width - 1 of `value` as a vector of width / 2 i16 when
// they are the bytes of FP8 conversions taken in pairs (what a store of FP8
// values usually holds): the pairs then make the stored words directly, one
// prmt a word, instead of being cut into bytes and put back together (two to
// three instructions a byte). Null when they are not.
Value KernelLowering::bytePairsVector(Value value, int64_t r, int64_t width) {
  if (width % 2)
    return Value();
  SmallVector<Value> pairs;
  for (int64_t k = 0; k < width; k += 2) {
    Value lo = bytePairOf(reg(value, r + k), 0), hi = bytePairOf(reg(value, r + k + 1), 1);
    if (!lo || lo != hi)
      return Value();
    pairs.push_back(lo);
  }
  Value v = LLVM::UndefOp::create(b, loc, VectorType::get({width / 2}, b.getI16Type()));
  for (size_t k = 0; k < pairs.size(); ++k)
    v = LLVM::InsertElementOp::create(b, loc, v, pairs[k], i32(k));
  return v;
}

LogicalResult KernelLowering::lowerNarrowTrunc(Operation *op, Value src,
                                               Type dstElem) {
  Type srcElem = getElementTypeOrSelf(src.getType());
  bool isF8 = isa<Float8E4M3FNType, Float8E5M2Type>(dstElem);
  bool isF4 = isa<Float4E2M1FNType>(dstElem);
  if (!isF8 && !isF4)
    return op->emitError("conversion to ") << dstElem << " is not supported yet";
  if (isF8 && !target.fp8Convert)
    return op->emitError("conversion to ")
           << dstElem << " needs FP8 conversion, which " << target.name
           << " lacks";
  Regs in = lookup(src);
  Type f32 = b.getF32Type();
  auto asF32 = [&](Value v) -> Value {
    return srcElem.isF32() ? v : arith::ExtFOp::create(b, loc, f32, v).getResult();
  };
  Regs out;
  for (size_t i = 0; i < in.size(); i += 2) {
    Value lo = asF32(in[i]);
    Value hi = i + 1 < in.size() ? asF32(in[i + 1]) : lo;
    if (isF8) {
      Value pair = nvvm::f32x2ToF8x2(b, loc, hi, lo, dstElem);
      out.push_back(arith::TruncIOp::create(b, loc, b.getI8Type(), pair));
      if (i + 1 < in.size()) {
        Value up = arith::ShRUIOp::create(b, 
            loc, pair, arith::ConstantIntOp::create(b, loc, b.getI16Type(), 8));
        out.push_back(arith::TruncIOp::create(b, loc, b.getI8Type(), up));
      }
      continue;
    }
    // FP4: one nibble per register (packing two per byte is the kernel's
    // business: it knows which elements pair up).
    Value pair = target.fp4Convert ? nvvm::f32x2ToF4x2(b, loc, hi, lo) : Value();
    Type i8 = b.getI8Type();
    Value mask = arith::ConstantIntOp::create(b, loc, i8, 0xf);
    if (pair) {
      out.push_back(arith::AndIOp::create(b, loc, pair, mask));
      if (i + 1 < in.size())
        out.push_back(arith::ShRUIOp::create(b, 
            loc, pair, arith::ConstantIntOp::create(b, loc, i8, 4)));
    } else {
      out.push_back(arith::TruncIOp::create(b, loc, i8, softwareF4(lo)));
      if (i + 1 < in.size())
        out.push_back(arith::TruncIOp::create(b, loc, i8, softwareF4(hi)));
    }
  }
  values[op->getResult(0)] = out;
  return success();
}

LogicalResult KernelLowering::lowerNarrowExt(Operation *op, Value src,
                                             Type dstElem) {
  Type srcElem = getElementTypeOrSelf(src.getType());
  if (!isa<Float8E4M3FNType, Float8E5M2Type>(srcElem))
    return op->emitError("conversion from ") << srcElem
                                             << " is not supported yet";
  Regs in = lookup(src);
  Regs out;
  Type i8 = b.getI8Type();
  for (size_t i = 0; i < in.size(); i += 2) {
    Value vec = LLVM::UndefOp::create(b, loc, VectorType::get({2}, i8));
    vec = LLVM::InsertElementOp::create(b, loc, vec, in[i], i32(0));
    vec = LLVM::InsertElementOp::create(b, 
        loc, vec, in[i + 1 < in.size() ? i + 1 : i], i32(1));
    Value halves = nvvm::f8x2ToF16x2(b, loc, vec, srcElem);
    for (int k = 0; k < 2 && i + k < in.size(); ++k) {
      Value h = LLVM::ExtractElementOp::create(b, loc, halves, i32(k));
      out.push_back(arith::ExtFOp::create(b, loc, dstElem, h));
    }
  }
  values[op->getResult(0)] = out;
  return success();
}

LogicalResult KernelLowering::lowerFor(scf::ForOp op) {
  SmallVector<Value> inits;
  SmallVector<int64_t> counts;
  for (Value init : op.getInitArgs()) {
    Regs &r = lookup(init);
    inits.append(r.begin(), r.end());
    counts.push_back(r.size());
  }
  auto loop = scf::ForOp::create(b, loc, reg(op.getLowerBound(), 0),
                                   reg(op.getUpperBound(), 0),
                                   reg(op.getStep(), 0), inits);
  Block *body = loop.getBody();
  if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>())
    body->back().erase();
  values[op.getInductionVar()] = Regs{loop.getInductionVar()};
  size_t at = 0;
  for (auto [arg, count] : llvm::zip(op.getRegionIterArgs(), counts)) {
    values[arg] = Regs(loop.getRegionIterArgs().begin() + at,
                       loop.getRegionIterArgs().begin() + at + count);
    at += count;
  }
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(body);
    if (failed(lowerBlock(*op.getBody())))
      return failure();
    SmallVector<Value> yields;
    for (Value v : op.getBody()->getTerminator()->getOperands()) {
      Regs &r = lookup(v);
      yields.append(r.begin(), r.end());
    }
    scf::YieldOp::create(b, loc, yields);
  }
  at = 0;
  for (auto [result, count] : llvm::zip(op.getResults(), counts)) {
    values[result] = Regs(loop.getResults().begin() + at,
                          loop.getResults().begin() + at + count);
    at += count;
  }
  return success();
}

LogicalResult KernelLowering::lowerIf(scf::IfOp op) {
  SmallVector<Type> types;
  SmallVector<int64_t> counts;
  for (Value result : op.getResults()) {
    Type elem = storageType(getElementTypeOrSelf(result.getType()));
    int64_t n = 1;
    if (auto t = dyn_cast<RankedTensorType>(result.getType())) {
      auto d = distOf(op, t);
      if (failed(d))
        return failure();
      n = d->numRegs();
    }
    types.append(n, elem);
    counts.push_back(n);
  }
  auto branch = scf::IfOp::create(b, loc, types, reg(op.getCondition(), 0),
                                    /*withElseRegion=*/true);
  for (auto [from, to] : {std::pair{&op.getThenRegion(), &branch.getThenRegion()},
                          std::pair{&op.getElseRegion(), &branch.getElseRegion()}}) {
    Block *block = &to->front();
    if (!block->empty() && block->back().hasTrait<OpTrait::IsTerminator>())
      block->back().erase();
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(block);
    SmallVector<Value> yields;
    if (!from->empty()) {
      if (failed(lowerBlock(from->front())))
        return failure();
      for (Value v : from->front().getTerminator()->getOperands()) {
        Regs &r = lookup(v);
        yields.append(r.begin(), r.end());
      }
    }
    scf::YieldOp::create(b, loc, yields);
  }
  size_t at = 0;
  for (auto [result, count] : llvm::zip(op.getResults(), counts)) {
    values[result] = Regs(branch.getResults().begin() + at,
                          branch.getResults().begin() + at + count);
    at += count;
  }
  return success();
}

} // namespace lowering

namespace {

struct TileToLLVMPass
    : public PassWrapper<TileToLLVMPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TileToLLVMPass)
  TileToLLVMPass() = default;
  TileToLLVMPass(const TileToLLVMPass &other) : PassWrapper(other) {}
  StringRef getArgument() const override { return "convert-tile-to-llvm"; }
  StringRef getDescription() const override {
    return "lower tile kernels to the LLVM and NVVM dialects";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registerLoweringDialects(registry);
  }
  void runOnOperation() override {
    const Target *t = findTarget(targetName);
    if (!t) {
      getOperation().emitError("unknown target '")
          << targetName << "' (known: " << targetNames() << ")";
      return signalPassFailure();
    }
    if (failed(lowerTileToLLVM(getOperation(), *t)))
      signalPassFailure();
  }
  Option<std::string> targetName{*this, "target",
                                 llvm::cl::desc("GPU target, e.g. sm_90a"),
                                 llvm::cl::init("sm_90a")};
};

} // namespace

void registerLoweringDialects(DialectRegistry &registry) {
  registry.insert<LLVM::LLVMDialect, arith::ArithDialect, scf::SCFDialect,
                  cf::ControlFlowDialect, math::MathDialect>();
  nvvm::registerDialect(registry);
}

LogicalResult lowerTileToLLVM(ModuleOp module, const Target &target) {
  SmallVector<func::FuncOp> kernels;
  module.walk([&](func::FuncOp f) {
    if (f->hasAttr(attr::kKernel))
      kernels.push_back(f);
  });
  for (func::FuncOp f : kernels)
    if (failed(lowering::KernelLowering(f, target).run()))
      return failure();
  MLIRContext *ctx = module.getContext();
  // No verifier after these two passes: megac verifies the tile IR once after
  // its passes and LLVM verifies the module it translates (each verification
  // walks the whole kernel: ~1.5 ms of attention's compile).
  PassManager structured(ctx);
  structured.enableVerifier(false);
  structured.addPass(createSCFToControlFlowPass());
  if (failed(structured.run(module)))
    return failure();
  // arith, math and cf to LLVM in one conversion (one walk instead of three
  // passes), with the driver that keeps no rollback state.
  LLVMTypeConverter converter(ctx);
  RewritePatternSet patterns(ctx);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
  LLVMConversionTarget legal(*ctx);
  ConversionConfig config;
  config.allowPatternRollback = false;
  if (failed(applyPartialConversion(module, legal, std::move(patterns), config)))
    return failure();
  PassManager casts(ctx);
  casts.enableVerifier(false);
  casts.addPass(createReconcileUnrealizedCastsPass());
  return casts.run(module);
}

void registerTileToLLVMPass() { PassRegistration<TileToLLVMPass>(); }

} // namespace megac
