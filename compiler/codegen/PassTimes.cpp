#include "PassTimes.h"

#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Pass.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

namespace megac {
namespace {

// $MEGAC_TIME_PASSES, read once; null when unset, empty or "0".
const char *requested() {
  static const char *value = std::getenv("MEGAC_TIME_PASSES");
  return value && *value && std::strcmp(value, "0") != 0 ? value : nullptr;
}

std::mutex &timersMutex() {
  static std::mutex mutex;
  return mutex;
}

} // namespace

PassTimes::PassTimes(llvm::PassInstrumentationCallbacks &pic) {
  const char *mode = requested();
  if (!mode)
    return;
  serial = std::unique_lock<std::mutex>(timersMutex());
  llvm::TimePassesIsEnabled = true; // the legacy (code generation) pipeline's
  llvm::TimePassesPerRun = std::strcmp(mode, "2") == 0;
  optimizer.emplace(/*Enabled=*/true, llvm::TimePassesPerRun);
  optimizer->registerCallbacks(pic);
}

PassTimes::~PassTimes() {
  if (!optimizer)
    return;
  optimizer->print();
  llvm::reportAndResetTimings(&llvm::errs());
}

} // namespace megac
