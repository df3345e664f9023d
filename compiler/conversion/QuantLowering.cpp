// FP8 / FP4 / E8M0 conversions: tile.quantize, tile.dequantize and the narrow
// casts, with E2M1 rounding in software where the target has no instruction
// (docs/dialect.md, "Quantization").
#include "Bf16Words.h"
#include "IROps.h"
#include "KernelLowering.h"

#include "Tile/Quant/E2M1.h"
#include "Tile/Quant/Fp8Quotient.h"
#include "Tile/Quant/Nvfp4Inverse.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace megac::lowering {

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
  Value zero = arith::ConstantIntOp::create(b, loc, i8, 0);
  Value eight = arith::ConstantIntOp::create(b, loc, i8, 8);
  Value sign = arith::AndIOp::create(b, loc, nibble, eight);
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, sign, zero);
  return arith::SelectOp::create(b, loc, negative, arith::NegFOp::create(b, loc, mag), mag);
}

// The values a scale covers (16 for nvfp4, 32 for the MX schemes), after
// checking that each thread holds them contiguously in `type`'s layout, as
// tile-assign-layouts makes it. FP8 schemes never get here: tile-expand-fp8
// rewrote them.
static FailureOr<int64_t> scaleBlock(Operation *op, StringRef scheme, RankedTensorType type,
                                     StringRef what) {
  if (fp8::isScheme(scheme))
    return op->emitError("internal: FP8 quantization is expanded by tile-expand-fp8");
  auto d = distOf(op, type);
  if (failed(d))
    return failure();
  int64_t block = scheme == "nvfp4" ? 16 : 32;
  if (d->sliceDim >= 0 || d->blocked.sizePerThread[d->blocked.order[0]] != block)
    return op->emitError("internal: ")
           << what << " needs " << block
           << " contiguous elements per thread: run tile-assign-layouts";
  return block;
}

LogicalResult KernelLowering::lowerQuantize(QuantizeOp op) {
  FailureOr<int64_t> scaled = scaleBlock(op, op.getScheme(), op.getSrc().getType(), "quantize");
  if (failed(scaled))
    return failure();
  bool nv = op.getScheme() == "nvfp4";
  int64_t block = *scaled;
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
      Value odd = LLVM::ExtractElementOp::create(b, loc, acc, i32c(1));
      Value even = LLVM::ExtractElementOp::create(b, loc, acc, i32c(0));
      Value widest = arith::MaximumFOp::create(b, loc, even, odd);
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
      Value sixth = f32c(1.0f / 6.0f);
      Value t = quant::fp8Quotient(ops, prod, f32c(6.0f), sixth);
      Value pair = nvvm::f32x2ToF8x2(b, loc, t, t, b.getType<Float8E4M3FNType>());
      blk.scaleBits = arith::TruncIOp::create(b, loc, i8, pair);
      blk.sf = decodeE4M3(blk.scaleBits);
    } else {
      // shared exponent = floor(log2(amax)) - 2 (E2M1's largest exponent),
      // clamped to E8M0's range; values are x * 2^-shared, exactly.
      Value bits = arith::BitcastOp::create(b, loc, i32t, amax);
      Value byte = i32c(255);
      Value e = arith::AndIOp::create(b, loc, arith::ShRUIOp::create(b, loc, bits, i32c(23)), byte);
      Value shared = arith::SubIOp::create(b, loc, e, i32c(127 + 2));
      shared = arith::MaxSIOp::create(b, loc, shared, i32c(-127));
      shared = arith::MinSIOp::create(b, loc, shared, i32c(126));
      blk.scaleBits = arith::TruncIOp::create(b, loc, i8, arith::AddIOp::create(b, loc, shared, i32c(127)));
      Value mantissaBits = i32c(23);
      Value inverse = arith::ShLIOp::create(b, loc, arith::SubIOp::create(b, loc, i32c(127), shared),
                                            mantissaBits);
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
  FailureOr<int64_t> scaled =
      scaleBlock(op, op.getScheme(), op.getResult().getType(), "dequantize");
  if (failed(scaled))
    return failure();
  bool nv = op.getScheme() == "nvfp4";
  int64_t block = *scaled;
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
      if (dstElem.isF16()) {
        out.push_back(h);
        continue;
      }
      Value v = arith::ExtFOp::create(b, loc, b.getF32Type(), h);
      if (dstElem.isF64())
        v = arith::ExtFOp::create(b, loc, dstElem, v);
      else if (dstElem.isBF16()) // no wider than f16: through f32, exact for every FP8 value
        v = arith::TruncFOp::create(b, loc, dstElem, v);
      out.push_back(v);
    }
  }
  values[op->getResult(0)] = out;
  return success();
}

} // namespace megac::lowering
