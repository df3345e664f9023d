#include "DirectToLLVM.h"

#include "mlir/Conversion/ArithCommon/AttrToLLVMConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>

using namespace mlir;

namespace megac {
namespace {

// The LLVM dialect op each arith and math op becomes, operands, results and
// attributes one for one (as MLIR's ArithToLLVM and MathToLLVM patterns make
// them for scalars and one-dimensional vectors).
const llvm::StringMap<StringRef> &twins() {
  static const llvm::StringMap<StringRef> map = {
      {"arith.constant", "llvm.mlir.constant"},
      {"arith.addi", "llvm.add"},
      {"arith.subi", "llvm.sub"},
      {"arith.muli", "llvm.mul"},
      {"arith.divui", "llvm.udiv"},
      {"arith.divsi", "llvm.sdiv"},
      {"arith.remui", "llvm.urem"},
      {"arith.remsi", "llvm.srem"},
      {"arith.andi", "llvm.and"},
      {"arith.ori", "llvm.or"},
      {"arith.xori", "llvm.xor"},
      {"arith.shli", "llvm.shl"},
      {"arith.shrui", "llvm.lshr"},
      {"arith.shrsi", "llvm.ashr"},
      {"arith.maxsi", "llvm.intr.smax"},
      {"arith.minsi", "llvm.intr.smin"},
      {"arith.maxui", "llvm.intr.umax"},
      {"arith.minui", "llvm.intr.umin"},
      {"arith.addf", "llvm.fadd"},
      {"arith.subf", "llvm.fsub"},
      {"arith.mulf", "llvm.fmul"},
      {"arith.divf", "llvm.fdiv"},
      {"arith.negf", "llvm.fneg"},
      {"arith.maximumf", "llvm.intr.maximum"},
      {"arith.minimumf", "llvm.intr.minimum"},
      {"arith.maxnumf", "llvm.intr.maxnum"},
      {"arith.minnumf", "llvm.intr.minnum"},
      {"arith.extui", "llvm.zext"},
      {"arith.extsi", "llvm.sext"},
      {"arith.trunci", "llvm.trunc"},
      {"arith.extf", "llvm.fpext"},
      {"arith.truncf", "llvm.fptrunc"},
      {"arith.sitofp", "llvm.sitofp"},
      {"arith.uitofp", "llvm.uitofp"},
      {"arith.fptosi", "llvm.fptosi"},
      {"arith.fptoui", "llvm.fptoui"},
      {"arith.bitcast", "llvm.bitcast"},
      {"arith.select", "llvm.select"},
      {"arith.cmpi", "llvm.icmp"},
      {"arith.cmpf", "llvm.fcmp"},
      {"math.fma", "llvm.intr.fma"},
      {"math.absf", "llvm.intr.fabs"},
      {"math.copysign", "llvm.intr.copysign"},
      {"math.sqrt", "llvm.intr.sqrt"},
  };
  return map;
}

// Scalars and one-dimensional vectors of LLVM types: what the patterns
// rewrite one for one (a vector of more dimensions is unrolled there).
bool oneForOne(Type t) {
  if (auto v = dyn_cast<VectorType>(t))
    return v.getRank() == 1 && !v.isScalable() && LLVM::isCompatibleType(v);
  return LLVM::isCompatibleType(t);
}

// The twin's attributes and properties for `op`'s, converted as MLIR's
// patterns convert them; nullopt for an attribute not known here (then the
// dialect conversion takes the op). The value of a constant and the
// predicate of a comparison: builtTwin.
struct TwinAttrs {
  NamedAttrList attrs;
  DictionaryAttr properties;
};

// What one rewrite of a module looks up once: each twin's name and the
// attribute names the twins use (building a name from its string takes a
// uniquing lookup, which the rewrite would otherwise repeat for every op).
struct Names {
  explicit Names(MLIRContext *ctx)
      : fastmathFlags(StringAttr::get(ctx, "fastmathFlags")), overflowFlags(StringAttr::get(ctx, "overflowFlags")) {
    for (const auto &twin : twins())
      twinOf.try_emplace(OperationName(twin.getKey(), ctx), OperationName(twin.getValue(), ctx));
  }
  llvm::DenseMap<OperationName, OperationName> twinOf;
  StringAttr fastmathFlags, overflowFlags;
};

std::optional<TwinAttrs> twinAttrs(Operation *op, const Names &names) {
  MLIRContext *ctx = op->getContext();
  TwinAttrs out;
  // Through the ops' accessors: Operation::getAttrs() would build every
  // inherent attribute's name again.
  if (!op->getDiscardableAttrDictionary().empty())
    return std::nullopt;
  bool exact = llvm::TypeSwitch<Operation *, bool>(op)
                   .Case<arith::DivSIOp, arith::DivUIOp, arith::ShRSIOp, arith::ShRUIOp>(
                       [](auto o) { return bool(o.getIsExact()); })
                   .Default(false);
  if (exact)
    return std::nullopt;
  if (auto rounding = dyn_cast<arith::ArithRoundingModeInterface>(op); rounding && rounding.getRoundingModeAttr())
    return std::nullopt;
  // Flags left at their defaults are left out, as the LLVM dialect prints
  // and translates them.
  if (auto fastmath = dyn_cast<arith::ArithFastMathInterface>(op))
    if (arith::FastMathFlagsAttr flags = fastmath.getFastMathFlagsAttr();
        flags && flags.getValue() != arith::FastMathFlags::none)
      out.attrs.set(names.fastmathFlags, arith::convertArithFastMathAttrToLLVM(flags));
  if (auto overflow = dyn_cast<arith::ArithIntegerOverflowFlagsInterface>(op))
    if (arith::IntegerOverflowFlagsAttr flags = overflow.getOverflowAttr();
        flags && flags.getValue() != arith::IntegerOverflowFlags::none) {
      auto llvmFlags =
          LLVM::IntegerOverflowFlagsAttr::get(ctx, arith::convertArithOverflowFlagsToLLVM(flags.getValue()));
      out.properties = DictionaryAttr::get(ctx, {NamedAttribute(names.overflowFlags, llvmFlags)});
    }
  return out;
}

// The twin of a constant or a comparison, by its builder (which sets the
// value or predicate without an attribute dictionary); null for other ops
// and for the predicates not spelled alike (arith's "false" and "true" are
// LLVM's "_false" and "_true": left to the conversion).
Operation *builtTwin(Operation *op, OpBuilder &b, const TwinAttrs &attrs, const Names &names) {
  Location loc = op->getLoc();
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return LLVM::ConstantOp::create(b, loc, constant.getType(), constant.getValue());
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    auto p = LLVM::symbolizeICmpPredicate(arith::stringifyCmpIPredicate(cmp.getPredicate()));
    return p ? LLVM::ICmpOp::create(b, loc, cmp.getType(), *p, cmp.getLhs(), cmp.getRhs()) : nullptr;
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    auto p = LLVM::symbolizeFCmpPredicate(arith::stringifyCmpFPredicate(cmp.getPredicate()));
    if (!p)
      return nullptr;
    auto fcmp = LLVM::FCmpOp::create(b, loc, cmp.getType(), *p, cmp.getLhs(), cmp.getRhs());
    if (Attribute flags = attrs.attrs.get(names.fastmathFlags))
      fcmp.setFastmathFlagsAttr(cast<LLVM::FastmathFlagsAttr>(flags));
    return fcmp;
  }
  return nullptr;
}

// `op` replaced by its twin; false where it is left.
bool rewriteOp(Operation *op, OpBuilder &b, const Names &names) {
  if (auto br = dyn_cast<cf::BranchOp>(op)) {
    b.setInsertionPoint(op);
    LLVM::BrOp::create(b, op->getLoc(), br.getDestOperands(), br.getDest());
    op->erase();
    return true;
  }
  if (auto cb = dyn_cast<cf::CondBranchOp>(op)) {
    if (cb.getBranchWeights())
      return false;
    b.setInsertionPoint(op);
    LLVM::CondBrOp::create(b, op->getLoc(), cb.getCondition(), cb.getTrueDest(), cb.getTrueDestOperands(),
                           cb.getFalseDest(), cb.getFalseDestOperands());
    op->erase();
    return true;
  }
  auto twin = names.twinOf.find(op->getName());
  if (twin == names.twinOf.end() || op->getNumRegions() || op->getNumSuccessors())
    return false;
  for (Type t : op->getOperandTypes())
    if (!oneForOne(t))
      return false;
  for (Type t : op->getResultTypes())
    if (!oneForOne(t))
      return false;
  std::optional<TwinAttrs> attrs = twinAttrs(op, names);
  if (!attrs)
    return false;
  b.setInsertionPoint(op);
  Operation *replacement = nullptr;
  if (isa<arith::ConstantOp, arith::CmpIOp, arith::CmpFOp>(op)) {
    replacement = builtTwin(op, b, *attrs, names);
    if (!replacement)
      return false;
  } else {
    OperationState state(op->getLoc(), twin->second, op->getOperands(), op->getResultTypes(),
                         attrs->attrs.getAttrs());
    if (attrs->properties)
      state.propertiesAttr = attrs->properties;
    replacement = b.create(state);
  }
  op->replaceAllUsesWith(replacement->getResults());
  op->erase();
  return true;
}

bool isLeftForConversion(Operation *op) {
  return isa<arith::ArithDialect, math::MathDialect, cf::ControlFlowDialect>(op->getDialect());
}

} // namespace

bool rewriteToLLVMDirectly(ModuleOp module) {
  SmallVector<Operation *> ops;
  module.walk([&](Operation *op) {
    if (isLeftForConversion(op))
      ops.push_back(op);
  });
  Names names(module.getContext());
  OpBuilder b(module.getContext());
  bool left = false;
  for (Operation *op : ops) {
    // Folded first, as the dialect conversion folds an op before it rewrites
    // it (x * 1, constants' arithmetic): the same IR, and the same size as O3
    // gets it, which decides the large functions' pass skips.
    SmallVector<Value> folded;
    SmallVector<Operation *> constants;
    b.setInsertionPoint(op);
    if (!isa<arith::ConstantOp>(op) && succeeded(b.tryFold(op, folded, &constants)) && !folded.empty()) {
      op->replaceAllUsesWith(folded);
      op->erase();
      for (Operation *c : constants)
        left |= !rewriteOp(c, b, names);
      continue;
    }
    left |= !rewriteOp(op, b, names);
  }
  return left;
}

} // namespace megac
