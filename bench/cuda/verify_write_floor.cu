// Probe: the floor of gdn_verify's memory traffic at its largest benchmark shape (B = 112, T = 4, HV = 8, HK = 2).
// The kernel reads each head's 64 KB state once and writes it T = 4 times (inter, f32, streaming stores), so its
// bytes are 20% reads and 80% writes, where a copy (the benchmark's yardstick) is half and half. This times the
// kernel's memory pattern alone in CUDA, as bench/run_bench.py times kernels (graphs of launches over rotated
// buffers, the median), to say whether 90% of the copy bandwidth is within reach of such a mix at all.
// The grid is gdn_verify's rows_first variant: 7168 CTAs of 128 threads, CTA i on row block i % 8 of head pair i / 8;
// a thread holds 4 x 4 f32 of its block's 16 rows (4 rows apart), each warp store covering one 512-byte row.
//   mode 0: the kernel's pattern: read the state, then per step a trivial update and 4 streaming 16-byte stores.
//   mode 1: mode 0 with plain stores (no .cs).
//   mode 2: the writes alone (no state read): the write bandwidth of 229 MB.
//   mode 3: mode 0 with the step's q, k, v loads (the kernel's small inputs, as it loads them).
//   mode 4: a copy of the same bytes, half read and half write, by the same grid (each CTA reads and writes
//           40 KB, half its 80 KB), for the percentages.
//   mode 5: mode 0 with each step's 8 KB block written by one bulk copy (TMA, cp.async.bulk) from shared memory,
//           two buffers a CTA; mode 6: the same with four buffers (one a step, no wait between steps).
// Then mode 0 again with shared memory reserved (dynamic, unused) to cap the CTAs a SM: whether the bulk copies'
// gain (mode 6 holds 32 KB of buffers a CTA) is their own or that of fewer CTAs at a time.
// Percentages are of this program's own 1 GiB copy (a 16-byte elementwise kernel), which runs below the
// benchmark's copy bandwidth: compare the times.
#include "graph_timing.h"
#include <cstdint>
#include <cstring>

constexpr int B = 112, T = 4, HV = 8, HK = 2, D = 128, BV = 16;
constexpr int CTAS = B * HV * (D / BV);  // 7168
constexpr size_t STATE_FLOATS = (size_t)B * HV * D * D;          // 14.7 M f32 = 57 MB (one slot a request)
constexpr size_t INTER_FLOATS = (size_t)B * T * HV * D * D;      // 229 MB

struct Set {
  const float* S; float* inter; const uint16_t* q; const uint16_t* k; const uint16_t* v; uint16_t* o;
  const float* copy_src; float* copy_dst;
};

__device__ __forceinline__ void st_cs(float* p, float4 x) {
  asm volatile("st.global.cs.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(x.x), "f"(x.y), "f"(x.z), "f"(x.w)
               : "memory");
}

// One thread's 4 x 16 bytes of the step into buffer `buf`, then thread 0 writes the 8 KB block with one bulk copy.
__device__ void bulk_store(float* dst, float4 (&s)[4], float4* smem, int buf, int nbuf, int warp, int lane) {
  float4* tile = smem + buf * (BV * D / 4);
  if (nbuf == 2) {  // the buffer's copy issued two steps ago must have read it
    if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory");
    __syncthreads();
  }
  for (int j = 0; j < 4; ++j) tile[((warp + 4 * j) * D) / 4 + lane] = s[j];
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned src = (unsigned)__cvta_generic_to_shared(tile);
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(src), "n"(BV * D * 4)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
  }
}

// NBUF: the shared buffers of the bulk-copy modes (0 for the others, so that shared memory limits no other mode's
// CTAs a SM).
template <int NBUF>
__global__ void __launch_bounds__(128) step(Set p, int mode) {
  __shared__ __align__(128) float4 smem[NBUF ? NBUF * BV * D / 4 : 1];
  const int pair = blockIdx.x / (D / BV), block = blockIdx.x % (D / BV);
  const int request = pair / HV, h = pair % HV, kh = h / (HV / HK);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  // element (row r, col c) of this block: r = block * 16 + warp + 4 * j, c = lane * 4 .. + 3
  const size_t within = (size_t)(block * BV + warp) * D + lane * 4;
  if (mode == 4) {
    // 5 x 4 x 16 bytes a thread read and written: the kernel's 80 KB a CTA, half each way
    const size_t base = (size_t)blockIdx.x * 5 * BV * D / 2;
    for (int i = 0; i < 5 * 4 / 2; ++i) {
      size_t off = base + (size_t)i * 512 + threadIdx.x * 4;
      *reinterpret_cast<float4*>(p.copy_dst + off) = *reinterpret_cast<const float4*>(p.copy_src + off);
    }
    return;
  }
  float4 s[4];
  const float* state = p.S + (size_t)pair * D * D + within;
  for (int j = 0; j < 4; ++j)
    s[j] = mode == 2 ? make_float4(lane, warp, j, 1.f) : *reinterpret_cast<const float4*>(state + j * 4 * D);
  for (int t = 0; t < T; ++t) {
    float g = 0.999f;
    if (mode == 3) {
      const int token = request * T + t;
      uint16_t qv = p.q[(token * HK + kh) * D + lane * 4], kv = p.k[(token * HK + kh) * D + lane * 4];
      uint16_t vv = p.v[(token * HV + h) * D + block * BV + warp];
      g = __uint_as_float(((uint32_t)(qv ^ kv ^ vv) << 16) | 0x3f000000u);
    }
    float* out = p.inter + ((size_t)(request * T + t) * HV + h) * D * D + within;
    for (int j = 0; j < 4; ++j) {
      s[j].x = s[j].x * g + 1.f; s[j].y = s[j].y * g + 1.f; s[j].z = s[j].z * g + 1.f; s[j].w = s[j].w * g + 1.f;
      if (mode == 1) *reinterpret_cast<float4*>(out + j * 4 * D) = s[j];
      else if (mode != 5 && mode != 6) st_cs(out + j * 4 * D, s[j]);
    }
    if (mode == 5 || mode == 6)
      bulk_store(p.inter + ((size_t)(request * T + t) * HV + h) * D * D + block * BV * D, s, smem,
                 mode == 5 ? t % 2 : t, mode == 5 ? 2 : 4, warp, lane);
    if (lane == 0) p.o[((request * T + t) * HV + h) * D + block * BV + warp] = (uint16_t)s[0].x;
  }
  if ((mode == 5 || mode == 6) && threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

// The yardstick: an elementwise copy in 16-byte words (as PyTorch's src * 1, the faster of the benchmark's two
// copies on an H200).
__global__ void copy16(const float4* src, float4* dst, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

__global__ void fill(float* x, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    x[i] = (float)(i % 1009);
}

int main() {
  const int nsets = 4;  // 4 x 292 MB: more than the L2 many times over (each launch moves ~290 MB anyway)
  std::vector<Set> sets(nsets);
  for (auto& st : sets) {
    float *S, *inter, *cs, *cd; uint16_t *q, *k, *v, *o;
    CK(cudaMalloc(&S, STATE_FLOATS * 4)); fill<<<1024, 256>>>(S, STATE_FLOATS); CK(cudaGetLastError());
    CK(cudaMalloc(&inter, INTER_FLOATS * 4));
    CK(cudaMalloc(&q, (size_t)B * T * HK * D * 2)); CK(cudaMemset(q, 0, (size_t)B * T * HK * D * 2));
    CK(cudaMalloc(&k, (size_t)B * T * HK * D * 2)); CK(cudaMemset(k, 0, (size_t)B * T * HK * D * 2));
    CK(cudaMalloc(&v, (size_t)B * T * HV * D * 2)); CK(cudaMemset(v, 0, (size_t)B * T * HV * D * 2));
    CK(cudaMalloc(&o, (size_t)B * T * HV * D * 2));
    const size_t half = (STATE_FLOATS + INTER_FLOATS) / 2;
    CK(cudaMalloc(&cs, half * 4)); CK(cudaMemset(cs, 0, half * 4)); CK(cudaMalloc(&cd, half * 4));
    st = Set{S, inter, q, k, v, o, cs, cd};
  }
  cudaStream_t s; CK(cudaStreamCreate(&s));
  const double bytes = (STATE_FLOATS + INTER_FLOATS) * 4.0;
  // the yardstick: a 1 GiB copy (512 MiB each way, read + write counted), as the benchmark's copy bandwidth
  float *big_src, *big_dst; const size_t big = (size_t)1 << 29;
  CK(cudaMalloc(&big_src, big)); CK(cudaMalloc(&big_dst, big)); CK(cudaMemset(big_src, 0, big));
  float copy_us = us_per_launch(s, 8, [&](int) {
    copy16<<<132 * 16, 256, 0, s>>>((const float4*)big_src, (float4*)big_dst, big / 16);
  });
  double copy_gbs = 2.0 * big / copy_us / 1e3;
  printf("1 GiB copy (16-byte elementwise kernel): %.1f us, %.0f GB/s\n", copy_us, copy_gbs);
  // The bulk-copy modes write what mode 0 writes (every element: the state is not uniform).
  std::vector<float> want(INTER_FLOATS), got(INTER_FLOATS);
  for (int mode : {0, 5, 6}) {
    CK(cudaMemset(sets[0].inter, 0xff, INTER_FLOATS * 4));
    auto kernel = mode == 5 ? step<2> : mode == 6 ? step<4> : step<0>;
    launch_pdl(kernel, dim3(CTAS), dim3(128), s, false, sets[0], mode);
    CK(cudaMemcpy(mode ? got.data() : want.data(), sets[0].inter, INTER_FLOATS * 4, cudaMemcpyDeviceToHost));
    if (mode && memcmp(got.data(), want.data(), INTER_FLOATS * 4) != 0) { printf("mode %d MISMATCH\n", mode); return 1; }
  }
  printf("modes 5 and 6 write what mode 0 writes\n");
  for (int round = 0; round < 2; ++round)
    for (int mode = 0; mode <= 6; ++mode) {
      auto kernel = mode == 5 ? step<2> : mode == 6 ? step<4> : step<0>;
      float us = us_per_launch(s, 16, [&](int i) { launch_pdl(kernel, dim3(CTAS), dim3(128), s, false, sets[i % nsets], mode); });
      double moved = mode == 2 ? INTER_FLOATS * 4.0 : bytes;
      printf("round %d mode %d: %.2f us, %.0f GB/s, %.1f%% of the copy bandwidth (kernel's bytes: %.1f%%)\n", round,
             mode, us, moved / us / 1e3, 100.0 * moved / us / 1e3 / copy_gbs, 100.0 * bytes / us / 1e3 / copy_gbs);
    }
  // CTAs a SM against time: mode 0 with unused dynamic shared memory reserved.
  for (int mode : {0}) {
    auto kernel = step<0>;
    CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
    for (int pad_kb : {0, 4, 8, 12, 16, 20, 24, 32, 48, 64}) {
      int ctas = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&ctas, kernel, 128, pad_kb * 1024));
      float us = us_per_launch(s, 16, [&](int i) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(CTAS); cfg.blockDim = dim3(128); cfg.stream = s; cfg.dynamicSmemBytes = pad_kb * 1024;
        CK(cudaLaunchKernelEx(&cfg, kernel, sets[i % nsets], mode));
      });
      printf("mode %d, %2d KB reserved: %2d CTAs a SM, %.2f us\n", mode, pad_kb, ctas, us);
    }
  }
  return 0;
}
