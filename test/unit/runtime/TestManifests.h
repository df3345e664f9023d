//===- TestManifests.h - Manifests shared by the runtime tests --*- C++ -*-===//
#ifndef MEGAC_TEST_RUNTIME_TESTMANIFESTS_H
#define MEGAC_TEST_RUNTIME_TESTMANIFESTS_H

#include "megac/runtime/bundle.h"
#include "megac/runtime/signature.h"

namespace megac::rt::test {

/// The device the variants' thresholds were measured on: an H200 (132 SMs,
/// 60 MiB of L2); an H100 SXM has 132 and 50.
inline constexpr DeviceFacts kH200{132, 60};
inline constexpr DeviceFacts kH100{132, 50};

/// vector_add as in docs/bundle.md: x, y, out of shape [n], n a multiple of 16.
inline KernelInfo vectorAddKernel() {
  KernelInfo k;
  k.name = "vector_add";
  k.numWarps = 4;
  k.grid = {"cdiv(n, 1024)", "1", "1"};
  k.params = {
      {"x", ParamKind::Tensor, DType::f32, 16, {"n"}, 1},
      {"y", ParamKind::Tensor, DType::f32, 16, {"n"}, 1},
      {"out", ParamKind::Tensor, DType::f32, 16, {"n"}, 1},
      {"n", ParamKind::Scalar, DType::i32, 1, {}, 16},
  };
  k.variants = {{"default", "vector_add", 0, 0, "", 0, {}, {}, {}}};
  return k;
}

/// gdn_core with the 168-register window variant of docs/bundle.md.
inline KernelInfo gdnCoreKernel() {
  KernelInfo k;
  k.name = "gdn_core";
  k.numWarps = 4;
  k.grid = {"b", "h", "1"};
  k.params = {
      {"state",
       ParamKind::Tensor,
       DType::bf16,
       16,
       {"b", "h", "128", "128"},
       1},
      {"scale", ParamKind::Tensor, DType::f32, 4, {}, 1},
      {"b", ParamKind::Scalar, DType::i32, 1, {}, 1},
      {"h", ParamKind::Scalar, DType::i32, 1, {}, 1},
  };
  k.variants = {
      {"cap168", "gdn_core__cap168", 168, 3,
       "ctas > 2 * sms && ctas <= 3 * sms", 0, {}, {}, {}},
      {"default", "gdn_core", 0, 0, "", 0, {}, {}, {}},
  };
  return k;
}

inline Bundle sampleBundle() {
  Bundle b;
  b.manifest.compilerVersion = "0.1.0";
  b.manifest.module = "vector_add";
  b.manifest.sourceHash = "9f1c2a7b3d4e5f60";
  b.manifest.kernels = {vectorAddKernel(), gdnCoreKernel()};
  ImageInfo ptx{"sm_90a", ImageKind::Ptx, 1, {}};
  ImageInfo cubin{"sm_90a", ImageKind::Cubin, 2, {}};
  cubin.resources["gdn_core"] = {160, 0, 0, 0};
  cubin.resources["gdn_core__cap168"] = {168, 4, 16, 0};
  b.manifest.images = {ptx, cubin};
  b.blobs = {std::string(".version 8.0\n.target sm_90a\n"),
             std::string("\x7f"
                         "ELF\0\1\2\3 cubin bytes",
                         20)};
  return b;
}

} // namespace megac::rt::test

#endif // MEGAC_TEST_RUNTIME_TESTMANIFESTS_H
