#pragma once
// LLVM's own pass timers over megac's two pipelines (the O3 optimizer and
// NVPTX's code generation), for finding where a kernel's compile time goes.
//
// Off unless $MEGAC_TIME_PASSES is set and not "0": "1" prints a line per
// pass, "2" a line per pass run ("InstCombinePass #3"), to stderr once the
// module's PTX is written. LLVM's timers are process-wide, so while they are
// on the modules that threads compile at once go through the pipelines one
// at a time (the report of each is its own).

#include "llvm/IR/PassTimingInfo.h"

#include <mutex>
#include <optional>

namespace llvm {
class PassInstrumentationCallbacks;
}

namespace megac {

class PassTimes {
public:
  // Starts the timers and registers the optimizer's on `pic`, when asked.
  explicit PassTimes(llvm::PassInstrumentationCallbacks &pic);
  // Prints both pipelines' reports.
  ~PassTimes();
  PassTimes(const PassTimes &) = delete;
  PassTimes &operator=(const PassTimes &) = delete;

private:
  std::unique_lock<std::mutex> serial;
  std::optional<llvm::TimePassesHandler> optimizer;
};

} // namespace megac
