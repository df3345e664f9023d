#include "Tile/Layout/ReduceScatter.h"

namespace megac::layout {

ReduceScatterPlan planReduceScatter(int numPartials,
                                    const std::vector<unsigned> &masks) {
  ReduceScatterPlan plan;
  plan.slotOf.resize(numPartials);
  plan.codeOf.assign(numPartials, 0);
  for (int j = 0; j < numPartials; ++j)
    plan.slotOf[j] = j;
  int slots = numPartials;
  for (unsigned mask : masks) {
    ReduceScatterPlan::Step step;
    step.mask = mask;
    if (slots > 1) {
      // The low lanes keep the first ceil(slots / 2), the high lanes the rest.
      int kept = (slots + 1) / 2;
      for (int k = 0; k < kept; ++k)
        step.halves.push_back({k, kept + k < slots ? kept + k : -1});
      for (int j = 0; j < numPartials; ++j)
        if (plan.slotOf[j] >= kept) {
          plan.slotOf[j] -= kept;
          plan.codeOf[j] |= mask;
        }
      plan.scatterBits |= mask;
      slots = kept;
    }
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

int64_t ReduceScatterPlan::numShuffles() const {
  int64_t n = scatterBits ? int64_t(slotOf.size()) : 0; // the reads
  for (const Step &s : steps)
    n += s.halves.empty() ? 1 : int64_t(s.halves.size());
  return n;
}

int64_t ReduceScatterPlan::numPlainShuffles() const {
  return int64_t(slotOf.size()) * int64_t(steps.size());
}

int64_t ReduceScatterPlan::numSelects() const {
  int64_t n = 0;
  for (const Step &s : steps)
    for (const Half &h : s.halves)
      n += h.high >= 0 ? 2 : 0;
  return n;
}

bool ReduceScatterPlan::worthIt() const {
  int64_t cost = 4 * numShuffles() + numSelects(), plain = 4 * numPlainShuffles();
  return 5 * cost <= 4 * plain;
}

} // namespace megac::layout
