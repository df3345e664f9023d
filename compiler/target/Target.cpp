#include "Target.h"

namespace megac {

const std::vector<Target> &allTargets() {
  // PTX 8.8 is the first ISA that knows sm_103a; one version for all keeps
  // the output of the three targets comparable.
  static const std::vector<Target> targets = {
      {"sm_90a", 90, "+ptx88", 88, true, false, true, false, true, 65536,
       233472, 232448},
      {"sm_100a", 100, "+ptx88", 88, true, true, false, true, true, 65536,
       233472, 232448},
      {"sm_103a", 103, "+ptx88", 88, true, true, false, true, true, 65536,
       233472, 232448},
  };
  return targets;
}

const Target *findTarget(const std::string &name) {
  for (const Target &t : allTargets())
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string targetNames() {
  std::string out;
  for (const Target &t : allTargets())
    out += (out.empty() ? "" : ", ") + t.name;
  return out;
}

} // namespace megac
