//===- EditDistance.cpp ---------------------------------------------------===//
#include "frontend/EditDistance.h"

#include <algorithm>

namespace megac::fe {

size_t editDistance(const std::string &a, const std::string &b, size_t cap) {
  size_t diff = a.size() > b.size() ? a.size() - b.size() : b.size() - a.size();
  if (diff > cap)
    return cap + 1;
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    size_t rowMin = row[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min(
          {row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
      rowMin = std::min(rowMin, row[j]);
    }
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

} // namespace megac::fe
