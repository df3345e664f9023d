//===- SemaQuant.cpp - Typing the quantization builtins -------------------===//
//
// quantize/dequantize and the scales of block-scaled FP4 (NVFP4, MXFP4) and
// of FP8 (per tensor and per group of 128): each names the call and what it
// expected when its operands do not fit.
//
//===----------------------------------------------------------------------===//
#include "frontend/Builtins.h"
#include "frontend/Diagnostics.h"
#include "frontend/Sema.h"

namespace megac::fe {

// Block-scaled FP4: values are E2M1 packed two per byte (the even element in
// the low nibble), one scale per block of 16 (NVFP4, E4M3 scales, with an f32
// global scale) or 32 (MXFP4, E8M0 scales) along the last dimension.
static int64_t fp4Block(Builtin b) {
  return b == Builtin::QuantizeNvfp4 || b == Builtin::Nvfp4Scales ||
                 b == Builtin::DequantizeNvfp4
             ? 16
             : 32;
}

static bool isNvfp4(Builtin b) { return fp4Block(b) == 16; }

// A scale operand: an f32 scalar (an untyped literal becomes one).
bool Sema::checkScaleArg(ExprPtr &scale, const char *what) {
  if (scale->type.isUntyped())
    adapt(scale, {ScalarKind::F32, false});
  if (scale->type.isScalar() && scale->type.elem == ElementType{ScalarKind::F32, false})
    return true;
  error(scale->range, std::string(what) + " must be an f32 scalar, got " + scale->type.str());
  return false;
}

// The input of a quantization: a tile of f32, bf16 or f16 whose last
// dimension holds whole blocks of `block` elements.
bool Sema::checkQuantizeInput(CallExpr &c, ExprPtr &x, int64_t block) {
  if (!x->type.isTile()) {
    error(x->range, quoted(c.callee) + " quantizes a tile, got the scalar " + x->type.str(),
          "quantize a tile of whole blocks, e.g. load(x + arange(0, " +
              std::to_string(block > 1 ? block : 16) + "))");
    return false;
  }
  if (!x->type.isFloatLike() || x->type.isUntyped()) {
    error(x->range, quoted(c.callee) + " quantizes a tile of f32, bf16 or f16, got " +
                        x->type.str());
    return false;
  }
  return checkBlocks(c, x, block);
}

bool Sema::checkBlocks(CallExpr &c, ExprPtr &x, int64_t block) {
  if (x->type.shape.back() % block == 0)
    return true;
  error(x->range,
        quoted(c.callee) + " needs the last dimension to be a multiple of " +
            std::to_string(block) + ", got " + shapeStr(x->type.shape),
        "each block of " + std::to_string(block) +
            " consecutive elements shares one scale");
  return false;
}

void Sema::checkQuantize(CallExpr &c) {
  bool nv = isNvfp4(c.builtin);
  if (!(nv ? bindAndCheck(c, {"x", "gs"}, 2) : bindAndCheck(c, {"x"}, 1)))
    return;
  ExprPtr &x = c.args[0].value;
  int64_t block = fp4Block(c.builtin);
  if (!checkQuantizeInput(c, x, block))
    return;
  if (nv && !checkScaleArg(c.args[1].value, "the global scale"))
    return;
  std::vector<int64_t> shape = x->type.shape;
  int64_t k = shape.back();
  bool values = c.builtin == Builtin::QuantizeNvfp4 || c.builtin == Builtin::QuantizeMxfp4;
  shape.back() = values ? k / 2 : k / block;
  ScalarKind elem = values ? ScalarKind::F4E2M1X2 : nv ? ScalarKind::F8E4M3 : ScalarKind::E8M0;
  c.type = Type::value({elem, false}, shape);
}

void Sema::checkDequantize(CallExpr &c) {
  bool nv = isNvfp4(c.builtin);
  if (!(nv ? bindAndCheck(c, {"q", "sf", "gs"}, 3) : bindAndCheck(c, {"q", "sf"}, 2)))
    return;
  ExprPtr &q = c.args[0].value;
  ExprPtr &sf = c.args[1].value;
  int64_t block = fp4Block(c.builtin);
  ScalarKind scaleKind = nv ? ScalarKind::F8E4M3 : ScalarKind::E8M0;
  if (!q->type.isTile() || q->type.elem != ElementType{ScalarKind::F4E2M1X2, false}) {
    error(q->range, quoted(c.callee) + " expects packed f4e2m1x2 values, got " + q->type.str());
    return;
  }
  std::vector<int64_t> shape = q->type.shape;
  shape.back() *= 2;
  std::vector<int64_t> scaleShape = shape;
  scaleShape.back() /= block;
  if (!sf->type.isTile() || sf->type.elem != ElementType{scaleKind, false} ||
      sf->type.shape != scaleShape) {
    error(sf->range,
          "the scales must be " + Type::value({scaleKind, false}, scaleShape).str() +
              " for values " + q->type.str() + ", got " + sf->type.str(),
          "one scale per " + std::to_string(block) + " values");
    return;
  }
  if (nv && !checkScaleArg(c.args[2].value, "the global scale"))
    return;
  c.type = Type::value({ScalarKind::F32, false}, shape);
}

} // namespace megac::fe

namespace megac::fe {

// FP8: static per-tensor (quantize_fp8 divides by a given dequantization
// scale) and per-token groups of 128 along the last dimension (the scales
// come from each group's absolute maximum).
static constexpr int64_t kFp8Group = 128;

static bool isFp8Group(Builtin b) {
  return b == Builtin::QuantizeFp8Group || b == Builtin::Fp8GroupScales ||
         b == Builtin::DequantizeFp8Group;
}

static bool isFp8(const ElementType &e) {
  return !e.isPointer && (e.scalar == ScalarKind::F8E4M3 || e.scalar == ScalarKind::F8E5M2);
}

static const char kFp8Hint[] = "FP8 is f8e4m3 (finite to 448) or f8e5m2 (finite to 57344)";

// A type argument that must be one of `allowed` ("f8e4m3 or f8e5m2").
std::optional<ScalarKind> Sema::typeArgAmong(CallExpr &c, ExprPtr &arg,
                                             std::vector<ScalarKind> allowed,
                                             const char *what, const char *hint) {
  std::string names;
  for (size_t i = 0; i < allowed.size(); ++i)
    names += (i ? " or " : "") + std::string(scalarKindName(allowed[i]));
  auto *t = dyn_cast<TypeArgExpr>(arg.get());
  if (!t) {
    error(arg->range, quoted(c.callee) + " expects a type here: " + names, hint);
    return std::nullopt;
  }
  if (!resolveTypeRef(t->typeRef))
    return std::nullopt;
  const TypeRef &ref = t->typeRef;
  if (ref.tileDims.empty() && !ref.elem.isPointer)
    for (ScalarKind k : allowed)
      if (ref.elem.scalar == k)
        return k;
  error(arg->range, quoted(c.callee) + " " + what + " " + names + ", got " + ref.resolved.str(),
        hint);
  return std::nullopt;
}

// A tile wider than one group is regrouped into one more dimension
// ([.., K] -> [.., K/128, 128]), and tiles have at most three.
bool Sema::checkGroupRank(CallExpr &c, ExprPtr &x) {
  if (x->type.rank() < 3 || x->type.shape.back() == kFp8Group)
    return true;
  error(x->range,
        quoted(c.callee) + " needs a 1-D or 2-D tile when a row holds several groups of " +
            std::to_string(kFp8Group) + ", got " + shapeStr(x->type.shape),
        "use [rows, K], or one group per row: [.., 128]");
  return false;
}

// quantize_fp8(x, scale, T), quantize_fp8_group(x, T, ue8m0 = false),
// fp8_group_scales(x, T, ue8m0 = false).
void Sema::checkQuantizeFp8(CallExpr &c) {
  bool group = isFp8Group(c.builtin);
  if (!(group ? bindArgs(c, {"x", "dtype", "ue8m0"}, 2)
              : bindArgs(c, {"x", "scale", "dtype"}, 3)))
    return;
  ExprPtr &x = c.args[0].value;
  checkExpr(x);
  if (x->type.isInvalid() || !checkQuantizeInput(c, x, group ? kFp8Group : 1))
    return;
  std::optional<ScalarKind> fp8 =
      typeArgAmong(c, c.args[group ? 1 : 2].value, {ScalarKind::F8E4M3, ScalarKind::F8E5M2},
                   "quantizes to", kFp8Hint);
  if (!fp8)
    return;
  if (!group) {
    ExprPtr &scale = c.args[1].value;
    checkExpr(scale);
    if (scale->type.isInvalid() || !checkScaleArg(scale, "the scale"))
      return;
    c.args.resize(2);
  } else {
    if (!checkGroupRank(c, x))
      return;
    if (ExprPtr &u = c.args[2].value) {
      std::optional<bool> ue8m0 = constBool(u, "ue8m0");
      if (!ue8m0)
        return;
      c.ue8m0 = *ue8m0;
    }
    c.args.resize(1);
  }
  c.fp8 = *fp8;
  c.type = x->type.withElem({*fp8, false});
  if (c.builtin == Builtin::Fp8GroupScales) {
    std::vector<int64_t> shape = x->type.shape;
    shape.back() /= kFp8Group;
    c.type = Type::value({ScalarKind::F32, false}, shape);
  }
}

// dequantize_fp8(q, scale, T = f32), dequantize_fp8_group(q, s, T = f32).
void Sema::checkDequantizeFp8(CallExpr &c) {
  bool group = isFp8Group(c.builtin);
  if (!bindArgs(c, {"q", group ? "s" : "scale", "dtype"}, 2))
    return;
  ExprPtr &q = c.args[0].value;
  ExprPtr &scale = c.args[1].value;
  checkExpr(q);
  checkExpr(scale);
  if (q->type.isInvalid() || scale->type.isInvalid())
    return;
  ScalarKind to = ScalarKind::F32;
  if (ExprPtr &dtype = c.args[2].value) {
    std::optional<ScalarKind> k = typeArgAmong(c, dtype, {ScalarKind::F32, ScalarKind::BF16},
                                               "dequantizes to", "");
    if (!k)
      return;
    to = *k;
  }
  if (!q->type.isTile() || !isFp8(q->type.elem)) {
    error(q->range, quoted(c.callee) + " expects a tile of f8e4m3 or f8e5m2 values, got " +
                        q->type.str(), kFp8Hint);
    return;
  }
  if (!group && !checkScaleArg(scale, "the scale"))
    return;
  if (group) {
    if (!checkBlocks(c, q, kFp8Group) || !checkGroupRank(c, q))
      return;
    std::vector<int64_t> shape = q->type.shape;
    shape.back() /= kFp8Group;
    Type want = Type::value({ScalarKind::F32, false}, shape);
    if (!scale->type.isTile() || scale->type.elem != want.elem || scale->type.shape != shape) {
      error(scale->range,
            "the scales must be " + want.str() + " for values " + q->type.str() + ", got " +
                scale->type.str(),
            "one f32 scale per 128 values, as fp8_group_scales gives them");
      return;
    }
  }
  c.args.resize(2);
  c.type = q->type.withElem({to, false});
}

} // namespace megac::fe
