// `ptr + offset` (tile.addptr): a GEP per register, its offset's constant
// terms apart (docs/dialect.md, Lowering).
//
// A register's offset is mostly a term every register of the thread shares
// (program id times a stride, the thread's base index) plus the register's
// own constant (its place in the layout: + 8, + 512, ...). Added in i32 and
// then sign-extended to the GEP's 64 bits, LLVM cannot take the constant out
// (the i32 sum could wrap), so every register got an address of its own:
// 64-bit registers that stay live from the address arithmetic to the loads.
// As (ptr + shared) + constant, the constant becomes the load's immediate
// offset, [%rd + 1024]: gdn_core 80 -> 40 registers a thread, the attention
// merges 56 -> 48, draft_fin_residual 127 -> 80, and a tenth less compile
// time for the merges, whose LLVM passes had all those addresses to reduce.
//
// Exact wherever the offset's i32 value o is at least -2^31 + c (c > 0 the
// constant taken out): o - c then has no wrap either, and (ptr + (o - c)) + c
// is ptr + o. Only a negative offset within c of -2^31 elements differs.
#include "KernelLowering.h"

namespace megac::lowering {

// An integer constant's value, if v is one.
static std::optional<int64_t> constantInt(Value v) {
  if (auto k = v.getDefiningOp<arith::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(k.getValue()))
      return i.getInt();
  return std::nullopt;
}

// offset as rest + c: c the sum of its constant terms through additions and
// multiplications by constants, rest the other terms (a new op where both
// operands of an addition or multiplication had some; null when nothing but
// constants). (offset, 0) when it has no constant term.
std::pair<Value, int64_t> KernelLowering::splitConstantTerms(Value offset) {
  if (std::optional<int64_t> c = constantInt(offset))
    return {Value(), *c};
  if (auto add = offset.getDefiningOp<arith::AddIOp>()) {
    auto [lhs, lc] = splitConstantTerms(add.getLhs());
    auto [rhs, rc] = splitConstantTerms(add.getRhs());
    if (lc == 0 && rc == 0)
      return {offset, 0};
    Value rest = lhs && rhs ? arith::AddIOp::create(b, loc, lhs, rhs).getResult() : (lhs ? lhs : rhs);
    return {rest, lc + rc};
  }
  if (auto mul = offset.getDefiningOp<arith::MulIOp>()) {
    for (auto [factor, other] : {std::pair(mul.getRhs(), mul.getLhs()), std::pair(mul.getLhs(), mul.getRhs())}) {
      std::optional<int64_t> k = constantInt(factor);
      if (!k)
        continue;
      auto [rest, c] = splitConstantTerms(other);
      if (c == 0)
        return {offset, 0};
      return {rest ? arith::MulIOp::create(b, loc, rest, factor).getResult() : Value(), c * *k};
    }
  }
  return {offset, 0};
}

LogicalResult KernelLowering::lowerAddPtr(AddPtrOp op) {
  Type pointee = storageType(cast<PtrType>(getElementTypeOrSelf(op.getPtr().getType())).getPointeeType());
  Type ptrType = LLVM::LLVMPointerType::get(ctx, kGlobal);
  unsigned width = getElementTypeOrSelf(op.getOffset().getType()).getIntOrFloatBitWidth();
  auto gep = [&](Value base, Value index) -> Value {
    return LLVM::GEPOp::create(b, loc, ptrType, pointee, base, ValueRange{index});
  };
  Regs out;
  int64_t n = std::max(numRegsOf(op.getPtr()), numRegsOf(op.getOffset()));
  for (int64_t i = 0; i < n; ++i) {
    Value base = reg(op.getPtr(), i), offset = reg(op.getOffset(), i);
    auto [rest, c] = width >= 32 ? splitConstantTerms(offset) : std::pair(offset, int64_t(0));
    if (c <= 0 || c > INT32_MAX) {
      out.push_back(gep(base, offset));
      continue;
    }
    out.push_back(gep(rest ? gep(base, rest) : base, i32(c)));
  }
  values[op] = out;
  return success();
}

} // namespace megac::lowering
