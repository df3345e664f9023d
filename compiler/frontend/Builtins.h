//===- Builtins.h - Builtin functions and their argument lists --*- C++ -*-===//
//
// Canonical CallExpr::args after sema (null = optional argument absent):
//
//   program_id, num_programs   []                    axis in CallExpr::axis
//   arange                     []                    start, shape[0] = length
//   zeros                      []                    shape, dtype = type.elem
//   full                       [value (scalar)]      shape, dtype = type.elem
//   load                       [ptr, mask?, other?]  all of the result shape
//   store, atomic_add/max      [ptr, value, mask?]   all of one shape
//   exp .. abs                 [x]
//   fma                        [a, b, c]             one type
//   min, max (elementwise)     [a, b]                one type
//   where                      [cond, a, b]          one shape
//   cdiv                       [a, b]                one type
//   sum max min argmax argmin  [x]                   axis (1-D: always 0,
//                                                   result is a scalar)
//   reshape, broadcast_to      [x]                   shape
//   expand_dims                [x]                   axis
//   bitcast                    [x]                   type = x's shape, dtype's element
//   with_layout                [x]                   layout = spt, tpw, wpc, order
//   trans                      [x]                   x: 2-D tile
//   dot                        [a, b, acc?]          a [M, K], b [K, N] bf16/f16;
//                                                   acc [M, N] f32
//   quantize_nvfp4, nvfp4_scales   [x, gs]           x: float tile [.., K]
//   quantize_mxfp4, mxfp4_scales   [x]
//   dequantize_nvfp4           [q, sf, gs]
//   dequantize_mxfp4           [q, sf]
//   quantize_fp8               [x, scale]        fp8 = the values' type
//   dequantize_fp8             [q, scale]        type = f32 or bf16
//   quantize_fp8_group, fp8_group_scales [x]     fp8, ue8m0
//   dequantize_fp8_group       [q, s]            type = f32 or bf16
//   wait_prior_kernel          []                    a statement of an
//                                                   @early_launch kernel's body
//   launch_dependents          []                    likewise
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/AST.h"

#include <string>
#include <vector>

namespace megac::fe {

/// Builtin::None if `name` is not a builtin. min/max map to the elementwise
/// form; sema switches to the reduction when called with one argument or
/// with `axis =`.
Builtin lookupBuiltin(const std::string &name);
const char *builtinName(Builtin b);
/// Float-only unary math (exp, log, ..., abs).
bool isUnaryMath(Builtin b);
bool isReduction(Builtin b);
std::vector<std::string> allBuiltinNames();

} // namespace megac::fe
