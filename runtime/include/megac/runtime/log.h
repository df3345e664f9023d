//===- log.h - Where the runtime's INFO lines go ----------------*- C++ -*-===//
#ifndef MEGAC_RUNTIME_LOG_H
#define MEGAC_RUNTIME_LOG_H

#include <functional>
#include <string>

namespace megac::rt {

/// Receives one line, without prefix or newline. A host routes it to its own
/// logger; the default writes "megac INFO: <line>" to stderr.
using LogSink = std::function<void(const std::string &line)>;

LogSink stderrLogSink();

} // namespace megac::rt

#endif // MEGAC_RUNTIME_LOG_H
