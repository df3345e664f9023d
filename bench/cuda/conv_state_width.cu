// Probe: gdn_conv's state access width. bf16 state [slots, C, 3], one token per request.
// V1: one channel a thread, 2-byte taps (megac's current form). V2: two channels, 3 x u32.
// V4: four channels, 3 x u64. V8: eight channels, 3 x 16 B. Timed in CUDA graphs over rotated sets.
#include "graph_timing.h"
#include <cuda_bf16.h>
#include <cstdint>
#include <cstring>

typedef unsigned short u16;
__device__ __forceinline__ float bf(u16 v) { return __uint_as_float(((unsigned)v) << 16); }
__device__ __forceinline__ float silu_fast(float a) { return __fdividef(a, 1.f + __expf(-a)); }
__device__ __forceinline__ u16 tobf(float f) { __nv_bfloat16 h = __float2bfloat16_rn(f); u16 r; memcpy(&r, &h, 2); return r; }

__global__ void v1(u16* conv, const u16* x, const u16* w, const int* slot, u16* y, int C) {
  int b = blockIdx.x, c = blockIdx.y * 128 + threadIdx.x;
  int s = slot[b];
  u16* p = conv + ((size_t)s * C + c) * 3;
  u16 t0 = p[0], t1 = p[1], t2 = p[2];
  u16 xv = x[(size_t)b * C + c];
  uint2 wv = *reinterpret_cast<const uint2*>(w + (size_t)c * 4);
  float acc = __uint_as_float(wv.x << 16) * bf(t0) + __uint_as_float(wv.x & 0xffff0000u) * bf(t1)
            + __uint_as_float(wv.y << 16) * bf(t2) + __uint_as_float(wv.y & 0xffff0000u) * bf(xv);
  y[(size_t)b * C + c] = tobf(silu_fast(acc));
  p[0] = t1; p[1] = t2; p[2] = xv;
}

// N channels a thread: the state is 3N bf16 = 6N bytes, loaded as 3 words of 2N bytes.
template <int N> struct Word;
template <> struct Word<2> { typedef unsigned T; };
template <> struct Word<4> { typedef uint2 T; };
template <> struct Word<8> { typedef uint4 T; };

template <int N, int THREADS>
__global__ void vN(u16* conv, const u16* x, const u16* w, const int* slot, u16* y, int C) {
  typedef typename Word<N>::T W;
  int b = blockIdx.x, c0 = (blockIdx.y * THREADS + threadIdx.x) * N;
  int s = slot[b];
  W* p = reinterpret_cast<W*>(conv + ((size_t)s * C + c0) * 3);
  W st[3] = {p[0], p[1], p[2]};
  W xw = *reinterpret_cast<const W*>(x + (size_t)b * C + c0);
  u16 taps[3 * N], xs[N], ws[4 * N], ys[N];
  memcpy(taps, st, sizeof(taps));
  memcpy(xs, &xw, sizeof(xs));
  const uint4* wp = reinterpret_cast<const uint4*>(w + (size_t)c0 * 4);
#pragma unroll
  for (int i = 0; i < N / 2; ++i) { uint4 q = wp[i]; memcpy(ws + 8 * i, &q, 16); }
#pragma unroll
  for (int c = 0; c < N; ++c) {
    float acc = bf(ws[4 * c]) * bf(taps[3 * c]) + bf(ws[4 * c + 1]) * bf(taps[3 * c + 1])
              + bf(ws[4 * c + 2]) * bf(taps[3 * c + 2]) + bf(ws[4 * c + 3]) * bf(xs[c]);
    ys[c] = tobf(silu_fast(acc));
  }
  u16 nt[3 * N];
#pragma unroll
  for (int c = 0; c < N; ++c) { nt[3 * c] = taps[3 * c + 1]; nt[3 * c + 1] = taps[3 * c + 2]; nt[3 * c + 2] = xs[c]; }
  W yw; memcpy(&yw, ys, sizeof(yw));
  *reinterpret_cast<W*>(y + (size_t)b * C + c0) = yw;
  W out[3]; memcpy(out, nt, sizeof(out));
  p[0] = out[0]; p[1] = out[1]; p[2] = out[2];
}

struct Set { u16 *conv, *x, *w, *y; int* slot; };

int main() {
  int shapes[][2] = {{256, 3072}, {256, 1536}, {64, 3072}, {1, 3072}};
  for (auto& sh : shapes) {
    int B = sh[0], C = sh[1], slots = 2 * B + 3;
    size_t per = (size_t)slots * C * 3 * 2 + (size_t)B * C * 4 + (size_t)C * 8;
    int nsets = std::max<int>(2, (int)((256ull << 20) / per) + 1);
    std::vector<Set> sets(nsets);
    std::vector<int> hs(B);
    for (int i = 0; i < B; ++i) hs[i] = (i * 7919) % slots;  // distinct for slots > B and gcd
    std::sort(hs.begin(), hs.end()); hs.erase(std::unique(hs.begin(), hs.end()), hs.end());
    while ((int)hs.size() < B) hs.push_back(slots - 1 - (int)hs.size());
    std::vector<u16> hconv((size_t)slots * C * 3);
    for (size_t i = 0; i < hconv.size(); ++i) hconv[i] = 0x3f80 + (i % 97);
    for (auto& s : sets) {
      CK(cudaMalloc(&s.conv, (size_t)slots * C * 6)); CK(cudaMalloc(&s.x, (size_t)B * C * 2));
      CK(cudaMalloc(&s.w, (size_t)C * 8)); CK(cudaMalloc(&s.y, (size_t)B * C * 2)); CK(cudaMalloc(&s.slot, B * 4));
      CK(cudaMemcpy(s.conv, hconv.data(), hconv.size() * 2, cudaMemcpyHostToDevice));
      CK(cudaMemset(s.x, 0x3f, (size_t)B * C * 2)); CK(cudaMemset(s.w, 0x3e, (size_t)C * 8));
      CK(cudaMemcpy(s.slot, hs.data(), B * 4, cudaMemcpyHostToDevice));
    }
    // correctness: each variant against v1 on set 0 (state after one step, and y)
    auto run = [&](int v, const Set& s, cudaStream_t st) {
      switch (v) {
        case 1: v1<<<dim3(B, C / 128), 128, 0, st>>>(s.conv, s.x, s.w, s.slot, s.y, C); break;
        case 2: vN<2, 128><<<dim3(B, C / 256), 128, 0, st>>>(s.conv, s.x, s.w, s.slot, s.y, C); break;
        case 4: vN<4, 128><<<dim3(B, C / 512), 128, 0, st>>>(s.conv, s.x, s.w, s.slot, s.y, C); break;
        case 8: vN<8, 128><<<dim3(B, C / 1024), 128, 0, st>>>(s.conv, s.x, s.w, s.slot, s.y, C); break;
        case 9: vN<8, 64><<<dim3(B, C / 512), 64, 0, st>>>(s.conv, s.x, s.w, s.slot, s.y, C); break;
        case 10: vN<4, 64><<<dim3(B, C / 256), 64, 0, st>>>(s.conv, s.x, s.w, s.slot, s.y, C); break;
      }
    };
    int variants[] = {1, 2, 4, 8, 9, 10};
    std::vector<u16> ref_conv, ref_y;
    for (int v : variants) {
      CK(cudaMemcpy(sets[0].conv, hconv.data(), hconv.size() * 2, cudaMemcpyHostToDevice));
      run(v, sets[0], 0); CK(cudaDeviceSynchronize());
      std::vector<u16> oc(hconv.size()), oy((size_t)B * C);
      CK(cudaMemcpy(oc.data(), sets[0].conv, oc.size() * 2, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(oy.data(), sets[0].y, oy.size() * 2, cudaMemcpyDeviceToHost));
      if (v == 1) { ref_conv = oc; ref_y = oy; }
      else if (oc != ref_conv || oy != ref_y) printf("B=%d C=%d v%d MISMATCH\n", B, C, v);
    }
    cudaStream_t st; CK(cudaStreamCreate(&st));
    printf("B=%d C=%d sets=%d:", B, C, nsets);
    for (int v : variants) {
      int passes = std::max(1, 64 / nsets);
      float us = us_per_launch(st, passes * nsets, [&](int i) { run(v, sets[i % nsets], st); }, 25);
      printf("  v%d %.2f us", v, us);
    }
    printf("\n");
    for (auto& s : sets) { cudaFree(s.conv); cudaFree(s.x); cudaFree(s.w); cudaFree(s.y); cudaFree(s.slot); }
  }
  return 0;
}
