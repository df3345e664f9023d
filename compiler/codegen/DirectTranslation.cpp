#include "DirectTranslation.h"
#include "../conversion/NVVMBuilders.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Target/LLVMIR/TypeToLLVM.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Analysis/TargetFolder.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

using namespace mlir;

namespace megac {
namespace {

using Builder = llvm::IRBuilder<llvm::TargetFolder>;

llvm::FastMathFlags fastMath(LLVM::FastmathFlags f) {
  using F = LLVM::FastmathFlags;
  llvm::FastMathFlags out;
  out.setNoNaNs(bitEnumContainsAll(f, F::nnan));
  out.setNoInfs(bitEnumContainsAll(f, F::ninf));
  out.setNoSignedZeros(bitEnumContainsAll(f, F::nsz));
  out.setAllowReciprocal(bitEnumContainsAll(f, F::arcp));
  out.setAllowContract(bitEnumContainsAll(f, F::contract));
  out.setApproxFunc(bitEnumContainsAll(f, F::afn));
  out.setAllowReassoc(bitEnumContainsAll(f, F::reassoc));
  return out;
}

// The LLVM dialect's ICmpPredicate numbers eq, ne, slt, sle, sgt, sge, ult,
// ule, ugt, uge from 0.
llvm::CmpInst::Predicate predicate(LLVM::ICmpPredicate p) {
  using C = llvm::CmpInst;
  static constexpr C::Predicate kInOrder[] = {C::ICMP_EQ,  C::ICMP_NE,  C::ICMP_SLT, C::ICMP_SLE,
                                              C::ICMP_SGT, C::ICMP_SGE, C::ICMP_ULT, C::ICMP_ULE,
                                              C::ICMP_UGT, C::ICMP_UGE};
  static_assert(uint64_t(LLVM::ICmpPredicate::uge) == 9 && uint64_t(LLVM::ICmpPredicate::slt) == 2);
  return kInOrder[uint64_t(p)];
}

// The LLVM dialect's FCmpPredicate lists the predicates in llvm::CmpInst's
// order, from false (0) to true (15).
llvm::CmpInst::Predicate predicate(LLVM::FCmpPredicate p) {
  static_assert(uint64_t(LLVM::FCmpPredicate::_true) == llvm::CmpInst::FCMP_TRUE);
  return llvm::CmpInst::Predicate(uint64_t(p));
}

// The ops that are one LLVM binary operator or cast of their operands and
// have no flags of their own (fast-math flags come from the builder).
std::optional<unsigned> plainOpcode(StringRef opName) {
  using I = llvm::Instruction;
  static const llvm::StringMap<unsigned> kOpcodes = {{"llvm.urem", I::URem},
                                                     {"llvm.srem", I::SRem},
                                                     {"llvm.and", I::And},
                                                     {"llvm.xor", I::Xor},
                                                     {"llvm.fadd", I::FAdd},
                                                     {"llvm.fsub", I::FSub},
                                                     {"llvm.fmul", I::FMul},
                                                     {"llvm.fdiv", I::FDiv},
                                                     {"llvm.frem", I::FRem},
                                                     {"llvm.bitcast", I::BitCast},
                                                     {"llvm.sext", I::SExt},
                                                     {"llvm.fptrunc", I::FPTrunc},
                                                     {"llvm.fpext", I::FPExt},
                                                     {"llvm.sitofp", I::SIToFP},
                                                     {"llvm.fptosi", I::FPToSI},
                                                     {"llvm.fptoui", I::FPToUI},
                                                     {"llvm.ptrtoint", I::PtrToInt},
                                                     {"llvm.inttoptr", I::IntToPtr},
                                                     {"llvm.addrspacecast", I::AddrSpaceCast}};
  auto it = kOpcodes.find(opName);
  return it == kOpcodes.end() ? std::nullopt : std::optional<unsigned>(it->second);
}

// The intrinsic ops the lowering makes, each overloaded on its result type
// alone (as MLIR's translation of these ops declares them).
llvm::Intrinsic::ID resultOverloadedIntrinsic(StringRef opName) {
  namespace I = llvm::Intrinsic;
  static const llvm::StringMap<I::ID> kIntrinsics = {
      {"llvm.intr.fma", I::fma},           {"llvm.intr.fabs", I::fabs},
      {"llvm.intr.copysign", I::copysign}, {"llvm.intr.sqrt", I::sqrt},
      {"llvm.intr.maximum", I::maximum},   {"llvm.intr.minimum", I::minimum},
      {"llvm.intr.maxnum", I::maxnum},     {"llvm.intr.minnum", I::minnum},
      {"llvm.intr.smax", I::smax},         {"llvm.intr.smin", I::smin},
      {"llvm.intr.umax", I::umax},         {"llvm.intr.umin", I::umin}};
  auto it = kIntrinsics.find(opName);
  return it == kIntrinsics.end() ? I::not_intrinsic : it->second;
}

class Translator {
public:
  Translator(ModuleOp module, llvm::LLVMContext &context)
      : mlirModule(module), context(context), types(context),
        module(std::make_unique<llvm::Module>("megac", context)) {}

  std::unique_ptr<llvm::Module> run();

private:
  bool declareGlobal(LLVM::GlobalOp global);
  bool declareFunction(LLVM::LLVMFuncOp func);
  bool translateBody(LLVM::LLVMFuncOp func);
  bool translateOp(Operation &op, Builder &b);
  bool translateNVVM(Operation &op, Builder &b);
  llvm::Constant *constant(Type type, Attribute value);
  llvm::Value *call(Builder &b, llvm::Intrinsic::ID id, ArrayRef<llvm::Type *> overloads,
                    ArrayRef<llvm::Value *> args) {
    return b.CreateCall(llvm::Intrinsic::getOrInsertDeclaration(module.get(), id, overloads), args);
  }
  llvm::Type *type(Type t) { return types.translateType(t); }
  // The type of a call of `args` returning `op`'s result (void without one).
  llvm::FunctionType *functionType(Operation *op, ValueRange args) {
    llvm::SmallVector<llvm::Type *> argTypes;
    for (Value arg : args)
      argTypes.push_back(type(arg.getType()));
    llvm::Type *resultType =
        op->getNumResults() ? type(op->getResult(0).getType()) : llvm::Type::getVoidTy(context);
    return llvm::FunctionType::get(resultType, argTypes, false);
  }
  llvm::Value *value(Value v) { return values.lookup(v); }
  llvm::SmallVector<llvm::Value *> valuesOf(ValueRange range) {
    llvm::SmallVector<llvm::Value *> out;
    for (Value v : range)
      out.push_back(value(v));
    return out;
  }
  void map(Value v, llvm::Value *to) { values[v] = to; }

  ModuleOp mlirModule;
  llvm::LLVMContext &context;
  LLVM::TypeToLLVMIRTranslator types;
  std::unique_ptr<llvm::Module> module;
  llvm::DenseMap<Value, llvm::Value *> values;
  llvm::DenseMap<Block *, llvm::BasicBlock *> blocks;
};

std::unique_ptr<llvm::Module> Translator::run() {
  // A data layout or target on the module, debug info: MLIR's translation.
  if (!mlirModule->getDiscardableAttrDictionary().empty())
    return nullptr;
  for (Operation &op : mlirModule.getBody()->getOperations()) {
    bool ok = llvm::TypeSwitch<Operation *, bool>(&op)
                  .Case([&](LLVM::GlobalOp g) { return declareGlobal(g); })
                  .Case([&](LLVM::LLVMFuncOp f) { return declareFunction(f); })
                  .Default([](Operation *) { return false; });
    if (!ok)
      return nullptr;
  }
  for (auto func : mlirModule.getOps<LLVM::LLVMFuncOp>())
    if (!func.isExternal() && !translateBody(func))
      return nullptr;
  // As MLIR's translation marks every module it makes.
  module->addModuleFlag(llvm::Module::Warning, "Debug Info Version", llvm::DEBUG_METADATA_VERSION);
  return std::move(module);
}

bool Translator::declareGlobal(LLVM::GlobalOp global) {
  if (global.getLinkage() != LLVM::Linkage::Internal || global.getValueOrNull() ||
      !global.getInitializerRegion().empty() || global.getConstant() ||
      !global->getDiscardableAttrDictionary().empty() || global.getSection() ||
      global.getUnnamedAddr() || global.getThreadLocal_() || global.getDsoLocal() ||
      global.getExternallyInitialized() || global.getComdat())
    return false;
  llvm::Type *t = type(global.getGlobalType());
  auto *var = new llvm::GlobalVariable(
      *module, t, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
      llvm::UndefValue::get(t), global.getSymName(),
      /*InsertBefore=*/nullptr, llvm::GlobalValue::NotThreadLocal, global.getAddrSpace());
  if (std::optional<uint64_t> align = global.getAlignment())
    var->setAlignment(llvm::MaybeAlign(*align));
  return true;
}

bool Translator::declareFunction(LLVM::LLVMFuncOp func) {
  if (func.getLinkage() != LLVM::Linkage::External || func.getCConv() != LLVM::cconv::CConv::C ||
      func.getResAttrsAttr() || func.getPersonalityAttr() || func.getMemoryEffectsAttr() ||
      func.getSectionAttr() || func.getTargetCpuAttr() || func.getTargetFeaturesAttr() ||
      func.getUnnamedAddrAttr() || func.getAlignmentAttr() ||
      func.getVisibility_() != LLVM::Visibility::Default)
    return false;
  auto *fnType = cast<llvm::FunctionType>(type(func.getFunctionType()));
  llvm::Function *f = llvm::Function::Create(fnType, llvm::GlobalValue::ExternalLinkage,
                                             func.getSymName(), *module);
  // Parameters: only their alignment.
  if (ArrayAttr args = func.getArgAttrsAttr()) {
    for (auto [i, attrs] : llvm::enumerate(args.getAsRange<DictionaryAttr>())) {
      for (NamedAttribute a : attrs) {
        auto align = dyn_cast<IntegerAttr>(a.getValue());
        if (a.getName() != LLVM::LLVMDialect::getAlignAttrName() || !align)
          return false;
        f->addParamAttr(i, llvm::Attribute::getWithAlignment(context, llvm::Align(align.getInt())));
      }
    }
  }
  if (ArrayAttr passthrough = func.getPassthroughAttr()) {
    for (Attribute a : passthrough) {
      auto name = dyn_cast<StringAttr>(a);
      if (!name || llvm::Attribute::getAttrKindFromName(name.getValue()) != llvm::Attribute::None)
        return false;
      f->addFnAttr(name.getValue());
    }
  }
  // The NVVM kernel attributes (nvvm::setKernelAttributes): the calling
  // convention and launch bounds as string attributes.
  for (NamedAttribute a : func->getDiscardableAttrs()) {
    StringRef name = a.getName().getValue();
    if (name == "nvvm.kernel") {
      f->setCallingConv(llvm::CallingConv::PTX_Kernel);
    } else if (name == "nvvm.maxntid" || name == "nvvm.reqntid") {
      auto dims = dyn_cast<DenseI32ArrayAttr>(a.getValue());
      if (!dims)
        return false;
      std::string text;
      for (int32_t d : dims.asArrayRef())
        text += (text.empty() ? "" : ",") + std::to_string(d);
      f->addFnAttr(name, text);
    } else if (name == "nvvm.maxnreg" || name == "nvvm.minctasm") {
      auto n = dyn_cast<IntegerAttr>(a.getValue());
      if (!n)
        return false;
      f->addFnAttr(name, std::to_string(n.getInt()));
    } else {
      return false;
    }
  }
  return true;
}

llvm::Constant *Translator::constant(Type t, Attribute value) {
  llvm::Type *llvmType = type(t);
  if (auto i = dyn_cast<IntegerAttr>(value))
    return llvmType->isIntegerTy() ? llvm::ConstantInt::get(llvmType, i.getValue()) : nullptr;
  if (auto f = dyn_cast<FloatAttr>(value)) {
    if (!llvmType->isFloatingPointTy() ||
        &f.getValue().getSemantics() != &llvmType->getFltSemantics())
      return nullptr;
    return llvm::ConstantFP::get(llvmType, f.getValue());
  }
  if (auto dense = dyn_cast<SplatElementsAttr>(value)) {
    auto vector = dyn_cast<llvm::FixedVectorType>(llvmType);
    if (!vector)
      return nullptr;
    llvm::Constant *element = constant(dense.getElementType(), dense.getSplatValue<Attribute>());
    return element ? llvm::ConstantVector::getSplat(vector->getElementCount(), element) : nullptr;
  }
  return nullptr;
}

bool Translator::translateBody(LLVM::LLVMFuncOp func) {
  llvm::Function *f = module->getFunction(func.getSymName());
  for (auto [arg, llvmArg] : llvm::zip(func.getArguments(), f->args()))
    map(arg, &llvmArg);
  for (Block &block : func.getBody()) {
    llvm::BasicBlock *bb = llvm::BasicBlock::Create(context);
    bb->insertInto(f);
    blocks[&block] = bb;
  }
  // Blocks in dominance order (a value is translated before its uses), each
  // block's arguments PHI nodes whose incoming values come last, as MLIR's
  // translation does both.
  for (Block *block : getBlocksSortedByDominance(func.getBody())) {
    Builder b(context, llvm::TargetFolder(module->getDataLayout()));
    b.SetInsertPoint(blocks[block]);
    if (!block->isEntryBlock()) {
      unsigned preds = std::distance(block->pred_begin(), block->pred_end());
      for (BlockArgument arg : block->getArguments())
        map(arg, b.CreatePHI(type(arg.getType()), preds));
    }
    for (Operation &op : *block) {
      llvm::IRBuilderBase::FastMathFlagGuard guard(b);
      if (auto fm = dyn_cast<LLVM::FastmathFlagsInterface>(op))
        b.setFastMathFlags(fastMath(fm.getFastmathAttr().getValue()));
      if (!translateOp(op, b))
        return false;
    }
  }
  for (Block &block : llvm::drop_begin(func.getBody())) {
    for (auto [index, phi] : llvm::enumerate(blocks[&block]->phis())) {
      for (Block *pred : block.getPredecessors()) {
        Operation *terminator = pred->getTerminator();
        Value incoming;
        if (auto br = dyn_cast<LLVM::BrOp>(terminator))
          incoming = br.getDestOperands()[index];
        else if (auto condBr = dyn_cast<LLVM::CondBrOp>(terminator))
          incoming = condBr.getTrueDest() == &block ? condBr.getTrueDestOperands()[index]
                                                    : condBr.getFalseDestOperands()[index];
        else
          return false;
        phi.addIncoming(value(incoming), blocks[pred]);
      }
    }
  }
  return true;
}

bool Translator::translateOp(Operation &op, Builder &b) {
  if (op.getDialect() && op.getDialect()->getNamespace() == "nvvm")
    return translateNVVM(op, b);
  // Attributes beyond an op's own (alias scopes set by a pass, debug info):
  // MLIR's translation.
  if (!op.getDiscardableAttrDictionary().empty())
    return false;
  auto intOverflow = [&](auto o) { return std::pair(o.hasNoUnsignedWrap(), o.hasNoSignedWrap()); };
  auto result = [&](llvm::Value *v) {
    map(op.getResult(0), v);
    return true;
  };
  return llvm::TypeSwitch<Operation *, bool>(&op)
      .Case([&](LLVM::ConstantOp c) {
        llvm::Constant *k = constant(c.getType(), c.getValue());
        return k && result(k);
      })
      .Case([&](LLVM::UndefOp u) { return result(llvm::UndefValue::get(type(u.getType()))); })
      .Case([&](LLVM::PoisonOp p) { return result(llvm::PoisonValue::get(type(p.getType()))); })
      .Case([&](LLVM::ZeroOp z) { return result(llvm::Constant::getNullValue(type(z.getType()))); })
      .Case([&](LLVM::AddressOfOp a) {
        llvm::GlobalValue *g = module->getNamedValue(a.getGlobalName());
        return g && result(g);
      })
      .Case([&](LLVM::AddOp o) {
        auto [nuw, nsw] = intOverflow(o);
        return result(b.CreateAdd(value(o.getLhs()), value(o.getRhs()), "", nuw, nsw));
      })
      .Case([&](LLVM::SubOp o) {
        auto [nuw, nsw] = intOverflow(o);
        return result(b.CreateSub(value(o.getLhs()), value(o.getRhs()), "", nuw, nsw));
      })
      .Case([&](LLVM::MulOp o) {
        auto [nuw, nsw] = intOverflow(o);
        return result(b.CreateMul(value(o.getLhs()), value(o.getRhs()), "", nuw, nsw));
      })
      .Case([&](LLVM::ShlOp o) {
        auto [nuw, nsw] = intOverflow(o);
        return result(b.CreateShl(value(o.getLhs()), value(o.getRhs()), "", nuw, nsw));
      })
      .Case([&](LLVM::UDivOp o) {
        return result(b.CreateUDiv(value(o.getLhs()), value(o.getRhs()), "", o.getIsExact()));
      })
      .Case([&](LLVM::SDivOp o) {
        return result(b.CreateSDiv(value(o.getLhs()), value(o.getRhs()), "", o.getIsExact()));
      })
      .Case([&](LLVM::LShrOp o) {
        return result(b.CreateLShr(value(o.getLhs()), value(o.getRhs()), "", o.getIsExact()));
      })
      .Case([&](LLVM::AShrOp o) {
        return result(b.CreateAShr(value(o.getLhs()), value(o.getRhs()), "", o.getIsExact()));
      })
      .Case([&](LLVM::OrOp o) {
        return result(b.CreateOr(value(o.getLhs()), value(o.getRhs()), "", o.getIsDisjoint()));
      })
      .Case([&](LLVM::FNegOp o) { return result(b.CreateFNeg(value(o.getOperand()))); })
      .Case([&](LLVM::ICmpOp o) {
        return result(
            b.CreateICmp(predicate(o.getPredicate()), value(o.getLhs()), value(o.getRhs())));
      })
      .Case([&](LLVM::FCmpOp o) {
        return result(
            b.CreateFCmp(predicate(o.getPredicate()), value(o.getLhs()), value(o.getRhs())));
      })
      .Case([&](LLVM::SelectOp o) {
        return result(b.CreateSelect(value(o.getCondition()), value(o.getTrueValue()),
                                     value(o.getFalseValue())));
      })
      .Case([&](LLVM::TruncOp o) {
        auto [nuw, nsw] = intOverflow(o);
        return result(b.CreateTrunc(value(o.getArg()), type(o.getType()), "", nuw, nsw));
      })
      .Case([&](LLVM::ZExtOp o) {
        return result(b.CreateZExt(value(o.getArg()), type(o.getType()), "", o.getNonNeg()));
      })
      .Case([&](LLVM::UIToFPOp o) {
        return result(b.CreateUIToFP(value(o.getArg()), type(o.getType()), "", o.getNonNeg()));
      })
      .Case([&](LLVM::ExtractValueOp o) {
        llvm::SmallVector<unsigned> position(o.getPosition().begin(), o.getPosition().end());
        return result(b.CreateExtractValue(value(o.getContainer()), position));
      })
      .Case([&](LLVM::InsertValueOp o) {
        llvm::SmallVector<unsigned> position(o.getPosition().begin(), o.getPosition().end());
        return result(b.CreateInsertValue(value(o.getContainer()), value(o.getValue()), position));
      })
      .Case([&](LLVM::ExtractElementOp o) {
        return result(b.CreateExtractElement(value(o.getVector()), value(o.getPosition())));
      })
      .Case([&](LLVM::InsertElementOp o) {
        return result(b.CreateInsertElement(value(o.getVector()), value(o.getValue()),
                                            value(o.getPosition())));
      })
      .Case([&](LLVM::ShuffleVectorOp o) {
        return result(b.CreateShuffleVector(value(o.getV1()), value(o.getV2()), o.getMask()));
      })
      .Case([&](LLVM::GEPOp o) {
        llvm::SmallVector<llvm::Value *> indices;
        auto dynamic = o.getDynamicIndices().begin();
        for (int32_t index : o.getRawConstantIndices())
          indices.push_back(index == LLVM::GEPOp::kDynamicIndex ? value(*dynamic++)
                                                                : b.getInt32(index));
        return result(b.CreateGEP(type(o.getElemType()), value(o.getBase()), indices, "",
                                  llvm::GEPNoWrapFlags::fromRaw(uint32_t(o.getNoWrapFlags()))));
      })
      .Case([&](LLVM::LoadOp o) {
        if (o.getVolatile_() || o.getNontemporal() || o.getInvariant() || o.getInvariantGroup() ||
            o.getOrdering() != LLVM::AtomicOrdering::not_atomic || o.getAccessGroupsAttr() ||
            o.getAliasScopesAttr() || o.getNoaliasScopesAttr() || o.getTbaaAttr() ||
            o.getDereferenceableAttr())
          return false;
        llvm::LoadInst *load = b.CreateLoad(type(o.getType()), value(o.getAddr()));
        if (std::optional<uint64_t> align = o.getAlignment())
          load->setAlignment(llvm::Align(*align));
        return result(load);
      })
      .Case([&](LLVM::StoreOp o) {
        if (o.getVolatile_() || o.getNontemporal() || o.getInvariantGroup() ||
            o.getOrdering() != LLVM::AtomicOrdering::not_atomic || o.getAccessGroupsAttr() ||
            o.getAliasScopesAttr() || o.getNoaliasScopesAttr() || o.getTbaaAttr())
          return false;
        llvm::StoreInst *store = b.CreateStore(value(o.getValue()), value(o.getAddr()));
        if (std::optional<uint64_t> align = o.getAlignment())
          store->setAlignment(llvm::Align(*align));
        return true;
      })
      .Case([&](LLVM::CallOp o) {
        std::optional<StringRef> callee = o.getCallee();
        llvm::Function *f = callee ? module->getFunction(*callee) : nullptr;
        if (!f || o.getCConv() != LLVM::cconv::CConv::C ||
            o.getTailCallKind() != LLVM::tailcallkind::TailCallKind::None || o.getArgAttrsAttr() ||
            o.getResAttrsAttr() || o.getOpBundleTagsAttr() || o.getMemoryEffectsAttr() ||
            o.getConvergent() || o.getNoUnwind() || o.getWillReturn() || o.getNoInline() ||
            o.getAlwaysInline() || o.getInlineHint() || o.getAccessGroupsAttr() ||
            o.getAliasScopesAttr() || o.getNoaliasScopesAttr() || o.getTbaaAttr() ||
            o.getVarCalleeTypeAttr())
          return false;
        llvm::CallInst *c = b.CreateCall(f, valuesOf(o.getArgOperands()));
        return o->getNumResults() == 0 || result(c);
      })
      .Case([&](LLVM::CallIntrinsicOp o) {
        llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID(o.getIntrin());
        if (!id || o.getArgAttrsAttr() || o.getResAttrsAttr() || o.getOpBundleTagsAttr())
          return false;
        llvm::SmallVector<llvm::Type *> overloads;
        if (!llvm::Intrinsic::getIntrinsicSignature(id, functionType(o, o.getArgs()), overloads))
          return false;
        llvm::Value *c = call(b, id, overloads, valuesOf(o.getArgs()));
        return o->getNumResults() == 0 || result(c);
      })
      .Case([&](LLVM::InlineAsmOp o) {
        if (o.getOperandAttrsAttr() || o.getIsAlignStack() ||
            o.getTailCallKind() != LLVM::tailcallkind::TailCallKind::None ||
            o.getAsmDialect().value_or(LLVM::AsmDialect::AD_ATT) != LLVM::AsmDialect::AD_ATT)
          return false;
        // AT&T, checked above: InlineAsm's default dialect.
        llvm::InlineAsm *asmCode =
            llvm::InlineAsm::get(functionType(o, o.getOperands()), o.getAsmString(),
                                 o.getConstraints(), o.getHasSideEffects());
        llvm::CallInst *c = b.CreateCall(asmCode, valuesOf(o.getOperands()));
        return o->getNumResults() == 0 || result(c);
      })
      .Case([&](LLVM::BrOp o) {
        if (o.getLoopAnnotationAttr())
          return false;
        b.CreateBr(blocks[o.getDest()]);
        return true;
      })
      .Case([&](LLVM::CondBrOp o) {
        // Equal successors with arguments need a block of their own
        // (MLIR's ensureDistinctSuccessors); weights, loop annotations.
        if (o.getTrueDest() == o.getFalseDest() || o.getBranchWeightsAttr() ||
            o.getLoopAnnotationAttr())
          return false;
        b.CreateCondBr(value(o.getCondition()), blocks[o.getTrueDest()], blocks[o.getFalseDest()]);
        return true;
      })
      .Case([&](LLVM::ReturnOp o) {
        if (o->getNumOperands())
          b.CreateRet(value(o->getOperand(0)));
        else
          b.CreateRetVoid();
        return true;
      })
      .Default([&](Operation *other) {
        StringRef name = other->getName().getStringRef();
        if (std::optional<unsigned> opcode = plainOpcode(name)) {
          llvm::Value *in = value(other->getOperand(0));
          llvm::Type *resultType = type(other->getResult(0).getType());
          if (llvm::Instruction::isCast(*opcode))
            return result(b.CreateCast(llvm::Instruction::CastOps(*opcode), in, resultType));
          return result(b.CreateBinOp(llvm::Instruction::BinaryOps(*opcode), in,
                                      value(other->getOperand(1))));
        }
        llvm::Intrinsic::ID id = resultOverloadedIntrinsic(name);
        if (id == llvm::Intrinsic::not_intrinsic || other->getNumResults() != 1)
          return false;
        return result(
            call(b, id, {type(other->getResult(0).getType())}, valuesOf(other->getOperands())));
      });
}

// The NVVM ops the lowering makes whose translation is one intrinsic call:
// thread and block indices (with the range the lowering knows), barriers,
// warp shuffles, rcp.approx and the fp8 and fp4 conversions; any other goes
// to MLIR's translation.
bool Translator::translateNVVM(Operation &op, Builder &b) {
  StringRef name = op.getName().getStringRef();
  if (name == "nvvm.barrier0") {
    if (op.getNumOperands() || !op.getAttrDictionary().empty())
      return false;
    call(b, llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all, {}, {b.getInt32(0)});
    return true;
  }
  if (name.starts_with("nvvm.read.ptx.sreg.")) {
    llvm::Intrinsic::ID id = llvm::Intrinsic::lookupIntrinsicID(("llvm." + name).str());
    if (!id || op.getNumOperands() || op.getNumResults() != 1)
      return false;
    auto *c = llvm::cast<llvm::CallInst>(call(b, id, {}, {}));
    for (NamedAttribute a : op.getAttrs()) {
      auto range = dyn_cast<LLVM::ConstantRangeAttr>(a.getValue());
      if (a.getName() != "range" || !range)
        return false;
      c->addRangeRetAttr(llvm::ConstantRange(range.getLower(), range.getUpper()));
    }
    map(op.getResult(0), c);
    return true;
  }
  if (name == "nvvm.rcp.approx.ftz.f") {
    if (op.getNumOperands() != 1 || op.getNumResults() != 1 || !op.getAttrDictionary().empty())
      return false;
    map(op.getResult(0),
        call(b, llvm::Intrinsic::nvvm_rcp_approx_ftz_f, {}, {value(op.getOperand(0))}));
    return true;
  }
  if (std::optional<nvvm::ConversionIntrinsic> cvt = nvvm::conversionIntrinsic(&op)) {
    llvm::SmallVector<llvm::Value *> args = valuesOf(op.getOperands());
    if (cvt->packOperand)
      args[0] = b.CreateBitCast(args[0], b.getInt16Ty());
    llvm::Value *out = call(b, cvt->id, {}, args);
    if (cvt->truncateResult)
      out = b.CreateTrunc(out, b.getInt8Ty());
    map(op.getResult(0), out);
    return true;
  }
  if (name == "nvvm.shfl.sync") {
    std::optional<llvm::Intrinsic::ID> id = nvvm::shuffleIntrinsic(&op);
    if (!id)
      return false;
    map(op.getResult(0), call(b, *id, {}, valuesOf(op.getOperands())));
    return true;
  }
  return false;
}

} // namespace

std::unique_ptr<llvm::Module> translateDirectly(ModuleOp module, llvm::LLVMContext &context) {
  return Translator(module, context).run();
}

} // namespace megac
