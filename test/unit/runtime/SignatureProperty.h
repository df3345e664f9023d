//===- SignatureProperty.h - Random launches, runtime against model -*- C++ -*-===//
//
// Draws launch arguments for a kernel (mostly well-formed, then one mistake of
// the kinds callers make), asks KernelSignature::prepare and the model
// (SignatureModel.h), and reports any disagreement. Shared by the property
// test and the runtime fuzzer: the fuzzer's bytes, or a seeded generator,
// stand behind `Draw`.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_TEST_RUNTIME_SIGNATUREPROPERTY_H
#define MEGAC_TEST_RUNTIME_SIGNATUREPROPERTY_H

#include "SignatureModel.h"

#include <functional>
#include <limits>
#include <sstream>

namespace megac::rt::model {

/// A source of choices: draw(n) is in [0, n).
using Draw = std::function<uint64_t(uint64_t)>;

struct Launch {
  std::vector<Arg> args;
  DeviceFacts device{132, 60};
  bool hasGrid = false;
  Grid grid;
  bool early = false;
  std::string mistake; ///< what was broken, "" for none
};

/// a * times + b with two's complement wrapping (shapes and mistakes reach int64's
/// ends).
inline int64_t wrapping(int64_t a, int64_t b, int64_t times = 1) {
  return int64_t(uint64_t(a) * uint64_t(times) + uint64_t(b));
}

inline int64_t drawScalar(const Draw &draw, const ParamInfo &p) {
  int64_t v;
  switch (draw(8)) {
  case 0: v = int64_t(draw(4)); break;                 // 0..3
  case 1: v = int64_t(1) << draw(15); break;            // powers of two
  case 2: v = int64_t(draw(4097)); break;
  default: v = 1 + int64_t(draw(64)); break;            // the usual sizes
  }
  if (p.dtype == DType::i1)
    v &= 1;
  else if (dtypeSize(p.dtype) == 1)
    v %= 128; // i8 and u8 alike
  return v - v % p.multipleOf;
}

inline double drawFloat(const Draw &draw) {
  static const double special[] = {0.0, -0.0, 1e-6, 448.0, 65504.0, 65520.0, 3.5e38, 1e39,
                                   -1e300, std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::quiet_NaN(), 6.0e-8};
  if (draw(4) == 0)
    return special[draw(sizeof special / sizeof *special)];
  return (double(draw(2000001)) - 1000000.0) / 997.0;
}

/// Arguments that satisfy the manifest where its expressions allow.
inline Launch drawLaunch(const Model &m, const Draw &draw) {
  const KernelInfo &k = m.kernel();
  const size_t n = k.params.size();
  Launch l;
  std::vector<int64_t> env(n + 3, 0);
  for (size_t i = 0; i < n; ++i)
    if (!m.shapeNames()[i].empty())
      env[i] = drawScalar(draw, k.params[i]);
  // Inferable scalars: all given, some as Arg::infer(), or all left out.
  const int inference = int(draw(3));
  uint64_t next = 0x7f0000000000;
  for (size_t i = 0; i < n; ++i) {
    const ParamInfo &p = k.params[i];
    if (p.kind == ParamKind::Tensor) {
      int64_t shape[kMaxDims], strides[kMaxDims];
      for (size_t d = 0; d < p.shape.size(); ++d) {
        std::optional<int64_t> v =
            p.shape[d] == "_" ? std::optional<int64_t>(int64_t(draw(5))) : m.eval(p.shape[d], m.shapeNames(), env.data());
        shape[d] = v ? *v : 1;
      }
      int64_t stride = 1;
      for (size_t d = p.shape.size(); d-- > 0;) {
        strides[d] = shape[d] == 1 && draw(2) ? int64_t(draw(1000)) : stride;
        stride = wrapping(stride, 0, shape[d]);
      }
      l.args.push_back(Arg::tensor(next, p.dtype, shape, int(p.shape.size()), draw(2) ? strides : nullptr));
      next += 0x100000;
    } else if (isInteger(p.dtype)) {
      if (m.isInferable(i) && inference == 1 && draw(2))
        l.args.push_back(Arg::infer());
      else if (!(m.isInferable(i) && inference == 2))
        l.args.push_back(Arg::intScalar(draw(4) ? p.dtype : DType::i64, env[i]));
    } else {
      l.args.push_back(Arg::floatScalar(p.dtype, drawFloat(draw)));
    }
  }
  if (draw(8) == 0)
    l.device.sms = int64_t(draw(300));
  if (draw(8) == 0)
    l.device.l2Mb = int64_t(draw(200));
  if (draw(8) == 0) {
    // Around CUDA's limits (2^31 - 1, 65535, 65535) as often as not.
    static const int64_t edge[] = {0, 1, 2, 65535, 65536, INT32_MAX, int64_t(INT32_MAX) + 1, -1};
    auto pick = [&] { return draw(2) ? edge[draw(sizeof edge / sizeof *edge)] : int64_t(draw(100)); };
    l.hasGrid = true;
    l.grid = {pick(), pick(), pick()};
  }
  l.early = draw(2);
  return l;
}

/// One mistake of the kinds a caller makes, in place.
inline void breakLaunch(Launch &l, const Draw &draw) {
  if (l.args.empty())
    return;
  Arg &a = l.args[draw(l.args.size())];
  switch (draw(9)) {
  case 0:
    l.mistake = "an argument less";
    l.args.pop_back();
    return;
  case 1:
    l.mistake = "an argument more";
    l.args.push_back(Arg::intScalar(DType::i32, 1));
    return;
  case 2:
    l.mistake = "another dtype";
    a.dtype = DType(draw(int(DType::e8m0) + 1));
    return;
  case 3:
    l.mistake = "another kind";
    a.kind = Arg::Kind(draw(3));
    return;
  case 4:
    if (a.kind == Arg::Kind::Tensor && a.ndim > 0) {
      l.mistake = "a dimension off by one";
      int64_t &dim = a.shape[draw(uint64_t(a.ndim))];
      dim = wrapping(dim, draw(2) ? 1 : -1);
    } else if (a.kind == Arg::Kind::Scalar) {
      l.mistake = "a scalar off by one";
      a.intValue = wrapping(a.intValue, draw(2) ? 1 : -1);
      a.floatValue = double(a.intValue);
    }
    return;
  case 5:
    if (a.kind == Arg::Kind::Tensor) {
      bool misalign = draw(2);
      l.mistake = misalign ? "a misaligned pointer" : "a null pointer";
      a.ptr = misalign ? a.ptr + 2 : 0;
    }
    return;
  case 6:
    if (a.kind == Arg::Kind::Tensor && a.ndim > 0) {
      l.mistake = "a stride";
      a.hasStrides = true;
      int64_t s = 1;
      for (int d = a.ndim; d-- > 0;)
        a.strides[d] = s, s = wrapping(s, 0, a.shape[d]);
      int64_t &stride = a.strides[draw(uint64_t(a.ndim))];
      stride = wrapping(stride, 1 + int64_t(draw(3)));
    }
    return;
  case 7:
    if (a.kind == Arg::Kind::Tensor && a.ndim < kMaxDims) {
      l.mistake = "a dimension more";
      a.shape[a.ndim] = 1 + int64_t(draw(3));
      a.strides[a.ndim] = 1;
      ++a.ndim;
    }
    return;
  default: {
    // Each integer dtype's bounds and the values just past them.
    static const int64_t wide[] = {-1, 2, INT8_MIN - 1, INT8_MIN, INT8_MAX, INT8_MAX + 1, UINT8_MAX,
                                   UINT8_MAX + 1, INT16_MIN - 1, INT16_MIN, INT16_MAX, INT16_MAX + 1,
                                   UINT16_MAX, UINT16_MAX + 1, int64_t(INT32_MIN) - 1, INT32_MIN,
                                   INT32_MAX, int64_t(INT32_MAX) + 1, int64_t(UINT32_MAX),
                                   int64_t(UINT32_MAX) + 1, INT64_MAX, INT64_MIN, int64_t(1) << 40};
    if (a.kind == Arg::Kind::Scalar) {
      l.mistake = "a scalar at or past its range";
      // Half the time the bounds of the dtype the scalar was given as (the
      // parameter's, or i64) or one past them (where int64 has such a value).
      auto [lo, hi] = Model::bounds(a.dtype);
      const int64_t near[] = {lo, hi, lo == INT64_MIN ? lo : lo - 1, hi == INT64_MAX ? hi : hi + 1};
      a.intValue = draw(2) ? near[draw(4)] : wide[draw(sizeof wide / sizeof *wide)];
      a.floatValue = isInteger(a.dtype) ? double(a.intValue) : 1e39;
    } else if (a.kind == Arg::Kind::Tensor && a.ndim > 0) {
      l.mistake = "a huge dimension";
      a.shape[draw(uint64_t(a.ndim))] = wide[draw(sizeof wide / sizeof *wide)];
    }
    return;
  }
  }
}

inline std::string describe(const Launch &l) {
  std::ostringstream s;
  for (const Arg &a : l.args) {
    if (a.kind == Arg::Kind::Tensor) {
      s << dtypeName(a.dtype) << "[";
      for (int d = 0; d < a.ndim; ++d)
        s << (d ? "," : "") << a.shape[d] << (a.hasStrides ? ":" + std::to_string(a.strides[d]) : "");
      s << "]@" << std::hex << a.ptr << std::dec << " ";
    } else if (a.kind == Arg::Kind::Scalar) {
      s << dtypeName(a.dtype) << "(" << (isInteger(a.dtype) ? std::to_string(a.intValue) : std::to_string(a.floatValue))
        << ") ";
    } else {
      s << "infer ";
    }
  }
  s << "sms=" << l.device.sms << " l2_mb=" << l.device.l2Mb << " early=" << l.early;
  if (l.hasGrid)
    s << " grid=" << l.grid.x << "," << l.grid.y << "," << l.grid.z;
  if (!l.mistake.empty())
    s << " mistake: " << l.mistake;
  return s.str();
}

/// What a launch did: "" when the runtime and the model agree, else why not.
/// `accepted` says whether both accepted.
inline std::string check(const KernelSignature &sig, const Model &m, const Launch &l, bool &accepted) {
  Outcome want = m.predict(l.args, l.device, l.hasGrid ? &l.grid : nullptr, l.early);
  LaunchConfig got;
  std::string refusal;
  try {
    sig.prepare(l.args.data(), l.args.size(), l.device, l.hasGrid ? &l.grid : nullptr, got, l.early);
  } catch (const ArgError &e) {
    refusal = e.what();
    if (refusal.rfind("megac: kernel '" + sig.name() + "'", 0) != 0)
      return "a refusal that does not name the kernel: " + refusal;
  } catch (const std::exception &e) {
    return std::string("an exception that is not an ArgError: ") + e.what();
  }
  accepted = want.accepted && refusal.empty();
  const std::string where = "kernel '" + sig.name() + "', " + describe(l) + ": ";
  if (!want.accepted)
    return refusal.empty() ? where + "accepted, the model refuses (" + want.refusal + ")" : "";
  if (!refusal.empty())
    return where + "refused, the model accepts: " + refusal;
  std::ostringstream diff;
  for (int d = 0; d < 3; ++d)
    if (got.grid[d] != want.grid[d])
      diff << "grid[" << d << "] " << got.grid[d] << " (model " << want.grid[d] << ") ";
  if (got.block[0] != want.block || got.block[1] != 1 || got.block[2] != 1)
    diff << "block " << got.block[0] << " (model " << want.block << ") ";
  if (got.variant != want.variant)
    diff << "variant " << got.variant << " (model " << want.variant << ") ";
  if (got.numParams != int(sig.info().params.size()))
    diff << "numParams " << got.numParams << " ";
  else if (Model::packedBytes(sig.info(), got) != want.packed)
    diff << "packed parameter bytes differ ";
  return diff.str().empty() ? "" : where + diff.str();
}

} // namespace megac::rt::model

#endif // MEGAC_TEST_RUNTIME_SIGNATUREPROPERTY_H
