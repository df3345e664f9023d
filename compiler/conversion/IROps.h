//===- IROps.h - megac::quant's and megac::ieee's algorithms on IR -*- C++ -*-===//
//
// Tile/Quant and Tile/Math write their bit-exact algorithms once, over an
// "ops" type; the unit tests run them on plain floats, the lowering on IR
// through these. Internal to compiler/conversion.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "KernelLowering.h"
#include "NVVMBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <string>

namespace megac::lowering {

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
  // Where two arguments of one call build ops, they are built in statements
  // of their own: C++ leaves the order of a call's arguments open, and the IR
  // must not depend on the compiler megac is built with. (The order kept is
  // the one the H200 measured: g++'s, right to left.)
  Value exponent(Value x) {
    Value shift = i32(23);
    return arith::ShRUIOp::create(b, loc, bits(x), shift);
  }
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
  Value top4(Value x) {
    Value shift = i32(28);
    return arith::ShRUIOp::create(b, loc, bits(x), shift);
  }
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
    Value low = bits(lo);
    Value four = i32(4);
    Value high = arith::ShLIOp::create(b, loc, bits(hi), four);
    return arith::AddIOp::create(b, loc, high, low);
  }
  // (word & 0x80008000) * (2^20 + 2^8) >> 32: mul.hi.u32.
  Value bf16PairSigns(Value word) {
    Type i64 = b.getI64Type();
    Value masked = arith::AndIOp::create(b, loc, word, i32(int32_t(0x80008000u)));
    Value factor = arith::ConstantIntOp::create(b, loc, i64, (1 << 20) + (1 << 8));
    Value product =
        arith::MulIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, masked), factor);
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
  Value equals(Value x, float v) {
    Value k = f32(v);
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, k);
  }
  Value select(Value c, Value x, Value y) { return arith::SelectOp::create(b, loc, c, x, y); }
};

// IROps with rcp.approx, for Nvfp4Inverse.h.
struct IRInverseOps : IROps {
  Value rcpApprox(Value x) { return nvvm::rcpApprox(b, loc, x); }
};

} // namespace megac::lowering
