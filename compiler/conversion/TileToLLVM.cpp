#include "TileToLLVM.h"
#include "Bf16Words.h"
#include "KernelLowering.h"
#include "NVVMBuilders.h"
#include "DirectToLLVM.h"
#include "StructuredToCF.h"
#include "../codegen/ValueMajorOrder.h"
#include "../target/Target.h"

#include "Tile/Analysis/AxisInfo.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/Layout/BlockedLayout.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstdlib>
#include <numeric>

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
  findReductionGroups();
  if (failed(lowerBlock(func.getBody().front())))
    return failure();
  LLVM::ReturnOp::create(b, loc, ValueRange{});

  if (altBytes > 0)
    copyBuffers.insert(copyBuffers.begin(), {smemName + "_alt", altBytes});
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
  if (auto cast = dyn_cast<PtrCastOp>(op)) {
    // LLVM's pointers are untyped: the same register. (Copied first: the
    // insertion may grow the map that `lookup` points into.)
    Regs same = lookup(cast.getSrc());
    values[cast] = same;
    return success();
  }
  if (auto l = dyn_cast<LoadOp>(op))
    return lowerLoad(l);
  if (auto s = dyn_cast<StoreOp>(op))
    return lowerStore(s);
  if (auto a = dyn_cast<AtomicRMWOp>(op))
    return lowerAtomic(a);
  if (auto wait = dyn_cast<WaitPriorKernelOp>(op)) {
    nvvm::waitPriorKernel(b, loc, wait.getLaunchDependents());
    return success();
  }
  if (isa<LaunchDependentsOp>(op)) {
    nvvm::launchDependents(b, loc);
    return success();
  }
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
  if (auto div = dyn_cast<arith::DivFOp>(op))
    return lowerDivide(div);
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
  // A select moves a narrow float's bits (its register is the byte it is
  // stored as): `where` on f8/f4 values needs no arithmetic.
  for (Type t : op->getResultTypes())
    if (isNarrowFloat(getElementTypeOrSelf(t)) && !isa<arith::SelectOp>(op)) {
      InFlightDiagnostic diag = op->emitError("arithmetic on ")
                                << getElementTypeOrSelf(t) << " is not supported";
      diag.attachNote() << kHintPrefix << "convert to f32 first: (x as f32)";
      return diag;
    }
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
  // Float to integer saturates (NaN to 0): LLVM's fptosi/fptoui of a value
  // past the integer's range is undefined, and folded constants came out as
  // garbage. f16 and bf16 widen to f32 first (exact).
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    Type to = getElementTypeOrSelf(op->getResult(0).getType());
    std::string name = std::string(isa<arith::FPToSIOp>(op) ? "llvm.fptosi.sat" : "llvm.fptoui.sat") +
                       ".i" + std::to_string(to.getIntOrFloatBitWidth());
    for (int64_t i = 0; i < n; ++i) {
      Value x = reg(op->getOperand(0), i);
      if (x.getType().getIntOrFloatBitWidth() < 32)
        x = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      std::string callee = name + (x.getType().isF64() ? ".f64" : ".f32");
      results[0].push_back(
          LLVM::CallIntrinsicOp::create(b, loc, to, b.getStringAttr(callee), ValueRange{x}).getResult(0));
    }
    values[op->getResult(0)] = results[0];
    return success();
  }
  // A comparison constant over runs of elements (a contiguous index against
  // a bound it is a multiple of: `cols < N`, N multiple_of 16) is computed
  // once a run a thread holds: LLVM cannot see that cols + 1 < N is cols < N.
  std::optional<std::vector<int64_t>> same;
  if (isa<arith::CmpIOp>(op))
    same = constantRunRepresentatives(op->getResult(0));
  if (same && int64_t(same->size()) != n)
    same.reset();
  for (int64_t i = 0; i < n; ++i) {
    if (same && (*same)[i] != i) {
      for (unsigned r = 0; r < op->getNumResults(); ++r)
        results[r].push_back(results[r][(*same)[i]]);
      continue;
    }
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

// For each register of tile `v`, the first register of the thread that holds
// an equal value by AxisInfo's constancy: along a dimension, elements in one
// aligned run of `constancy` are equal, and a thread's registers of one
// aligned run of gcd(constancy, sizePerThread) (its chunks start at multiples
// of sizePerThread) lie in one such run. None when no two registers share.
std::optional<std::vector<int64_t>> KernelLowering::constantRunRepresentatives(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return std::nullopt;
  const AxisInfo &info = axisInfo.get(v);
  FailureOr<Dist> dist = distOf(v.getDefiningOp(), type);
  if (failed(dist) || info.constancy.size() != dist->shape.size())
    return std::nullopt;
  // Per tile dimension: 0 when the whole dimension is equal, else the run
  // length registers are grouped by (1: no grouping).
  std::vector<int64_t> run(dist->shape.size(), 1);
  bool shares = false;
  for (unsigned d = 0; d < dist->shape.size(); ++d) {
    int64_t c = info.constancy[d], extent = dist->shape[d];
    int64_t spt = dist->blocked.sizePerThread[dist->parentDim(d)];
    run[d] = c >= extent ? 0 : std::gcd(c, spt);
    if (run[d] != 0 && extent % run[d] != 0)
      run[d] = 1;
    shares |= run[d] != 1;
  }
  if (!shares)
    return std::nullopt;
  std::map<std::vector<int64_t>, int64_t> first;
  std::vector<int64_t> rep(dist->numRegs());
  for (int64_t r = 0; r < dist->numRegs(); ++r) {
    layout::Index off = dist->offset(r);
    std::vector<int64_t> key;
    for (unsigned d = 0; d < run.size(); ++d)
      key.push_back(run[d] == 0 ? 0 : off[dist->parentDim(d)] / run[d]);
    rep[r] = first.emplace(key, r).first->second;
  }
  return rep;
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
  // (The frontend rejects these first; IR from megac-opt can still get here.)
  if (!elem.isF32() && !elem.isF64()) {
    InFlightDiagnostic diag = op->emitError(base) << " needs f32 or f64, got " << elem;
    diag.attachNote() << kHintPrefix << "compute in f32, e.g. " << base << "(x as f32)";
    return diag;
  }
  // @fast_math: exp and exp2 are one ex2.approx.ftz.f32 (exp after a
  // multiply by log2(e)), rsqrt one rsqrt.approx.ftz.f32. The ftz forms
  // flush subnormals (exp's results below 2^-126, rsqrt's arguments: +inf),
  // which saves the three instructions a value that scale them in and out of
  // the non-ftz ex2.approx and of libdevice's rsqrt.approx.f32.
  bool fastMath = elem.isF32() && func->hasAttr(tile::attr::kFastMath);
  StringRef ftzIntrinsic = !fastMath                          ? ""
                           : base == "exp" || base == "exp2" ? "llvm.nvvm.ex2.approx.ftz.f"
                           : base == "rsqrt"                 ? "llvm.nvvm.rsqrt.approx.ftz.f"
                                                             : "";
  if (!ftzIntrinsic.empty()) {
    Regs out;
    Value log2e = base == "exp" ? constant(b.getF32FloatAttr(1.4426950408889634f)) : Value();
    for (int64_t i = 0, n = numRegsOf(op->getOperand(0)); i < n; ++i) {
      Value x = reg(op->getOperand(0), i);
      if (log2e)
        x = arith::MulFOp::create(b, loc, x, log2e);
      out.push_back(LLVM::CallIntrinsicOp::create(b, loc, elem, b.getStringAttr(ftzIntrinsic), ValueRange{x})
                        .getResult(0));
    }
    values[op->getResult(0)] = out;
    return success();
  }
  // @fast_math: libdevice's approximate f32 versions (lg2.approx,
  // tanh.approx), about 2 ulp, instead of the accurate ones.
  bool fast = fastMath && llvm::is_contained({"log", "log2", "tanh"}, base);
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
  if (srcDist->blocked != dstDist->blocked)
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
  // scf to cf, then arith, math and cf to LLVM: one walk each rewrites
  // every op it knows (StructuredToCF.h, DirectToLLVM.h); MLIR's pass and
  // dialect conversion (in one walk for the three dialects and with the
  // driver that keeps no rollback state) take any op left
  // (MEGAC_DIRECT_TO_LLVM=none: all of them, for the identity test).
  const char *direct = std::getenv("MEGAC_DIRECT_TO_LLVM");
  bool directly = !(direct && llvm::StringRef(direct) == "none");
  if (!directly || !lowerStructuredControlFlow(module)) {
    PassManager structured(ctx);
    structured.enableVerifier(false);
    structured.addPass(createSCFToControlFlowPass());
    if (failed(structured.run(module)))
      return failure();
  }
  if (!directly || rewriteToLLVMDirectly(module)) {
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
  }
  PassManager casts(ctx);
  casts.enableVerifier(false);
  casts.addPass(createReconcileUnrealizedCastsPass());
  return casts.run(module);
}

void registerTileToLLVMPass() { PassRegistration<TileToLLVMPass>(); }

} // namespace megac
