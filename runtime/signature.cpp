//===- signature.cpp - A manifest kernel compiled for fast launches -------===//
//
// The common path of prepare() touches only fixed-size arrays; strings are
// built only on the way to an exception.
//
//===----------------------------------------------------------------------===//
#include "megac/runtime/signature.h"

#include "half.h"
#include "megac/runtime/error.h"

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>

namespace megac::rt {

namespace {

std::string dims(const int64_t *values, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

/// The range of values a scalar of integer dtype `t` can hold.
void integerRange(DType t, int64_t &lo, int64_t &hi) {
  switch (t) {
  case DType::i1:
    lo = 0, hi = 1;
    return;
  case DType::i8:
    lo = INT8_MIN, hi = INT8_MAX;
    return;
  case DType::u8:
    lo = 0, hi = UINT8_MAX;
    return;
  case DType::i16:
    lo = INT16_MIN, hi = INT16_MAX;
    return;
  case DType::u16:
    lo = 0, hi = UINT16_MAX;
    return;
  case DType::i32:
    lo = INT32_MIN, hi = INT32_MAX;
    return;
  case DType::u32:
    lo = 0, hi = UINT32_MAX;
    return;
  case DType::u64:
    lo = 0, hi = INT64_MAX;
    return;
  default:
    lo = INT64_MIN, hi = INT64_MAX;
  }
}

bool fits(DType t, int64_t v) {
  int64_t lo, hi;
  integerRange(t, lo, hi);
  return v >= lo && v <= hi;
}

constexpr int64_t kNegative = -1, kTooMany = -2;

/// A tensor's elements; kNegative for a negative dimension, kTooMany past
/// int64 (no tensor has that many; a zero dimension makes any shape empty).
int64_t elementCount(const Arg &a) {
  bool empty = false, overflow = false;
  int64_t numel = 1;
  for (int d = 0; d < a.ndim; ++d) {
    if (a.shape[d] < 0)
      return kNegative;
    empty |= a.shape[d] == 0;
    overflow |= __builtin_mul_overflow(numel, a.shape[d], &numel);
  }
  return empty ? 0 : overflow ? kTooMany : numel;
}

/// Whether a tensor with elements has row-major strides. A stride does not
/// matter across a dimension of size 1, and a tensor without elements is
/// contiguous whatever its strides (PyTorch's rules).
bool rowMajor(const Arg &a) {
  int64_t expected = 1;
  for (int d = a.ndim - 1; d >= 0; --d) {
    if (a.shape[d] != 1 && a.strides[d] != expected)
      return false;
    expected *= a.shape[d]; // a suffix of the element count: no overflow
  }
  return true;
}

/// Whether a finite `value` stays finite as a scalar of float dtype `t`
/// (16-bit types round through f32, as packParams does).
bool fitsFloat(DType t, double value) {
  if (t == DType::f64 || !std::isfinite(value))
    return true;
  float f = float(value);
  if (std::isinf(f))
    return false;
  if (t == DType::f16)
    return (toF16Bits(value) & 0x7C00) != 0x7C00;
  if (t == DType::bf16)
    return (toBF16Bits(value) & 0x7F80) != 0x7F80;
  return true;
}

const char *argKindName(Arg::Kind kind) {
  switch (kind) {
  case Arg::Kind::Tensor:
    return "tensor";
  case Arg::Kind::Scalar:
    return "scalar";
  case Arg::Kind::Infer:
    return "placeholder (Arg::infer)";
  }
  return "?";
}

} // namespace

/// The inputs of the last launch whose bounds held: the variant, the grid,
/// the integer scalars and the element counts of the bounded tensors with a
/// `_` extent (the shape check pins the others to the scalars), which decide
/// them. A launch with the same inputs (a decode loop's) skips evaluating the
/// bounds. A seqlock: launches on many threads compare against it at once,
/// and one at a time rewrites it (another finding it busy does not wait).
struct KernelSignature::BoundsMemo {
  static constexpr size_t kMaxKey = 4 + 2 * size_t(kMaxParams);
  std::atomic<uint64_t> seq{0}; // odd while being rewritten
  std::atomic_flag writing = ATOMIC_FLAG_INIT;
  std::atomic<size_t> size{0}; // 0: nothing remembered yet
  std::atomic<int64_t> key[kMaxKey] = {};

  bool holds(const int64_t *k, size_t n) const {
    uint64_t before = seq.load(std::memory_order_acquire);
    if ((before & 1) || size.load(std::memory_order_relaxed) != n)
      return false;
    for (size_t i = 0; i < n; ++i)
      if (key[i].load(std::memory_order_relaxed) != k[i])
        return false;
    std::atomic_thread_fence(std::memory_order_acquire);
    return seq.load(std::memory_order_relaxed) == before;
  }

  void remember(const int64_t *k, size_t n) {
    if (writing.test_and_set(std::memory_order_acquire))
      return;
    uint64_t s = seq.load(std::memory_order_relaxed);
    seq.store(s + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    for (size_t i = 0; i < n; ++i)
      key[i].store(k[i], std::memory_order_relaxed);
    size.store(n, std::memory_order_relaxed);
    seq.store(s + 2, std::memory_order_release);
    writing.clear(std::memory_order_release);
  }
};

KernelSignature::KernelSignature(KernelInfo info) : info_(std::move(info)) {
  const size_t n = info_.params.size();
  auto error = [&](const std::string &where, const std::string &why) {
    return ManifestError("megac: kernel " + quoted(info_.name) + ": " + where +
                         ": " + why);
  };
  if (n > size_t(kMaxParams))
    throw error("params", std::to_string(n) + " parameters, at most " +
                              std::to_string(kMaxParams) + " are supported");
  if (info_.variants.empty())
    throw error("variants", "none");
  if (info_.sharedBytes > std::numeric_limits<uint32_t>::max())
    throw error("shared_bytes", "too large");

  // Names expressions may use: integer scalars by parameter index, then
  // `ctas` and `early` (variant conditions only), `sms` (grid and
  // conditions), the launch grid's x, y, z (bounds only) and `l2_mb`
  // (variant conditions only).
  std::vector<std::string> shapeNames(n + 7);
  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = info_.params[i];
    for (size_t j = 0; j < i; ++j)
      if (info_.params[j].name == p.name)
        throw error("params", "two parameters are named " + quoted(p.name));
    if (p.kind == ParamKind::Scalar && isInteger(p.dtype))
      shapeNames[i] = p.name;
    if (p.kind == ParamKind::Tensor && p.shape.size() > size_t(kMaxDims))
      throw error("parameter " + quoted(p.name),
                  std::to_string(p.shape.size()) + " dimensions, at most " +
                      std::to_string(kMaxDims));
  }
  ctasIndex_ = int(n);
  smsIndex_ = int(n + 1);
  earlyIndex_ = int(n + 2);
  gridIndex_ = int(n + 3);
  l2Index_ = int(n + 6);
  std::vector<std::string> gridNames = shapeNames;
  gridNames[size_t(smsIndex_)] = "sms";
  std::vector<std::string> whenNames = gridNames;
  whenNames[size_t(ctasIndex_)] = "ctas";
  whenNames[size_t(earlyIndex_)] = "early";
  whenNames[size_t(l2Index_)] = "l2_mb";
  // Bounds read the integer scalars and the launch grid (megac refuses
  // parameters named like it, as it does `ctas`).
  std::vector<std::string> boundNames = shapeNames;
  for (int d = 0; d < 3; ++d)
    boundNames[size_t(gridIndex_ + d)] = kBoundGridNames[d];

  auto compile = [&](const std::string &text,
                     const std::vector<std::string> &names,
                     const std::string &where) {
    try {
      return Expr::parse(text, names);
    } catch (const ExprError &e) {
      throw error(where, e.what());
    }
  };

  params_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = info_.params[i];
    for (size_t d = 0; d < p.shape.size(); ++d) {
      bool any = p.shape[d] == "_";
      params_[i].anyExtent.push_back(any);
      params_[i].shape.push_back(compile(any ? "0" : p.shape[d], shapeNames,
                                         "parameter " + quoted(p.name) +
                                             ": shape[" + std::to_string(d) +
                                             "]"));
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (shapeNames[i].empty())
      continue;
    for (size_t t = 0; t < n && params_[i].inferTensor < 0; ++t) {
      for (size_t d = 0; d < params_[t].shape.size(); ++d) {
        if (params_[t].shape[d].singleName() == int(i)) {
          params_[i].inferTensor = int(t);
          params_[i].inferDim = int(d);
          ++numInferable_;
          break;
        }
      }
    }
  }
  for (int d = 0; d < 3; ++d)
    grid_[d] = compile(info_.grid[size_t(d)], gridNames,
                       "grid[" + std::to_string(d) + "]");
  for (const VariantInfo &v : info_.variants) {
    if (v.symbol.empty())
      throw error("variant " + quoted(v.name), "no symbol");
    when_.push_back(v.when.empty()
                        ? Expr()
                        : compile(v.when, whenNames,
                                  "variant " + quoted(v.name) + ": when"));
    std::array<Expr, 3> grid;
    if (!v.grid.empty())
      for (int d = 0; d < 3; ++d)
        grid[size_t(d)] = compile(v.grid[size_t(d)], gridNames,
                                  "variant " + quoted(v.name) + ": grid[" +
                                      std::to_string(d) + "]");
    variantGrid_.push_back(std::move(grid));
    threads_.push_back(uint32_t(v.numWarps ? v.numWarps : info_.numWarps) * 32);
    std::vector<CompiledBound> bounds;
    for (size_t b = 0; b < v.bounds.size(); ++b) {
      const AccessBoundInfo &info = v.bounds[b];
      std::string where = "variant " + quoted(v.name) + ": bounds[" + std::to_string(b) + "]";
      CompiledBound c;
      while (c.param < n && !(info_.params[c.param].name == info.param &&
                              info_.params[c.param].kind == ParamKind::Tensor))
        ++c.param;
      if (c.param == n)
        throw error(where, "no tensor parameter is named " + quoted(info.param));
      if (!info.when.empty())
        c.when = compile(info.when, boundNames, where + ": when");
      c.min = compile(info.min, boundNames, where + ": min");
      c.max = compile(info.max, boundNames, where + ": max");
      bounds.push_back(std::move(c));
    }
    bounds_.push_back(std::move(bounds));
  }
  // The memo's key: the integer scalars, and the sizes of the bounded tensors
  // that the shape check does not pin to them (a `_` extent).
  bool anyBounds = false;
  for (size_t i = 0; i < n; ++i) {
    if (!shapeNames[i].empty())
      boundScalars_.push_back(int(i));
    bool bounded = false;
    for (const std::vector<CompiledBound> &bounds : bounds_)
      for (const CompiledBound &b : bounds)
        bounded = bounded || b.param == i;
    anyBounds = anyBounds || bounded;
    const std::vector<bool> &any = params_[i].anyExtent;
    if (bounded && std::find(any.begin(), any.end(), true) != any.end())
      boundTensors_.push_back(int(i));
  }
  if (anyBounds)
    memo_ = std::make_shared<BoundsMemo>();
}

void KernelSignature::evalGrid(int variant, int64_t *env, int64_t g[3]) const {
  for (int d = 0; d < 3; ++d)
    g[d] = variant < 0 ? grid_[d].eval(env) : variantGrid_[size_t(variant)][size_t(d)].eval(env);
}

void KernelSignature::refuse(size_t param, const std::string &why) const {
  throw ArgError("megac: kernel " + quoted(info_.name) + ": parameter " +
                 quoted(info_.params[param].name) + ": " + why);
}

void KernelSignature::prepare(const Arg *args, size_t count, const DeviceFacts &device,
                              const Grid *grid, LaunchConfig &out, bool early) const {
  int argOf[kMaxParams];
  try {
    bindArgs(args, count, argOf, out);
    checkShapes(args, argOf, out);
    computeGrid(grid, device, early, out);
    checkBounds(args, argOf, out);
  } catch (const ExprError &e) {
    throw ArgError("megac: kernel " + quoted(info_.name) + ": " + e.what());
  }
  packParams(args, argOf, out);
}

void KernelSignature::bindArgs(const Arg *args, size_t count, int *argOf,
                               LaunchConfig &out) const {
  const size_t n = info_.params.size();
  // Either every parameter is given (Arg::infer() may stand for inferable
  // scalars), or exactly the inferable scalars are left out.
  const bool omitInferable =
      numInferable_ > 0 && count == n - size_t(numInferable_);
  if (count != n && !omitInferable) {
    std::string msg = "megac: kernel " + quoted(info_.name) + ": " +
                      std::to_string(count) + " arguments given, " +
                      std::to_string(n) + " expected";
    if (numInferable_ > 0) {
      std::string names;
      for (size_t i = 0; i < n; ++i)
        if (params_[i].inferTensor >= 0)
          names += (names.empty() ? "" : ", ") + quoted(info_.params[i].name);
      msg += " (or " + std::to_string(n - size_t(numInferable_)) +
             " leaving out " + names + ", inferred from tensor shapes)";
    }
    throw ArgError(msg);
  }

  size_t next = 0;
  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = info_.params[i];
    out.env[i] = 0;
    if (omitInferable && params_[i].inferTensor >= 0) {
      argOf[i] = -1;
      continue;
    }
    const Arg &a = args[next];
    argOf[i] = int(next++);
    if (p.kind == ParamKind::Tensor) {
      if (a.kind != Arg::Kind::Tensor)
        refuse(i, std::string(argKindName(a.kind)) + " given, tensor expected");
      if (a.dtype != p.dtype)
        refuse(i, "dtype " + std::string(dtypeName(a.dtype)) + " given, " +
                      std::string(dtypeName(p.dtype)) + " expected");
      if (size_t(a.ndim) != p.shape.size())
        refuse(i, std::to_string(a.ndim) + " dimensions " +
                      dims(a.shape, size_t(a.ndim)) + " given, " +
                      std::to_string(p.shape.size()) + " expected");
      if (a.ptr % uint64_t(p.align) != 0) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%" PRIx64, a.ptr);
        refuse(i, "pointer " + std::string(buf) + " is not " +
                      std::to_string(p.align) + "-byte aligned");
      }
      int64_t numel = elementCount(a);
      if (numel == kNegative)
        refuse(i, "negative dimension in shape " + dims(a.shape, size_t(a.ndim)));
      if (numel == kTooMany)
        refuse(i, "shape " + dims(a.shape, size_t(a.ndim)) + " has more than 2^63 elements");
      if (a.hasStrides && numel > 0 && !rowMajor(a))
        refuse(i, "not contiguous: strides " + dims(a.strides, size_t(a.ndim)) + " for shape " +
                      dims(a.shape, size_t(a.ndim)) + " (a contiguous row-major tensor is required)");
      if (a.ptr == 0 && numel != 0)
        refuse(i, "null pointer");
      if (!info_.offsets64 && numel > INT32_MAX)
        refuse(i, std::to_string(numel) +
                      " elements: the kernel's offsets are 32-bit, at most 2^31 - 1 elements a tensor "
                      "(compute the offsets in i64 in the kernel, or pass a smaller view)");
      continue;
    }
    if (a.kind == Arg::Kind::Infer) {
      if (params_[i].inferTensor < 0)
        refuse(i, "cannot be inferred (no tensor dimension is exactly " +
                      quoted(p.name) + "); pass it");
      argOf[i] = -1;
      continue;
    }
    if (a.kind != Arg::Kind::Scalar)
      refuse(i, std::string(argKindName(a.kind)) + " given, scalar expected");
    // Scalars match by kind (integer or float) and range, not by exact width,
    // so that a binding can pass every integer as i64.
    if (isInteger(p.dtype) != isInteger(a.dtype))
      refuse(i, "dtype " + std::string(dtypeName(a.dtype)) + " given, " +
                    std::string(dtypeName(p.dtype)) + " expected");
    if (isInteger(p.dtype)) {
      if (!fits(p.dtype, a.intValue))
        refuse(i, "value " + std::to_string(a.intValue) + " does not fit " +
                      std::string(dtypeName(p.dtype)));
      out.env[i] = a.intValue;
    } else if (!fitsFloat(p.dtype, a.floatValue)) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", a.floatValue);
      refuse(i, "value " + std::string(buf) + " is past the range of " + std::string(dtypeName(p.dtype)) +
                    " (it would be infinity; pass inf if that is meant)");
    }
  }

  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = info_.params[i];
    if (p.kind != ParamKind::Scalar || !isInteger(p.dtype))
      continue;
    const CompiledParam &c = params_[i];
    bool inferred = argOf[i] < 0;
    if (inferred) {
      const Arg &from = args[argOf[c.inferTensor]];
      out.env[i] = from.shape[c.inferDim];
      if (!fits(p.dtype, out.env[i]))
        refuse(i, "value " + std::to_string(out.env[i]) + " (inferred from " +
                      quoted(info_.params[size_t(c.inferTensor)].name) +
                      ") does not fit " + std::string(dtypeName(p.dtype)));
    }
    if (out.env[i] % p.multipleOf != 0)
      refuse(i,
             "value " + std::to_string(out.env[i]) +
                 (inferred
                      ? " (inferred from " +
                            quoted(info_.params[size_t(c.inferTensor)].name) +
                            ")"
                      : "") +
                 " is not a multiple of " + std::to_string(p.multipleOf));
  }
}

void KernelSignature::checkShapes(const Arg *args, const int *argOf,
                                  LaunchConfig &out) const {
  for (size_t i = 0; i < info_.params.size(); ++i) {
    if (info_.params[i].kind != ParamKind::Tensor)
      continue;
    const Arg &a = args[argOf[i]];
    const std::vector<Expr> &shape = params_[i].shape;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (params_[i].anyExtent[d] || shape[d].eval(out.env) == a.shape[d])
        continue;
      int64_t expected[kMaxDims];
      std::string names;
      for (size_t k = 0; k < shape.size(); ++k) {
        expected[k] = params_[i].anyExtent[k] ? a.shape[k] : shape[k].eval(out.env);
        if (!shape[k].isConstant())
          names += (names.empty() ? "" : ", ") + shape[k].text() + " = " +
                   std::to_string(expected[k]);
      }
      refuse(i, "shape " + dims(a.shape, size_t(a.ndim)) + " given, " +
                    dims(expected, shape.size()) + " expected" +
                    (names.empty() ? "" : " (" + names + ")"));
    }
  }
}

void KernelSignature::computeGrid(const Grid *grid, const DeviceFacts &device, bool early,
                                  LaunchConfig &out) const {
  out.env[smsIndex_] = device.sms;
  int64_t g[3];
  if (grid) {
    g[0] = grid->x, g[1] = grid->y, g[2] = grid->z;
  } else {
    evalGrid(-1, out.env, g);
  }
  // The variant is chosen on the kernel's grid; one with its own grid then
  // launches that one (unless the caller gave the grid).
  int64_t ctas;
  if (__builtin_mul_overflow(g[0], g[1], &ctas) || __builtin_mul_overflow(ctas, g[2], &ctas))
    throw ArgError("megac: kernel " + quoted(info_.name) + ": grid " + dims(g, 3) +
                   " has more than 2^63 CTAs");
  out.variant = selectVariant(out.env, ctas, device, early);
  if (out.variant < 0)
    throw ArgError("megac: kernel " + quoted(info_.name) +
                   ": no variant's condition holds (ctas = " + std::to_string(ctas) +
                   ", sms = " + std::to_string(device.sms) +
                   ", l2_mb = " + std::to_string(device.l2Mb) +
                   ", early = " + (early ? "1" : "0") + ")");
  if (!grid && !info_.variants[size_t(out.variant)].grid.empty())
    evalGrid(out.variant, out.env, g);
  static constexpr int64_t kLimit[3] = {INT32_MAX, 65535, 65535};
  for (int d = 0; d < 3; ++d) {
    if (g[d] < 0 || g[d] > kLimit[d])
      throw ArgError("megac: kernel " + quoted(info_.name) + ": grid " +
                     dims(g, 3) + " is out of range (dimension " +
                     std::to_string(d) + " must be in [0, " +
                     std::to_string(kLimit[d]) + "])");
    out.grid[d] = uint32_t(g[d]);
  }
  out.block[0] = threads_[size_t(out.variant)];
  out.block[1] = out.block[2] = 1;
  // megac kernels declare their shared memory statically (the manifest's
  // shared_bytes reports it): launches ask for no dynamic shared memory.
  out.sharedBytes = 0;
}

int KernelSignature::selectVariant(int64_t *env, int64_t ctas,
                                   const DeviceFacts &device, bool early) const {
  env[ctasIndex_] = ctas;
  env[smsIndex_] = device.sms;
  env[l2Index_] = device.l2Mb;
  env[earlyIndex_] = early ? 1 : 0;
  for (size_t v = 0; v < when_.size(); ++v)
    if (when_[v].eval(env) != 0)
      return int(v);
  return -1;
}

void KernelSignature::checkBounds(const Arg *args, const int *argOf,
                                  LaunchConfig &out) const {
  const std::vector<CompiledBound> &bounds = bounds_[size_t(out.variant)];
  if (out.empty() || bounds.empty())
    return; // nothing runs, or nothing to check
  int64_t key[BoundsMemo::kMaxKey];
  size_t size = 0;
  key[size++] = out.variant;
  for (int d = 0; d < 3; ++d)
    key[size++] = out.env[gridIndex_ + d] = out.grid[d];
  for (int i : boundScalars_)
    key[size++] = out.env[i];
  for (int t : boundTensors_)
    key[size++] = elementCount(args[argOf[t]]);
  if (memo_->holds(key, size))
    return;
  for (size_t b = 0; b < bounds.size(); ++b) {
    const CompiledBound &c = bounds[b];
    if (c.when.eval(out.env) == 0)
      continue;
    int64_t lo = c.min.eval(out.env), hi = c.max.eval(out.env);
    int64_t numel = elementCount(args[argOf[c.param]]);
    if (lo < 0 || hi >= numel)
      refuseBound(args, argOf, out, b, lo, hi, numel);
  }
  memo_->remember(key, size);
}

void KernelSignature::refuseBound(const Arg *args, const int *argOf, const LaunchConfig &out,
                                  size_t bound, int64_t lo, int64_t hi, int64_t numel) const {
  const VariantInfo &v = info_.variants[size_t(out.variant)];
  const AccessBoundInfo &info = v.bounds[bound];
  const CompiledBound &c = bounds_[size_t(out.variant)][bound];
  const Arg &a = args[argOf[c.param]];
  // Below the first element: the access that reaches lowest, where it is another.
  bool below = lo < 0;
  const std::string &access = below && !info.minAccess.empty() ? info.minAccess : info.access;
  const std::string &at = below && !info.minAt.empty() ? info.minAt : info.at;
  const char *verb = access == "load" ? "read " : access == "store" ? "write " : "update ";
  std::string what = access + (at.empty() ? "" : " at " + at);
  if (info_.variants.size() > 1)
    what += " (variant " + quoted(v.name) + ")";
  std::string past = below ? "element " + std::to_string(lo) + ", before its first"
                           : "element " + std::to_string(hi) + ", past its " +
                                 std::to_string(numel) + " elements (shape " +
                                 dims(a.shape, size_t(a.ndim)) + ")";
  std::string values;
  for (size_t i = 0; i < info_.params.size(); ++i)
    if (info_.params[i].kind == ParamKind::Scalar && isInteger(info_.params[i].dtype))
      values += ", " + info_.params[i].name + " = " + std::to_string(out.env[i]);
  int64_t grid[3] = {out.grid[0], out.grid[1], out.grid[2]};
  refuse(c.param, "the " + what + " would " + verb + past +
                      " for these arguments (grid " + dims(grid, 3) + values + "): " +
                      (info.masked ? "its mask lets it past the tensor (a mask that does not match "
                                     "the tensor's shape)"
                                   : "a mask missing in the kernel") +
                      ", or arguments it does not support");
}

void KernelSignature::packParams(const Arg *args, const int *argOf,
                                 LaunchConfig &out) const {
  const size_t n = info_.params.size();
  out.numParams = int(n);
  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = info_.params[i];
    LaunchConfig::Value &v = out.values[i];
    out.params[i] = &v;
    if (p.kind == ParamKind::Tensor) {
      v.u64 = args[argOf[i]].ptr;
      continue;
    }
    double f = argOf[i] >= 0 ? args[argOf[i]].floatValue : 0;
    switch (p.dtype) {
    case DType::f32:
      v.f32 = float(f);
      break;
    case DType::f64:
      v.f64 = f;
      break;
    case DType::f16:
      v.u16 = toF16Bits(f);
      break;
    case DType::bf16:
      v.u16 = toBF16Bits(f);
      break;
    default:
      switch (dtypeSize(p.dtype)) {
      case 1:
        v.u8 = uint8_t(out.env[i]);
        break;
      case 2:
        v.u16 = uint16_t(out.env[i]);
        break;
      case 4:
        v.u32 = uint32_t(out.env[i]);
        break;
      default:
        v.i64 = out.env[i];
      }
    }
  }
}

} // namespace megac::rt
