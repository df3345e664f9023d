//===- log.cpp - Where the runtime's INFO lines go ------------------------===//
#include "megac/runtime/log.h"

#include <cstdio>

namespace megac::rt {

LogSink stderrLogSink() {
  return [](const std::string &line) {
    std::fprintf(stderr, "megac INFO: %s\n", line.c_str());
  };
}

} // namespace megac::rt
