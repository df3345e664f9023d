//===- bundle.h - Module bundles (.mgb): read, write, embed -----*- C++ -*-===//
//
// The binary container of docs/bundle.md: a manifest section and one blob
// section (PTX or cubin) per image. Readers refuse anything that is not exactly
// a version-1 bundle, naming the file and what is wrong.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_BUNDLE_H
#define MEGAC_RUNTIME_BUNDLE_H

#include "megac/runtime/manifest.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace megac::rt {

constexpr uint32_t kBundleFormatVersion = 1;
constexpr char kBundleMagic[8] = {'M', 'E', 'G', 'A', 'C', 'B', 'N', 'D'};

struct Bundle {
  Manifest manifest;
  /// blobs[i] is section i + 1; images name them by section number.
  std::vector<std::string> blobs;

  /// The bytes of an image of this bundle's manifest.
  const std::string &imageData(const ImageInfo &image) const;
};

/// Parses and validates bundle bytes. `name` (usually the file path) is used
/// in every error message. Throws BundleError or ManifestError.
Bundle readBundle(const void *data, size_t size, std::string_view name);
Bundle readBundleFile(const std::string &path);

/// Serializes a bundle; throws BundleError if an image names a missing blob.
std::string writeBundle(const Bundle &bundle);
void writeBundleFile(const Bundle &bundle, const std::string &path);

/// A C++ header that embeds `bytes` for ahead-of-time use:
///   const unsigned char NAME[] = {...}; const size_t NAME_size = N;
/// Load it with readBundle(NAME, NAME_size, "NAME"). Throws BundleError if
/// `symbol` is not a C identifier.
std::string bundleToCppHeader(std::string_view bytes, std::string_view symbol);

} // namespace megac::rt

#endif // MEGAC_RUNTIME_BUNDLE_H
