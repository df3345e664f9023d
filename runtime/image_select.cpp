//===- image_select.cpp - Which image of a bundle runs on a device --------===//
#include "megac/runtime/image_select.h"

#include "megac/runtime/error.h"

#include <optional>

namespace megac::rt {

namespace {

struct Target {
  int major = 0, minor = 0;
  char suffix = 0; // 0, 'a' (arch-specific) or 'f' (family)
  int version() const { return major * 10 + minor; }
};

std::optional<Target> parseTarget(std::string_view t) {
  if (t.substr(0, 3) != "sm_")
    return std::nullopt;
  t.remove_prefix(3);
  int number = 0;
  size_t i = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i)
    number = number * 10 + (t[i] - '0');
  if (i < 2 || i > 3)
    return std::nullopt;
  Target out{number / 10, number % 10, 0};
  if (i + 1 == t.size() && (t[i] == 'a' || t[i] == 'f'))
    out.suffix = t[i];
  else if (i != t.size())
    return std::nullopt;
  return out;
}

int suffixRank(char s) { return s == 'a' ? 2 : s == 'f' ? 1 : 0; }

bool ptxRunsOn(const Target &t, int major, int minor) {
  if (t.suffix == 'a')
    return t.major == major && t.minor == minor;
  if (t.suffix == 'f')
    return t.major == major && t.minor <= minor;
  return t.version() <= major * 10 + minor;
}

} // namespace

size_t selectImage(const Manifest &m, int major, int minor, bool allowPtxJit,
                   std::string_view source) {
  std::optional<size_t> cubin, ptx;
  Target bestCubin, bestPtx;
  for (size_t i = 0; i < m.images.size(); ++i) {
    const ImageInfo &img = m.images[i];
    std::optional<Target> t = parseTarget(img.target);
    if (!t)
      continue;
    if (img.kind == ImageKind::Cubin) {
      if (t->major == major && t->minor == minor &&
          (!cubin || suffixRank(t->suffix) > suffixRank(bestCubin.suffix))) {
        cubin = i;
        bestCubin = *t;
      }
    } else if (allowPtxJit && ptxRunsOn(*t, major, minor)) {
      if (!ptx || t->version() > bestPtx.version() ||
          (t->version() == bestPtx.version() &&
           suffixRank(t->suffix) > suffixRank(bestPtx.suffix))) {
        ptx = i;
        bestPtx = *t;
      }
    }
  }
  if (cubin)
    return *cubin;
  if (ptx)
    return *ptx;
  std::string have;
  for (const ImageInfo &img : m.images)
    have += (have.empty() ? "" : ", ") + std::string(imageKindName(img.kind)) +
            " " + img.target;
  throw DriverError(
      "megac: module '" + m.module + "' (" + std::string(source) +
      "): no image runs on this device (sm_" + std::to_string(major) +
      std::to_string(minor) + "): the bundle has " +
      (have.empty() ? "no images" : have) +
      (allowPtxJit ? "" : "; PTX JIT is disabled") +
      " (cubins need the exact architecture; PTX for sm_XYa runs only on "
      "sm_XY)");
}

} // namespace megac::rt
