// What each GPU target offers. Every target-dependent decision in the
// compiler reads this table, so an unsupported feature is a located error
// that names the feature and the target instead of an abort inside LLVM.
#ifndef MEGAC_TARGET_TARGET_H
#define MEGAC_TARGET_TARGET_H

#include <string>
#include <vector>

namespace megac {

struct Target {
  std::string name;       // "sm_90a"
  unsigned smVersion;     // 90
  std::string ptxFeature; // LLVM NVPTX feature for the PTX ISA version
  unsigned ptxVersion;    // 80 = PTX ISA 8.0
  bool fp8Convert;        // cvt.rn.satfinite.e4m3x2.f32 (sm_89+)
  bool fp4Convert;        // cvt.rn.satfinite.e2m1x2.f32 (sm_100a+)
  bool wgmma;             // warpgroup MMA (sm_90a)
  bool tcgen05;           // 5th-gen tensor cores (sm_100a, sm_103a)
  bool setmaxnreg;        // setmaxnreg.{inc,dec} (sm_90a+)
  unsigned registersPerSM;
  unsigned sharedBytesPerSM;
  unsigned maxSharedBytesPerCTA;
};

/// The target named `name`, or nullptr.
const Target *findTarget(const std::string &name);
/// All supported targets, in a fixed order.
const std::vector<Target> &allTargets();
/// "sm_90a, sm_100a, sm_103a", for error messages.
std::string targetNames();

} // namespace megac

#endif
