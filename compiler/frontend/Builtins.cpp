//===- Builtins.cpp -------------------------------------------------------===//
#include "frontend/Builtins.h"

namespace megac::fe {

namespace {
struct BuiltinInfo {
  Builtin builtin;
  const char *name;
};
// ReduceMax/ReduceMin share the names "max"/"min" with the elementwise
// forms, which come first so that lookup finds them.
constexpr BuiltinInfo kBuiltins[] = {
    {Builtin::ProgramId, "program_id"},
    {Builtin::NumPrograms, "num_programs"},
    {Builtin::Arange, "arange"},
    {Builtin::Zeros, "zeros"},
    {Builtin::Full, "full"},
    {Builtin::Load, "load"},
    {Builtin::Store, "store"},
    {Builtin::AtomicAdd, "atomic_add"},
    {Builtin::AtomicMax, "atomic_max"},
    {Builtin::Exp, "exp"},
    {Builtin::Exp2, "exp2"},
    {Builtin::Log, "log"},
    {Builtin::Log2, "log2"},
    {Builtin::Sqrt, "sqrt"},
    {Builtin::Rsqrt, "rsqrt"},
    {Builtin::Sigmoid, "sigmoid"},
    {Builtin::Silu, "silu"},
    {Builtin::Softplus, "softplus"},
    {Builtin::Tanh, "tanh"},
    {Builtin::Abs, "abs"},
    {Builtin::Fma, "fma"},
    {Builtin::Minimum, "min"},
    {Builtin::Maximum, "max"},
    {Builtin::Where, "where"},
    {Builtin::Cdiv, "cdiv"},
    {Builtin::Sum, "sum"},
    {Builtin::ReduceMax, "max"},
    {Builtin::ReduceMin, "min"},
    {Builtin::Argmax, "argmax"},
    {Builtin::Argmin, "argmin"},
    {Builtin::Reshape, "reshape"},
    {Builtin::BroadcastTo, "broadcast_to"},
    {Builtin::ExpandDims, "expand_dims"},
    {Builtin::Bitcast, "bitcast"},
    {Builtin::WithLayout, "with_layout"},
    {Builtin::Trans, "trans"},
    {Builtin::Dot, "dot"},
    {Builtin::QuantizeNvfp4, "quantize_nvfp4"},
    {Builtin::Nvfp4Scales, "nvfp4_scales"},
    {Builtin::DequantizeNvfp4, "dequantize_nvfp4"},
    {Builtin::QuantizeMxfp4, "quantize_mxfp4"},
    {Builtin::Mxfp4Scales, "mxfp4_scales"},
    {Builtin::DequantizeMxfp4, "dequantize_mxfp4"},
    {Builtin::QuantizeFp8, "quantize_fp8"},
    {Builtin::DequantizeFp8, "dequantize_fp8"},
    {Builtin::QuantizeFp8Group, "quantize_fp8_group"},
    {Builtin::Fp8GroupScales, "fp8_group_scales"},
    {Builtin::DequantizeFp8Group, "dequantize_fp8_group"},
    {Builtin::WaitPriorKernel, "wait_prior_kernel"},
    {Builtin::LaunchDependents, "launch_dependents"},
};
} // namespace

Builtin lookupBuiltin(const std::string &name) {
  for (const BuiltinInfo &b : kBuiltins)
    if (name == b.name)
      return b.builtin;
  return Builtin::None;
}

const char *builtinName(Builtin b) {
  for (const BuiltinInfo &info : kBuiltins)
    if (info.builtin == b)
      return info.name;
  return "<none>";
}

bool isUnaryMath(Builtin b) { return b >= Builtin::Exp && b <= Builtin::Abs; }

bool isReduction(Builtin b) {
  return b >= Builtin::Sum && b <= Builtin::Argmin;
}

std::vector<std::string> allBuiltinNames() {
  std::vector<std::string> names;
  for (const BuiltinInfo &b : kBuiltins)
    names.push_back(b.name);
  names.push_back("cast");
  return names;
}

} // namespace megac::fe
