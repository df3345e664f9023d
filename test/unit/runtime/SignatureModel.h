//===- SignatureModel.h - The launch contract, stated a second time -*- C++ -*-===//
//
// What KernelSignature::prepare must do with a set of arguments, written apart
// from signature.cpp and as plainly as docs/runtime.md states it: whether the
// arguments are refused and, when they are not, the grid, the variant, the
// block and the bytes of every packed parameter. The property test
// (SignaturePropertyTest.cpp) and the runtime fuzzer (fuzz/runtime_fuzzer.cpp)
// generate arguments, ask both, and fail on any disagreement.
//
// Expressions are evaluated with Expr, which has tests of its own; the rest
// (binding, inference, dtypes, ranges, contiguity, 32-bit offsets, the grid,
// the variant, the accesses' bounds, packing) is restated here.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_TEST_RUNTIME_SIGNATUREMODEL_H
#define MEGAC_TEST_RUNTIME_SIGNATUREMODEL_H

#include "half.h"
#include "megac/runtime/error.h"
#include "megac/runtime/signature.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace megac::rt::model {

struct Outcome {
  bool accepted = false;
  std::string refusal; ///< the model's reason (not compared with the runtime's words)
  uint32_t grid[3] = {0, 0, 0};
  uint32_t block = 0;
  int variant = -1;
  /// Per parameter, the bytes cuLaunchKernel reads (dtypeSize of a scalar,
  /// 8 for a pointer).
  std::vector<std::string> packed;
};

class Model {
public:
  explicit Model(const KernelInfo &kernel) : k(kernel) {
    const size_t n = k.params.size();
    names.assign(n + 7, "");
    for (size_t i = 0; i < n; ++i)
      if (k.params[i].kind == ParamKind::Scalar && isInteger(k.params[i].dtype))
        names[i] = k.params[i].name;
    gridNames = names;
    gridNames[n + 1] = "sms";
    whenNames = gridNames;
    whenNames[n] = "ctas";
    whenNames[n + 2] = "early";
    whenNames[n + 6] = "l2_mb";
    // Bounds read the scalars and the launch grid.
    boundNames = names;
    const char *axes[3] = {"grid_x", "grid_y", "grid_z"};
    for (int d = 0; d < 3; ++d)
      boundNames[n + 3 + size_t(d)] = axes[d];
    // An integer scalar is inferable when some tensor's dimension is exactly
    // its name; the first such tensor and dimension is where it comes from.
    source.assign(n, {-1, -1});
    for (size_t i = 0; i < n; ++i) {
      if (names[i].empty())
        continue;
      for (size_t t = 0; t < n && source[i].first < 0; ++t)
        for (size_t d = 0; d < k.params[t].shape.size(); ++d)
          if (k.params[t].kind == ParamKind::Tensor && k.params[t].shape[d] != "_" &&
              Expr::parse(k.params[t].shape[d], names).singleName() == int(i)) {
            source[i] = {int(t), int(d)};
            break;
          }
      inferable += source[i].first >= 0;
    }
  }

  const KernelInfo &kernel() const { return k; }
  /// Whether integer scalar `i` may be left out (or given as Arg::infer()).
  bool isInferable(size_t i) const { return source[i].first >= 0; }
  size_t numInferable() const { return inferable; }

  /// The value of a shape, grid or condition expression, or nullopt where it
  /// fails to evaluate (division by zero, overflow).
  std::optional<int64_t> eval(const std::string &text, const std::vector<std::string> &nameSet,
                              const int64_t *env) const {
    try {
      return Expr::parse(text, nameSet).eval(env);
    } catch (const ExprError &) {
      return std::nullopt;
    }
  }
  const std::vector<std::string> &shapeNames() const { return names; }

  Outcome predict(const std::vector<Arg> &args, const DeviceFacts &device, const Grid *grid,
                  bool early) const {
    Outcome o;
    auto refuse = [&](std::string why) {
      o.refusal = std::move(why);
      return o;
    };
    const size_t n = k.params.size();
    const bool omitting = inferable > 0 && args.size() == n - inferable;
    if (args.size() != n && !omitting)
      return refuse("argument count");

    // Which argument stands for each parameter (-1: inferred).
    std::vector<int> argOf(n, -1);
    for (size_t i = 0, next = 0; i < n; ++i)
      if (!(omitting && isInferable(i)))
        argOf[i] = int(next++);

    std::vector<int64_t> env(n + 7, 0);
    for (size_t i = 0; i < n; ++i) {
      const ParamInfo &p = k.params[i];
      if (argOf[i] < 0)
        continue;
      const Arg &a = args[size_t(argOf[i])];
      if (p.kind == ParamKind::Tensor) {
        if (a.kind != Arg::Kind::Tensor || a.dtype != p.dtype || a.ndim < 0 ||
            size_t(a.ndim) != p.shape.size())
          return refuse(p.name + ": kind, dtype or rank");
        if (a.ptr % uint64_t(p.align) != 0)
          return refuse(p.name + ": alignment");
        std::optional<int64_t> numel = elements(a);
        if (!numel)
          return refuse(p.name + ": negative or overflowing shape");
        if (*numel > 0 && a.ptr == 0)
          return refuse(p.name + ": null");
        if (*numel > INT32_MAX && !k.offsets64)
          return refuse(p.name + ": 32-bit offsets");
        if (!contiguous(a, *numel))
          return refuse(p.name + ": not contiguous");
        continue;
      }
      if (a.kind == Arg::Kind::Infer) {
        if (!isInferable(i))
          return refuse(p.name + ": cannot be inferred");
        argOf[i] = -1;
        continue;
      }
      if (a.kind != Arg::Kind::Scalar || isInteger(a.dtype) != isInteger(p.dtype))
        return refuse(p.name + ": kind or dtype");
      if (isInteger(p.dtype)) {
        if (!inRange(p.dtype, a.intValue))
          return refuse(p.name + ": out of range");
        env[i] = a.intValue;
      } else if (overflows(p.dtype, a.floatValue)) {
        return refuse(p.name + ": a finite value past " + std::string(dtypeName(p.dtype)) + "'s range");
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const ParamInfo &p = k.params[i];
      if (names[i].empty())
        continue;
      if (argOf[i] < 0) {
        auto [t, d] = source[i];
        env[i] = args[size_t(argOf[size_t(t)])].shape[d];
        if (!inRange(p.dtype, env[i]))
          return refuse(p.name + ": inferred value out of range");
      }
      if (env[i] % p.multipleOf != 0)
        return refuse(p.name + ": not a multiple");
    }
    for (size_t i = 0; i < n; ++i) {
      const ParamInfo &p = k.params[i];
      if (p.kind != ParamKind::Tensor)
        continue;
      for (size_t d = 0; d < p.shape.size(); ++d) {
        if (p.shape[d] == "_")
          continue;
        std::optional<int64_t> want = eval(p.shape[d], names, env.data());
        if (!want || *want != args[size_t(argOf[i])].shape[d])
          return refuse(p.name + ": shape");
      }
    }

    env[n + 1] = device.sms;
    int64_t g[3];
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> v = grid ? std::optional<int64_t>((&grid->x)[d])
                                      : eval(k.grid[size_t(d)], gridNames, env.data());
      if (!v)
        return refuse("grid expression");
      g[d] = *v;
    }
    int64_t ctas;
    if (__builtin_mul_overflow(g[0], g[1], &ctas) || __builtin_mul_overflow(ctas, g[2], &ctas))
      return refuse("grid overflows");
    env[n] = ctas;
    env[n + 2] = early ? 1 : 0;
    env[n + 6] = device.l2Mb;
    for (size_t v = 0; v < k.variants.size() && o.variant < 0; ++v) {
      if (k.variants[v].when.empty()) {
        o.variant = int(v);
        break;
      }
      std::optional<int64_t> holds = eval(k.variants[v].when, whenNames, env.data());
      if (!holds)
        return refuse("condition expression");
      if (*holds != 0)
        o.variant = int(v);
    }
    if (o.variant < 0)
      return refuse("no variant");
    const VariantInfo &chosen = k.variants[size_t(o.variant)];
    if (!grid && !chosen.grid.empty())
      for (int d = 0; d < 3; ++d) {
        std::optional<int64_t> v = eval(chosen.grid[size_t(d)], gridNames, env.data());
        if (!v)
          return refuse("variant grid expression");
        g[d] = *v;
      }
    const int64_t limit[3] = {INT32_MAX, 65535, 65535};
    for (int d = 0; d < 3; ++d) {
      if (g[d] < 0 || g[d] > limit[d])
        return refuse("grid out of range");
      o.grid[d] = uint32_t(g[d]);
    }
    o.block = uint32_t(chosen.numWarps ? chosen.numWarps : k.numWarps) * 32;

    // An access of the variant that would leave its tensor (a launch that runs).
    if (o.grid[0] && o.grid[1] && o.grid[2]) {
      for (int d = 0; d < 3; ++d)
        env[n + 3 + size_t(d)] = o.grid[d];
      for (const AccessBoundInfo &b : chosen.bounds) {
        std::optional<int64_t> holds = b.when.empty() ? 1 : eval(b.when, boundNames, env.data());
        if (holds == 0)
          continue;
        std::optional<int64_t> lo = eval(b.min, boundNames, env.data()),
                               hi = eval(b.max, boundNames, env.data());
        if (!holds || !lo || !hi)
          return refuse("bound expression");
        size_t t = 0;
        while (k.params[t].name != b.param)
          ++t;
        if (*lo < 0 || *hi >= *elements(args[size_t(argOf[t])]))
          return refuse("out of bounds");
      }
    }

    for (size_t i = 0; i < n; ++i) {
      const ParamInfo &p = k.params[i];
      const Arg *a = argOf[i] >= 0 ? &args[size_t(argOf[i])] : nullptr;
      if (p.kind == ParamKind::Tensor) {
        o.packed.push_back(bytes(a->ptr, 8));
      } else if (isInteger(p.dtype)) {
        o.packed.push_back(bytes(uint64_t(env[i]), dtypeSize(p.dtype)));
      } else {
        double f = a ? a->floatValue : 0;
        if (p.dtype == DType::f64) {
          o.packed.push_back(bytes(f));
        } else if (p.dtype == DType::f32) {
          o.packed.push_back(bytes(float(f)));
        } else {
          uint16_t bits = p.dtype == DType::f16 ? toF16Bits(f) : toBF16Bits(f);
          o.packed.push_back(bytes(uint64_t(bits), 2));
        }
      }
    }
    o.accepted = true;
    return o;
  }

  /// The bytes prepare() packed for each parameter.
  static std::vector<std::string> packedBytes(const KernelInfo &k, const LaunchConfig &c) {
    std::vector<std::string> out;
    for (size_t i = 0; i < k.params.size(); ++i) {
      size_t size = k.params[i].kind == ParamKind::Tensor ? 8 : dtypeSize(k.params[i].dtype);
      out.emplace_back(static_cast<const char *>(c.params[i]), size);
    }
    return out;
  }

  /// The values an integer scalar of dtype `t` may take.
  static std::pair<int64_t, int64_t> bounds(DType t) {
    switch (t) {
    case DType::i1: return {0, 1};
    case DType::i8: return {INT8_MIN, INT8_MAX};
    case DType::u8: return {0, UINT8_MAX};
    case DType::i16: return {INT16_MIN, INT16_MAX};
    case DType::u16: return {0, UINT16_MAX};
    case DType::i32: return {INT32_MIN, INT32_MAX};
    case DType::u32: return {0, UINT32_MAX};
    case DType::u64: return {0, INT64_MAX};
    default: return {INT64_MIN, INT64_MAX};
    }
  }

  /// Whether a finite `f` becomes infinite as a scalar of dtype `t`
  /// (rounded to nearest even, through f32 for the 16-bit types).
  static bool overflows(DType t, double f) {
    if (t == DType::f64 || !std::isfinite(f))
      return false;
    // Past FLT_MAX, rounding reaches infinity from the midpoint between
    // FLT_MAX and 2^128 on (FLT_MAX's last bit is odd, so the tie goes up).
    if (std::fabs(f) >= double(FLT_MAX) + std::ldexp(1.0, 103))
      return true;
    if (t == DType::f32)
      return false;
    f = std::fmin(std::fabs(f), double(FLT_MAX));
    uint16_t bits = t == DType::f16 ? toF16Bits(f) : toBF16Bits(f);
    uint16_t infinity = t == DType::f16 ? 0x7C00 : 0x7F80;
    return bits == infinity;
  }

private:
  static bool inRange(DType t, int64_t v) {
    auto [lo, hi] = bounds(t);
    return v >= lo && v <= hi;
  }

  /// The element count, or nullopt for a negative dimension or a count past
  /// int64 (which no tensor has). A zero dimension makes it 0 whatever the rest.
  static std::optional<int64_t> elements(const Arg &a) {
    bool zero = false;
    for (int d = 0; d < a.ndim; ++d) {
      if (a.shape[d] < 0)
        return std::nullopt;
      zero |= a.shape[d] == 0;
    }
    if (zero)
      return 0;
    int64_t numel = 1;
    for (int d = 0; d < a.ndim; ++d)
      if (__builtin_mul_overflow(numel, a.shape[d], &numel))
        return std::nullopt;
    return numel;
  }

  /// Row-major, with PyTorch's rules: a dimension of size 1 may have any
  /// stride, and a tensor without elements is contiguous.
  static bool contiguous(const Arg &a, int64_t numel) {
    if (!a.hasStrides || numel == 0)
      return true;
    int64_t expected = 1;
    for (int d = a.ndim - 1; d >= 0; --d) {
      if (a.shape[d] != 1 && a.strides[d] != expected)
        return false;
      expected *= a.shape[d]; // no overflow: the product is numel's suffix
    }
    return true;
  }

  template <typename T> static std::string bytes(T v) {
    return std::string(reinterpret_cast<const char *>(&v), sizeof v);
  }
  static std::string bytes(uint64_t v, size_t size) {
    return std::string(reinterpret_cast<const char *>(&v), size); // little-endian
  }

  const KernelInfo &k;
  std::vector<std::string> names, gridNames, whenNames, boundNames;
  std::vector<std::pair<int, int>> source;
  size_t inferable = 0;
};

} // namespace megac::rt::model

#endif // MEGAC_TEST_RUNTIME_SIGNATUREMODEL_H
