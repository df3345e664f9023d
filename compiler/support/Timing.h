// Wall-clock milliseconds for --time-phases.
#ifndef MEGAC_SUPPORT_TIMING_H
#define MEGAC_SUPPORT_TIMING_H

#include <chrono>

namespace megac {

using Clock = std::chrono::steady_clock;

inline double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

} // namespace megac

#endif
