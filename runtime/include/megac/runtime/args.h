//===- args.h - Launch arguments as the caller gives them -------*- C++ -*-===//
//
// An Arg is a fixed-size value (no heap) so that a launch can take an array of
// them straight from the stack or from a binding's scratch buffer.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_ARGS_H
#define MEGAC_RUNTIME_ARGS_H

#include "megac/runtime/dtype.h"

#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace megac::rt {

constexpr int kMaxDims = 6;

struct Arg {
  enum class Kind : uint8_t { Tensor, Scalar, Infer };

  /// A device tensor. `shape` and `strides` are in elements, as PyTorch gives
  /// them; `strides == nullptr` means contiguous row-major. Throws ArgError for
  /// more than kMaxDims dimensions.
  static Arg tensor(uint64_t ptr, DType dtype, const int64_t *shape, int ndim,
                    const int64_t *strides = nullptr);
  static Arg tensor(uint64_t ptr, DType dtype,
                    std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides = {});

  /// A scalar passed by value: integers as int64, floats as double.
  template <typename T> static Arg scalar(DType dtype, T value) {
    static_assert(std::is_arithmetic_v<T>, "a scalar is a number");
    if constexpr (std::is_floating_point_v<T>)
      return floatScalar(dtype, double(value));
    else
      return intScalar(dtype, int64_t(value));
  }
  static Arg intScalar(DType dtype, int64_t value);
  static Arg floatScalar(DType dtype, double value);

  /// A placeholder for a scalar the runtime infers from a tensor dimension.
  static Arg infer();

  Kind kind = Kind::Infer;
  DType dtype = DType::i64;
  bool hasStrides = false;
  int8_t ndim = 0;
  uint64_t ptr = 0;
  int64_t shape[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};
  int64_t intValue = 0;
  double floatValue = 0;
};

/// A caller-chosen grid that replaces the manifest's grid expressions.
struct Grid {
  int64_t x = 1, y = 1, z = 1;
};

} // namespace megac::rt

#endif // MEGAC_RUNTIME_ARGS_H
