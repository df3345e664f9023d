//===- RuntimeCheck.h - Would the runtime load what megac wrote? -*- C++ -*-===//
#pragma once

#include <string>

namespace megac {

/// Why the runtime would refuse to load `manifestJson` (its parse and every
/// kernel's expressions, as Module::load does), or "" when it would not. A
/// refusal is megac's bug, reported at compile time rather than on the GPU
/// machine. (Its own file: the runtime throws, and the compiler's sources are
/// built without exceptions.)
std::string runtimeRefusal(const std::string &manifestJson);

} // namespace megac
