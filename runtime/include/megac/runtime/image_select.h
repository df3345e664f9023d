//===- image_select.h - Which image of a bundle runs on a device -*- C++
//-*-===//
#ifndef MEGAC_RUNTIME_IMAGE_SELECT_H
#define MEGAC_RUNTIME_IMAGE_SELECT_H

#include "megac/runtime/manifest.h"

#include <string_view>

namespace megac::rt {

/// Picks the image for a device of compute capability major.minor:
///  1. a cubin whose target is exactly that architecture (sm_90a before
///     sm_90 on a 9.0 device);
///  2. when `allowPtxJit`, the PTX of the newest compatible target: sm_XY runs
///     on XY and later, sm_XYa only on XY, sm_XYf on the same major.
/// Returns the index into manifest.images; throws DriverError naming the
/// module, `source`, the device and the images present.
size_t selectImage(const Manifest &manifest, int major, int minor,
                   bool allowPtxJit, std::string_view source);

} // namespace megac::rt

#endif // MEGAC_RUNTIME_IMAGE_SELECT_H
