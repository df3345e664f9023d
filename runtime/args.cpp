//===- args.cpp - Launch arguments as the caller gives them ---------------===//
#include "megac/runtime/args.h"

#include "megac/runtime/error.h"

#include <cstdio>
#include <string>

namespace megac::rt {

Arg Arg::tensor(uint64_t ptr, DType dtype, const int64_t *shape, int ndim,
                const int64_t *strides) {
  if (ndim < 0 || ndim > kMaxDims)
    throw ArgError("megac: a tensor argument has " + std::to_string(ndim) +
                   " dimensions; at most " + std::to_string(kMaxDims) +
                   " are supported");
  Arg a;
  a.kind = Kind::Tensor;
  a.dtype = dtype;
  a.ptr = ptr;
  a.ndim = int8_t(ndim);
  a.hasStrides = strides != nullptr;
  for (int i = 0; i < ndim; ++i) {
    a.shape[i] = shape[i];
    a.strides[i] = strides ? strides[i] : 0;
  }
  return a;
}

Arg Arg::tensor(uint64_t ptr, DType dtype, std::initializer_list<int64_t> shape,
                std::initializer_list<int64_t> strides) {
  if (strides.size() != 0 && strides.size() != shape.size())
    throw ArgError("megac: a tensor argument has " +
                   std::to_string(shape.size()) + " dimensions but " +
                   std::to_string(strides.size()) + " strides");
  return tensor(ptr, dtype, shape.begin(), int(shape.size()),
                strides.size() ? strides.begin() : nullptr);
}

Arg Arg::intScalar(DType dtype, int64_t value) {
  Arg a;
  a.kind = Kind::Scalar;
  a.dtype = dtype;
  a.intValue = value;
  a.floatValue = double(value);
  return a;
}

Arg Arg::floatScalar(DType dtype, double value) {
  Arg a;
  a.kind = Kind::Scalar;
  a.dtype = dtype;
  a.floatValue = value;
  if (isInteger(dtype)) {
    // Only an exact integer may stand for an integer parameter.
    if (!(value >= -9.2e18 && value <= 9.2e18) || double(int64_t(value)) != value) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", value);
      throw ArgError("megac: scalar " + std::string(buf) + " given as " +
                     std::string(dtypeName(dtype)) + ", not an integer");
    }
    a.intValue = int64_t(value);
  }
  return a;
}

Arg Arg::infer() { return Arg(); }

} // namespace megac::rt
