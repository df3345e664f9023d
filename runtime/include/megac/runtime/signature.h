//===- signature.h - A manifest kernel compiled for fast launches -*- C++
//-*-===//
//
// Everything a launch decides without a GPU: argument checks against the
// manifest, inference of omitted scalars, the grid, the variant, and the
// kernel parameter buffer. Kept apart from the driver so that it is tested on
// machines without CUDA, and so the binding can reuse it.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_SIGNATURE_H
#define MEGAC_RUNTIME_SIGNATURE_H

#include "megac/runtime/args.h"
#include "megac/runtime/expr.h"
#include "megac/runtime/manifest.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace megac::rt {

/// Kernels with more parameters are refused at load time.
constexpr int kMaxParams = 64;

/// What a launch reads of its device: variant conditions read `sms` and
/// `l2_mb`, grids `sms`. Module reads both of the context's device; tests and
/// the Python `prepare` state them.
struct DeviceFacts {
  int64_t sms = 0;  ///< multiprocessors (CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
  int64_t l2Mb = 0; ///< L2 cache in MiB, rounded down (CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)
};

/// The outcome of KernelSignature::prepare: ready for cuLaunchKernel. It points
/// into itself (params -> values), so it is filled in place, never copied.
struct LaunchConfig {
  LaunchConfig() = default;
  LaunchConfig(const LaunchConfig &) = delete;
  LaunchConfig &operator=(const LaunchConfig &) = delete;

  uint32_t grid[3] = {1, 1, 1};
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
  int variant = 0;
  int numParams = 0;
  union Value {
    uint64_t u64;
    int64_t i64;
    uint32_t u32;
    uint16_t u16;
    uint8_t u8;
    float f32;
    double f64;
  };
  Value values[kMaxParams];
  void *params[kMaxParams];
  /// Scalar values by parameter index, then ctas, sms, early, the grid's
  /// x, y, z and l2_mb: what expressions read.
  int64_t env[kMaxParams + 7];

  /// A zero grid dimension: there is nothing to launch.
  bool empty() const { return grid[0] == 0 || grid[1] == 0 || grid[2] == 0; }
};

class KernelSignature {
public:
  /// Compiles the kernel's expressions; throws ManifestError naming the kernel
  /// and the expression on any error.
  explicit KernelSignature(KernelInfo info);

  const KernelInfo &info() const { return info_; }
  const std::string &name() const { return info_.name; }

  /// Checks `args` against the manifest, binds and infers scalars, computes the
  /// kernel's grid (or takes `grid`), picks the first variant whose condition
  /// holds on `device` (`ctas` is that grid's; `early` says
  /// whether the caller launches early-launch variants early, which a
  /// condition reads as `early`), takes the variant's own grid and warps
  /// where it has them (a given `grid` stays), and fills `out`. Allocates
  /// nothing unless it throws ArgError "megac: kernel 'K': parameter 'P':
  /// REASON".
  void prepare(const Arg *args, size_t count, const DeviceFacts &device, const Grid *grid,
               LaunchConfig &out, bool early = false) const;

  /// The variant index prepare() would pick for a grid of `ctas` CTAs, with
  /// scalars already bound in `env` (for tests and diagnostics).
  int selectVariant(int64_t *env, int64_t ctas, const DeviceFacts &device,
                    bool early = false) const;

private:
  struct CompiledParam {
    std::vector<Expr> shape;
    std::vector<bool> anyExtent; // shape entry "_": not checked
    /// For a scalar that may be omitted: the tensor and dimension it is read
    /// from (the first tensor whose shape entry is exactly its name).
    int inferTensor = -1;
    int inferDim = -1;
  };

  [[noreturn]] void refuse(size_t param, const std::string &why) const;
  void bindArgs(const Arg *args, size_t count, int *argOf,
                LaunchConfig &out) const;
  void checkShapes(const Arg *args, const int *argOf, LaunchConfig &out) const;
  void computeGrid(const Grid *grid, const DeviceFacts &device, bool early,
                   LaunchConfig &out) const;
  void packParams(const Arg *args, const int *argOf, LaunchConfig &out) const;
  /// Refuses a launch whose variant's accesses would reach past a tensor.
  void checkBounds(const Arg *args, const int *argOf, LaunchConfig &out) const;
  [[noreturn]] void refuseBound(const Arg *args, const int *argOf, const LaunchConfig &out,
                                size_t bound, int64_t lo, int64_t hi, int64_t numel) const;

  /// The grid of `info_.grid` (variant < 0) or of a variant with its own.
  void evalGrid(int variant, int64_t *env, int64_t g[3]) const;

  KernelInfo info_;
  std::vector<CompiledParam> params_;
  Expr grid_[3];
  std::vector<Expr> when_;
  /// Per variant: its own grid (unset when it has none: info_.variants[v].grid
  /// is empty) and its CTA size in threads.
  std::vector<std::array<Expr, 3>> variantGrid_;
  std::vector<uint32_t> threads_;
  /// Per variant: its accesses' bounds (when, min, max, the tensor's index).
  struct CompiledBound {
    Expr when, min, max;
    size_t param = 0;
  };
  std::vector<std::vector<CompiledBound>> bounds_;
  /// What decides the bounds (signature.cpp, BoundsMemo): the integer
  /// scalars' indices and those of the bounded tensors with a `_` extent; and
  /// the inputs of the last launch whose bounds held, shared by copies (null:
  /// no bounds at all).
  std::vector<int> boundScalars_, boundTensors_;
  struct BoundsMemo;
  std::shared_ptr<BoundsMemo> memo_;
  int numInferable_ = 0;
  int ctasIndex_ = 0;
  int smsIndex_ = 0;
  int earlyIndex_ = 0;
  int gridIndex_ = 0; ///< grid_x; grid_y and grid_z follow
  int l2Index_ = 0;
};

} // namespace megac::rt

#endif // MEGAC_RUNTIME_SIGNATURE_H
