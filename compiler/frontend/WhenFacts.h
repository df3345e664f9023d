//===- WhenFacts.h - What a variant's `when` tells its body -----*- C++ -*-===//
//
// The runtime launches a variant only when its `when` holds, so what the
// condition says about the kernel's parameters is true in the variant's body.
// One fact is read from it: divisibility. `@variant(vec, when = n % 4 == 0)`
// compiles its body as if `n` were declared `multiple_of 4` (16-byte accesses
// without a per-vector tail check), the specialization Triton makes for
// every integer argument divisible by 16, here chosen in the source.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "frontend/AST.h"

#include <cstdint>
#include <map>

namespace megac::fe {

/// Kernel parameter index -> a divisor the parameter is known to have, from
/// the conjuncts `P % K == 0` (or `0 == P % K`) of `when`, joined by `&&`;
/// P an integer kernel parameter, K a positive integer. Anything else in the
/// condition (a `||`, a comparison) says nothing and is skipped.
std::map<int, int64_t> divisorsFromWhen(const Expr &when);

/// The least common multiple of two positive divisors (the larger one if it
/// overflows: a weaker fact rather than a wrong one).
int64_t combineDivisors(int64_t a, int64_t b);

} // namespace megac::fe
