// Probe: the floor of gdn_core at B = 1, HV = 16 launched early. 512 CTAs of 128 threads (rows4's grid), each
// reading 2 KB of "state" before the wait, then (mode) a cold read of q/k/v-sized inputs after it, then writing
// 2 KB of state and its o. Timed per launch in CUDA graphs of launches over rotated sets, launched with
// programmatic stream serialization (early) or plainly.
#include "graph_timing.h"

// mode 0: no read after the wait; 1: one cold 16-byte read a thread after it (q, k, v of its head);
// 2: that read before the wait too (what prefetching q/k/v would give: not allowed in the pipeline);
// 3: empty kernel (wait, trigger, nothing else).
__global__ void __launch_bounds__(128) step(float* state, const uint4* qkv, float* o, int mode) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  if (mode == 3) { asm volatile("griddepcontrol.wait;" ::: "memory"); return; }
  size_t base = (size_t)blockIdx.x * 512 + threadIdx.x * 4;  // 4 rows x 128 floats a CTA
  float4 s = *reinterpret_cast<float4*>(state + base);
  uint4 q = make_uint4(0, 0, 0, 0);
  int head = blockIdx.x / 32;
  if (mode == 2) q = qkv[head * 128 + threadIdx.x];
  asm volatile("griddepcontrol.wait;" ::: "memory");
  if (mode == 1) q = qkv[head * 128 + threadIdx.x];
  float k = __uint_as_float(q.x) + __uint_as_float(q.y) * 0.5f + __uint_as_float(q.z) * 0.25f;
  // a warp reduction like the kernel's (three side by side)
  float a = s.x * k, b = s.y * k, c = s.z * k;
  for (int d = 16; d; d >>= 1) { a += __shfl_xor_sync(~0u, a, d); b += __shfl_xor_sync(~0u, b, d); c += __shfl_xor_sync(~0u, c, d); }
  s.x += a; s.y += b; s.z += c;
  *reinterpret_cast<float4*>(state + base) = s;
  if ((threadIdx.x & 31) == 0) o[blockIdx.x * 4 + threadIdx.x / 32] = a + b + c;
}

int main() {
  const int nsets = 160;  // 160 x (1 MB state + 32 KB qkv) > 3 x L2
  std::vector<float*> st(nsets), o(nsets); std::vector<uint4*> q(nsets);
  for (int i = 0; i < nsets; ++i) {
    CK(cudaMalloc(&st[i], 512 * 512 * 4)); CK(cudaMemset(st[i], 0, 512 * 512 * 4));
    CK(cudaMalloc(&q[i], 16 * 128 * 16)); CK(cudaMemset(q[i], 0, 16 * 128 * 16));
    CK(cudaMalloc(&o[i], 512 * 4 * 4));
  }
  cudaStream_t s; CK(cudaStreamCreate(&s));
  for (int early = 0; early < 2; ++early) {
    for (int mode = 0; mode < 4; ++mode) {
      float us = us_per_launch(s, nsets, [&](int i) {
        launch_pdl(step, dim3(512), dim3(128), s, early, st[i], (const uint4*)q[i], o[i], mode);
      });
      printf("%s mode %d: %.2f us a launch\n", early ? "early" : "plain", mode, us);
    }
  }
  return 0;
}
