//===- manifest.h - The JSON manifest of a module bundle --------*- C++ -*-===//
//
// Plain data mirroring the schema in docs/bundle.md. Parsing validates the
// schema (types, known dtypes, kinds); expressions are compiled later, per
// kernel, by KernelSignature (signature.h).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_MANIFEST_H
#define MEGAC_RUNTIME_MANIFEST_H

#include "megac/runtime/dtype.h"

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace megac::rt {

constexpr int kManifestFormatVersion = 1;

enum class ParamKind { Tensor, Scalar };

struct ParamInfo {
  std::string name;
  ParamKind kind = ParamKind::Tensor;
  DType dtype = DType::f32;
  /// Tensors: the byte alignment the compiled code assumes.
  int64_t align = 1;
  /// Tensors: one expression per dimension of a contiguous row-major tensor;
  /// empty means a pointer to one element.
  std::vector<std::string> shape;
  /// Scalars: the divisibility the compiled code assumes (1 = none).
  int64_t multipleOf = 1;
};

/// The names access bounds read for the launch grid's x, y and z.
inline constexpr const char *kBoundGridNames[3] = {"grid_x", "grid_y", "grid_z"};

/// The elements one unmasked access of a variant reaches (docs/bundle.md,
/// bounds): offsets from `min` to `max` into tensor parameter `param`, as
/// expressions over the integer scalars and kBoundGridNames (the launch
/// grid), whenever `when` holds ("": always). Accesses that differ by a
/// constant share one bound: `access` at `at` reaches the highest element,
/// `minAccess` at `minAt` the lowest ("": the same access). `masked`: the
/// accesses have a mask, which lets them reach these elements (a refusal
/// then names the mask).
struct AccessBoundInfo {
  std::string param;
  std::string access; ///< load, store or atomic (for messages)
  std::string at;     ///< FILE:LINE:COL of the access
  std::string when;
  std::string min;
  std::string max;
  std::string minAccess;
  std::string minAt;
  bool masked = false;
};

struct VariantInfo {
  std::string name;
  std::string symbol;
  int maxnreg = 0;
  int minCtasPerSm = 0;
  /// Selection condition; "" always holds. Its `ctas` is the kernel's grid's.
  std::string when;
  /// Warps per CTA when the variant's differ from the kernel's (0: the
  /// kernel's num_warps).
  int numWarps = 0;
  /// The variant's own grid, when its constants change the kernel's (empty:
  /// the kernel's grid).
  std::vector<std::string> grid;
  /// Whether this variant is launched early, when it differs from the
  /// kernel's early_launch (unset: the kernel's).
  std::optional<bool> earlyLaunch;
  /// What its unmasked accesses reach, where megac could tell; the runtime
  /// refuses a launch that would leave a tensor.
  std::vector<AccessBoundInfo> bounds;
};

struct KernelInfo {
  std::string name;
  int numWarps = 4;
  int64_t sharedBytes = 0;
  std::array<std::string, 3> grid = {"1", "1", "1"};
  std::vector<ParamInfo> params;
  std::vector<VariantInfo> variants;
  /// `@early_launch`: the kernel waits for the kernel before it on the stream
  /// (griddepcontrol.wait), so it may be launched while that one still runs
  /// (programmatic stream serialization; LoadOptions::earlyLaunch).
  bool earlyLaunch = false;
  /// Some pointer offset of the kernel (or a variant) is 64-bit. Without,
  /// offsets are 32-bit and the runtime refuses a tensor of 2^31 elements or
  /// more, whose offsets would wrap.
  bool offsets64 = false;
};

struct ResourceUsage {
  int registers = 0;
  int spills = 0;
  int stack = 0;
  int shared = 0;
};

enum class ImageKind { Ptx, Cubin };

struct ImageInfo {
  std::string target; ///< e.g. "sm_90a"
  ImageKind kind = ImageKind::Ptx;
  int section = 1;
  /// ptxas's report per variant symbol, when ptxas ran.
  std::map<std::string, ResourceUsage> resources;
};

struct Manifest {
  int formatVersion = kManifestFormatVersion;
  std::string compilerVersion;
  std::string module;
  std::string sourceHash;
  std::vector<KernelInfo> kernels;
  std::vector<ImageInfo> images;

  /// Null when absent.
  const KernelInfo *findKernel(std::string_view name) const;
};

/// Whether variant `variant` of `kernel` was compiled to be launched early (it
/// waits for the prior kernel itself): its own early_launch, else the
/// kernel's. The runtime launches it so unless LoadOptions::earlyLaunch is off.
bool launchesEarly(const KernelInfo &kernel, size_t variant);

/// Throws ManifestError naming `source` (the bundle file) and the JSON path of
/// the offending field, e.g. "kernels[0].params[2].dtype: unknown dtype 'f33'".
Manifest parseManifest(std::string_view json, std::string_view source);
std::string manifestToJson(const Manifest &manifest);

std::string_view imageKindName(ImageKind kind);

bool operator==(const ParamInfo &a, const ParamInfo &b);
bool operator==(const AccessBoundInfo &a, const AccessBoundInfo &b);
bool operator==(const VariantInfo &a, const VariantInfo &b);
bool operator==(const KernelInfo &a, const KernelInfo &b);
bool operator==(const ResourceUsage &a, const ResourceUsage &b);
bool operator==(const ImageInfo &a, const ImageInfo &b);
bool operator==(const Manifest &a, const Manifest &b);

} // namespace megac::rt

#endif // MEGAC_RUNTIME_MANIFEST_H
