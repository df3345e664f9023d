//===- EditDistance.cpp ---------------------------------------------------===//
#include "frontend/EditDistance.h"

#include <algorithm>

namespace megac::fe {

size_t editDistance(const std::string &a, const std::string &b, size_t cap) {
  size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff > cap)
    return cap + 1;
  // Rows i - 2, i - 1 and i of the distance table between a[0, i) and b.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    before.swap(prev);
    prev.swap(row);
    row[0] = i;
    size_t rowMin = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1,
                         prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      // Two neighbours swapped ("laod" for "load") is one typo, not two.
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
      rowMin = std::min(rowMin, row[j]);
    }
    // No later row can come back under the cap: a swap reaches back one row
    // more, and that row was at least cap already.
    if (rowMin > cap)
      return cap + 1;
  }
  return row[b.size()];
}

std::string closestName(const std::string &name,
                        const std::vector<std::string> &candidates) {
  size_t cap = std::max<size_t>(1, name.size() / 3);
  std::string best;
  size_t bestDist = cap + 1;
  for (const std::string &c : candidates) {
    size_t d = editDistance(name, c, cap);
    if (d < bestDist) {
      bestDist = d;
      best = c;
    }
  }
  return best;
}

std::string didYouMean(const std::string &name,
                       const std::vector<std::string> &candidates,
                       const std::string &prefix) {
  std::string best = closestName(name, candidates);
  return best.empty() ? "" : "did you mean '" + prefix + best + "'?";
}

} // namespace megac::fe
