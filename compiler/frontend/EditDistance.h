//===- EditDistance.h - "did you mean" suggestions --------------*- C++ -*-===//
#pragma once

#include <string>
#include <vector>

namespace megac::fe {

/// Edit distance (insertions, deletions, substitutions and swaps of two
/// neighbouring characters, each 1: the optimal string alignment distance),
/// capped: returns `cap + 1` as soon as the distance is known to exceed `cap`
/// (keeps giant identifiers cheap).
size_t editDistance(const std::string &a, const std::string &b, size_t cap);

/// The candidate closest to `name` if it is close enough to be a plausible
/// typo (distance <= max(1, len/3)); empty otherwise.
std::string closestName(const std::string &name,
                        const std::vector<std::string> &candidates);

/// The hint for a misspelt `name`: "did you mean '<prefix><closest>'?", or
/// empty when no candidate is close enough.
std::string didYouMean(const std::string &name,
                       const std::vector<std::string> &candidates,
                       const std::string &prefix = "");

} // namespace megac::fe
