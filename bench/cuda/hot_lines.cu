// Probe: do gdn_core's reads after the early launch's wait cost more because many CTAs read the same lines?
// At B = 1, HV = 16 its `prefetch` variant is 512 CTAs of 4 warps (32 CTAs a head); every warp reads its head's q
// and k (256 bytes each: 128 warps a line), and a and b, 16 bf16 each, are one 32-byte line each for all 2,048
// warps. The probe of early_launch_steps.cu measured each such read adding to the launch; this one asks whether it
// is the sharing. Each mode is its own kernel (a template), so that no mode's code grows another's (the kernel's
// size moves the floor: results/tuning_gdn_b1_reads_after_wait.md). Same grid, graph and cold rotated inputs as
// early_launch_steps.cu; every launch early.
//   mode 0: the floor: one 16-byte read a thread after the wait, its head's 2 KB (shared by the head's 32 CTAs).
//   mode 1: 0 with every CTA reading the same 2 KB.
//   mode 2: 0 with each CTA its own 2 KB.
//   mode 3: gdn_core's five reads after the wait (q and k 8 bytes a lane, v a bf16 a warp, a and b a bf16 each).
//   mode 4: 3 with a and b at a line of their own for each head.
//   mode 5: 3 with q, k, a and b read by the CTA's first warp only, handed over in shared memory.
//   mode 6: 3 with each CTA its own copy of q, k, a and b (no line shared between CTAs).
//   mode 7: 3 with gdn_core's math (its `prefetch` variant in CUDA, as early_launch_steps.cu's mode 5: five warp
//           reductions side by side, rsqrt, sigmoid, the fast softplus, the state update and o), the state's
//           address read from slot[request] before the wait.
//   mode 8: 7 without the slot's indirection.
//   mode 9, 10, 11: 8 written for LPR lanes a row (16, 8 and 32: 128 / LPR state values a lane), so that each
//           reduction takes log2(LPR) shuffles; still 4 rows a CTA (64, 32 and 128 threads), 512 CTAs. Every warp
//           makes five reductions side by side, and an SM shuffles for all its warps: fewer lanes a row, fewer
//           shuffles in all. 11 is 8 again through this code.
//   mode 12: 0 without its reduction (one read after the wait and nothing to shuffle).
//   mode 13: 0 with its three reductions over 8 lanes (3 shuffles each) instead of 32 (5 each).
//   mode 14: 0 with its reduction's code run once before the wait on a zero word, its stores skipped (a loop of
//            two passes, not unrolled): if the time a reduction adds is fetching its instructions, the pass after
//            the wait finds them in the instruction cache.
//   mode 15: 12 with code that never runs (a branch on a runtime value, 0 x 48 multiply-adds): does the kernel's
//            size alone move the time?
//   mode 16: 11 (gdn_core's math, 32 lanes a row) with its five reductions as one reduce-scatter (the five sums,
//            padded to eight, halved over the lanes level by level: 4 + 2 + 1 + 1 + 1 shuffles) and a broadcast of
//            each sum (5 shuffles): 14 shuffles a warp instead of 25, over six levels instead of five.
//   mode 17: 11 with its code after the wait run once before the wait too (as 14: loads and stores off in that pass).
//   mode 18: 11 again through the code of 16 and 17 (one pass, butterflies): their control.
#include "graph_timing.h"
#include <cstdint>

__device__ __forceinline__ float bf(uint32_t h) { return __uint_as_float(h << 16); }

struct Args {
  float* state; const uint4* words; const uint2* q; const uint2* k; const uint16_t* v; const uint16_t* a;
  const uint16_t* b; float* o; const int* slot; const float* a_log; const float* dt_bias;
};

// What every mode ends with: the state row updated from one number, o written, as early_launch_steps.cu's floor.
__device__ __forceinline__ void finish(const Args& p, float4 s, float k, size_t base, int row, int lane) {
  float x = s.x * k, y = s.y * k, z = s.z * k;
  for (int d = 16; d; d >>= 1) {
    x += __shfl_xor_sync(~0u, x, d); y += __shfl_xor_sync(~0u, y, d); z += __shfl_xor_sync(~0u, z, d);
  }
  s.x += x; s.y += y; s.z += z;
  *reinterpret_cast<float4*>(p.state + base) = s;
  if (lane == 0) p.o[row] = x + y + z;
}

// gdn_core's gates from its row sums and scalars: the norms' scales, the state's decay and the update's u.
struct Gates { float rq, rk, decay, u; };
__device__ __forceinline__ Gates gates(float qq, float kk, float skv, float vv, float av, float bv, float alog,
                                       float bias) {
  const float rq = rsqrtf(qq + 1e-6f) * 0.08838834764831845f, rk = rsqrtf(kk + 1e-6f);
  const float beta = __fdividef(1.f, 1.f + __expf(-bv));
  const float x = av + bias;
  const float sp = x > 20.f ? x : __logf(1.f + __expf(x));
  const float decay = __expf(-__expf(alog) * sp);
  return {rq, rk, decay, beta * (vv - decay * rk * skv)};
}

// gdn_core's update of one state row (a warp's) and its output, from its inputs (early_launch_steps.cu's mode 5).
__device__ __forceinline__ void gdn_math(const Args& p, float4 s, uint2 qw, uint2 kw, float vv, float av,
                                         float bv, float alog, float bias, size_t base, int row, int lane) {
  float q0 = bf(qw.x & 0xffff), q1 = bf(qw.x >> 16), q2 = bf(qw.y & 0xffff), q3 = bf(qw.y >> 16);
  float k0 = bf(kw.x & 0xffff), k1 = bf(kw.x >> 16), k2 = bf(kw.y & 0xffff), k3 = bf(kw.y >> 16);
  float qq = q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3, kk = k0 * k0 + k1 * k1 + k2 * k2 + k3 * k3;
  float qk = q0 * k0 + q1 * k1 + q2 * k2 + q3 * k3;
  float skv = s.x * k0 + s.y * k1 + s.z * k2 + s.w * k3, sqv = s.x * q0 + s.y * q1 + s.z * q2 + s.w * q3;
  for (int d = 16; d; d >>= 1) {
    qq += __shfl_xor_sync(~0u, qq, d); kk += __shfl_xor_sync(~0u, kk, d); qk += __shfl_xor_sync(~0u, qk, d);
    skv += __shfl_xor_sync(~0u, skv, d); sqv += __shfl_xor_sync(~0u, sqv, d);
  }
  const auto [rq, rk, decay, u] = gates(qq, kk, skv, vv, av, bv, alog, bias);
  s.x = s.x * decay + u * k0 * rk; s.y = s.y * decay + u * k1 * rk;
  s.z = s.z * decay + u * k2 * rk; s.w = s.w * decay + u * k3 * rk;
  *reinterpret_cast<float4*>(p.state + base) = s;
  if (lane == 0) p.o[row] = decay * rq * sqv + u * (rq * rk * qk);
}

// mode 9-11: gdn_core's math with LPR lanes a row, C = 128 / LPR columns a lane.
template <int LPR>
__global__ void __launch_bounds__(128) narrow(Args p) {
  constexpr int C = 128 / LPR;
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const int head = blockIdx.x / 32, lr = threadIdx.x % LPR, row = blockIdx.x * 4 + threadIdx.x / LPR;
  const size_t base = (size_t)row * 128 + lr * C;
  float s[C];
  #pragma unroll
  for (int i = 0; i < C; i += 4) *reinterpret_cast<float4*>(s + i) = *reinterpret_cast<const float4*>(p.state + base + i);
  const float alog = p.a_log[head], bias = p.dt_bias[head];
  asm volatile("griddepcontrol.wait;" ::: "memory");
  // Every load issued before any shuffle (volatile loads, then a compiler barrier): left to itself nvcc put q's
  // loads after k's reductions, a second round trip to memory.
  uint32_t qw[C / 2], kw[C / 2];
  const uint32_t* q = reinterpret_cast<const uint32_t*>(p.q) + (head * 128 + lr * C) / 2;
  const uint32_t* k = reinterpret_cast<const uint32_t*>(p.k) + (head * 128 + lr * C) / 2;
  #pragma unroll
  for (int i = 0; i < C / 2; i += 2) {
    asm volatile("ld.global.v2.b32 {%0, %1}, [%2];" : "=r"(qw[i]), "=r"(qw[i + 1]) : "l"(q + i));
    asm volatile("ld.global.v2.b32 {%0, %1}, [%2];" : "=r"(kw[i]), "=r"(kw[i + 1]) : "l"(k + i));
  }
  unsigned short vh, ah, bh;
  asm volatile("ld.global.b16 %0, [%1];" : "=h"(vh) : "l"(p.v + row));
  asm volatile("ld.global.b16 %0, [%1];" : "=h"(ah) : "l"(p.a + head));
  asm volatile("ld.global.b16 %0, [%1];" : "=h"(bh) : "l"(p.b + head));
  asm volatile("" ::: "memory");
  const float vv = bf(vh), av = bf(ah), bv = bf(bh);
  float qv[C], kv[C];
  #pragma unroll
  for (int i = 0; i < C; ++i) {
    qv[i] = bf(i % 2 ? qw[i / 2] >> 16 : qw[i / 2] & 0xffff);
    kv[i] = bf(i % 2 ? kw[i / 2] >> 16 : kw[i / 2] & 0xffff);
  }
  float qq = 0.f, kk = 0.f, qk = 0.f, skv = 0.f, sqv = 0.f;
  #pragma unroll
  for (int i = 0; i < C; ++i) {
    qq += qv[i] * qv[i]; kk += kv[i] * kv[i]; qk += qv[i] * kv[i]; skv += s[i] * kv[i]; sqv += s[i] * qv[i];
  }
  #pragma unroll
  for (int d = LPR / 2; d; d >>= 1) {
    qq += __shfl_xor_sync(~0u, qq, d); kk += __shfl_xor_sync(~0u, kk, d); qk += __shfl_xor_sync(~0u, qk, d);
    skv += __shfl_xor_sync(~0u, skv, d); sqv += __shfl_xor_sync(~0u, sqv, d);
  }
  const auto [rq, rk, decay, u] = gates(qq, kk, skv, vv, av, bv, alog, bias);
  #pragma unroll
  for (int i = 0; i < C; ++i) s[i] = s[i] * decay + u * kv[i] * rk;
  #pragma unroll
  for (int i = 0; i < C; i += 4) *reinterpret_cast<float4*>(p.state + base + i) = *reinterpret_cast<float4*>(s + i);
  if (lr == 0) p.o[row] = decay * rq * sqv + u * (rq * rk * qk);
}

// Loads that read only when `on` (a predicated PTX load; off, the registers keep what they held).
__device__ __forceinline__ void load2_if(uint32_t& a, uint32_t& b, const void* p, bool on) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %3, 0; @q ld.global.v2.b32 {%0, %1}, [%2]; }"
               : "+r"(a), "+r"(b) : "l"(p), "r"((int)on));
}
__device__ __forceinline__ void load16_if(unsigned short& a, const void* p, bool on) {
  asm volatile("{ .reg .pred q; setp.ne.b32 q, %2, 0; @q ld.global.b16 %0, [%1]; }" : "+h"(a) : "l"(p), "r"((int)on));
}

// The five warp sums of gdn_core (qq, kk, qk, skv, sqv; v[5..7] zero) by halving: at each level a lane keeps half
// of what it still holds and receives its partner's share of that half, so that after five levels lane L holds the
// whole sum of value (L >> 2); then every sum is read from its lanes.
__device__ __forceinline__ void scatter_sums(float v[8], int lane) {
  const bool hi16 = lane & 16;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float send = hi16 ? v[i] : v[i + 4], keep = hi16 ? v[i + 4] : v[i];
    v[i] = keep + __shfl_xor_sync(~0u, send, 16);
  }
  const bool hi8 = lane & 8;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const float send = hi8 ? v[i] : v[i + 2], keep = hi8 ? v[i + 2] : v[i];
    v[i] = keep + __shfl_xor_sync(~0u, send, 8);
  }
  const bool hi4 = lane & 4;
  {
    const float send = hi4 ? v[0] : v[1], keep = hi4 ? v[1] : v[0];
    v[0] = keep + __shfl_xor_sync(~0u, send, 4);
  }
  v[0] += __shfl_xor_sync(~0u, v[0], 2);
  v[0] += __shfl_xor_sync(~0u, v[0], 1);
  // Lane L now holds sum number ((L >> 4) & 1) * 4 + ((L >> 3) & 1) * 2 + ((L >> 2) & 1), i.e. L >> 2.
  const float mine = v[0];
#pragma unroll
  for (int j = 0; j < 5; ++j) v[j] = __shfl_sync(~0u, mine, j * 4);
}

// mode 11, 16, 17: gdn_core's math at 32 lanes a row, 4 state values a lane.
template <int SCATTER, int REHEARSE>
__global__ void __launch_bounds__(128) gdn32(Args p) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const int head = blockIdx.x / 32, lane = threadIdx.x & 31, row = blockIdx.x * 4 + threadIdx.x / 32;
  const size_t base = (size_t)row * 128 + lane * 4;
  const float4 s = *reinterpret_cast<const float4*>(p.state + base);
  const float alog = p.a_log[head], bias = p.dt_bias[head];
  const int passes = REHEARSE ? (p.o == nullptr ? 3 : 2) : 1;  // 2 known only at run time: the loop stays a loop
  uint32_t q0 = 0, q1 = 0, k0 = 0, k1 = 0;
  unsigned short vh = 0, ah = 0, bh = 0;
#pragma unroll 1
  for (int pass = REHEARSE ? 0 : 1; pass < passes + (REHEARSE ? 0 : 1); ++pass) {
    const bool live = pass == 1;
    if (live) asm volatile("griddepcontrol.wait;" ::: "memory");
    load2_if(q0, q1, p.q + head * 32 + lane, live);
    load2_if(k0, k1, p.k + head * 32 + lane, live);
    load16_if(vh, p.v + row, live);
    load16_if(ah, p.a + head, live);
    load16_if(bh, p.b + head, live);
    asm volatile("" ::: "memory");
    const float qa = bf(q0 & 0xffff), qb = bf(q0 >> 16), qc = bf(q1 & 0xffff), qd = bf(q1 >> 16);
    const float ka = bf(k0 & 0xffff), kb = bf(k0 >> 16), kc = bf(k1 & 0xffff), kd = bf(k1 >> 16);
    float v[8] = {qa * qa + qb * qb + qc * qc + qd * qd, ka * ka + kb * kb + kc * kc + kd * kd,
                  qa * ka + qb * kb + qc * kc + qd * kd, s.x * ka + s.y * kb + s.z * kc + s.w * kd,
                  s.x * qa + s.y * qb + s.z * qc + s.w * qd, 0.f, 0.f, 0.f};
    if (SCATTER) {
      scatter_sums(v, lane);
    } else {
#pragma unroll
      for (int d = 16; d; d >>= 1)
#pragma unroll
        for (int j = 0; j < 5; ++j) v[j] += __shfl_xor_sync(~0u, v[j], d);
    }
    const auto [rq, rk, decay, u] = gates(v[0], v[1], v[3], bf(vh), bf(ah), bf(bh), alog, bias);
    const float4 t = make_float4(s.x * decay + u * ka * rk, s.y * decay + u * kb * rk, s.z * decay + u * kc * rk,
                                 s.w * decay + u * kd * rk);
    if (live) {
      *reinterpret_cast<float4*>(p.state + base) = t;
      if (lane == 0) p.o[row] = decay * rq * v[4] + u * (rq * rk * v[2]);
    }
  }
}

template <int MODE>
__global__ void __launch_bounds__(128) hot(Args p) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const int head = blockIdx.x / 32, lane = threadIdx.x & 31, row = blockIdx.x * 4 + threadIdx.x / 32;
  // mode 7: slot 0 (every set holds one pool of state).
  const size_t base = ((MODE == 7 ? (size_t)p.slot[0] * 512 * 4 : 0) + row) * 128 + lane * 4;
  float4 s = *reinterpret_cast<float4*>(p.state + base);
  float alog = 0.f, bias = 0.f;
  if (MODE >= 7) { alog = p.a_log[head]; bias = p.dt_bias[head]; }
  __shared__ uint2 shared_qk[2][32];
  __shared__ uint16_t shared_ab[2];
  if (MODE != 14) asm volatile("griddepcontrol.wait;" ::: "memory");
  if (MODE == 12 || MODE == 15) {
    uint4 w = p.words[head * 128 + threadIdx.x];
    s.x += bf(w.x); s.y += bf(w.y); s.z += bf(w.z);
    if (MODE == 15 && w.w == 12345u) {  // never: every word is zero
      float acc = s.w;
#pragma unroll
      for (int i = 0; i < 48; ++i) acc = acc * bf(w.x + i) + bf(w.y ^ i);
      s.w = acc;
    }
    *reinterpret_cast<float4*>(p.state + base) = s;
    if (lane == 0) p.o[row] = s.x;
    return;
  }
  if (MODE == 14) {
    const int passes = p.o == nullptr ? 3 : 2;  // 2, known only at run time: the loop stays a loop
    uint4 w = make_uint4(0, 0, 0, 0);
#pragma unroll 1
    for (int pass = 0; pass < passes; ++pass) {
      if (pass == 1) {
        asm volatile("griddepcontrol.wait;" ::: "memory");
        w = p.words[head * 128 + threadIdx.x];
      }
      const float k = bf(w.x) + bf(w.y) * 0.5f + bf(w.z) * 0.25f;
      float x = s.x * k, y = s.y * k, z = s.z * k;
      for (int d = 16; d; d >>= 1) {
        x += __shfl_xor_sync(~0u, x, d); y += __shfl_xor_sync(~0u, y, d); z += __shfl_xor_sync(~0u, z, d);
      }
      if (pass == 1) {
        float4 t = s;
        t.x += x; t.y += y; t.z += z;
        *reinterpret_cast<float4*>(p.state + base) = t;
        if (lane == 0) p.o[row] = x + y + z;
      }
    }
    return;
  }
  if (MODE == 13) {
    uint4 w = p.words[head * 128 + threadIdx.x];
    const float k = bf(w.x) + bf(w.y) * 0.5f + bf(w.z) * 0.25f;
    float x = s.x * k, y = s.y * k, z = s.z * k;
    for (int d = 4; d; d >>= 1) {
      x += __shfl_xor_sync(~0u, x, d); y += __shfl_xor_sync(~0u, y, d); z += __shfl_xor_sync(~0u, z, d);
    }
    s.x += x; s.y += y; s.z += z;
    *reinterpret_cast<float4*>(p.state + base) = s;
    if (lane == 0) p.o[row] = x + y + z;
    return;
  }
  if (MODE <= 2) {
    const int at = MODE == 0 ? head * 128 : MODE == 1 ? 0 : blockIdx.x * 128;
    uint4 w = p.words[at + threadIdx.x];
    finish(p, s, bf(w.x) + bf(w.y) * 0.5f + bf(w.z) * 0.25f, base, row, lane);
    return;
  }
  uint2 qw, kw;
  uint16_t av, bv;
  if (MODE >= 7) {
    gdn_math(p, s, p.q[head * 32 + lane], p.k[head * 32 + lane], bf(p.v[row]), bf(p.a[head]), bf(p.b[head]), alog,
             bias, base, row, lane);
    return;
  }
  if (MODE == 3 || MODE == 4) {
    qw = p.q[head * 32 + lane]; kw = p.k[head * 32 + lane];
    const int ab = MODE == 3 ? head : head * 64;
    av = p.a[ab]; bv = p.b[ab];
  } else if (MODE == 5) {
    if (threadIdx.x < 32) {
      shared_qk[0][lane] = p.q[head * 32 + lane]; shared_qk[1][lane] = p.k[head * 32 + lane];
      if (lane == 0) { shared_ab[0] = p.a[head]; shared_ab[1] = p.b[head]; }
    }
    __syncthreads();
    qw = shared_qk[0][lane]; kw = shared_qk[1][lane]; av = shared_ab[0]; bv = shared_ab[1];
  } else {
    qw = p.q[blockIdx.x * 32 + lane]; kw = p.k[blockIdx.x * 32 + lane];
    av = p.a[blockIdx.x * 64]; bv = p.b[blockIdx.x * 64];
  }
  const float vv = bf(p.v[row]);
  finish(p, s, bf(kw.x & 0xffff) + bf(kw.x >> 16) * 0.5f + bf(qw.y & 0xffff) * 0.25f + vv + bf(av) + bf(bv), base,
         row, lane);
}

int main() {
  const int nsets = 160;  // 160 x (1 MB state + inputs) > 3 x L2
  std::vector<Args> sets(nsets);
  for (Args& a : sets) {
    float *st, *o, *alog, *bias; int* slot; uint4* words; uint2 *q, *k; uint16_t *v, *av, *bv;
    CK(cudaMalloc(&st, 512 * 512 * 4)); CK(cudaMemset(st, 0, 512 * 512 * 4));
    CK(cudaMalloc(&words, 512 * 2048)); CK(cudaMemset(words, 0, 512 * 2048));  // mode 2: 2 KB a CTA
    CK(cudaMalloc(&q, 512 * 256)); CK(cudaMemset(q, 0, 512 * 256));            // mode 6: 256 bytes a CTA
    CK(cudaMalloc(&k, 512 * 256)); CK(cudaMemset(k, 0, 512 * 256));
    CK(cudaMalloc(&v, 16 * 256)); CK(cudaMemset(v, 0, 16 * 256));
    CK(cudaMalloc(&av, 512 * 128)); CK(cudaMemset(av, 0, 512 * 128));          // modes 4, 6: a line a head / CTA
    CK(cudaMalloc(&bv, 512 * 128)); CK(cudaMemset(bv, 0, 512 * 128));
    CK(cudaMalloc(&o, 512 * 4 * 4));
    CK(cudaMalloc(&slot, 4)); CK(cudaMemset(slot, 0, 4));
    CK(cudaMalloc(&alog, 64)); CK(cudaMemset(alog, 0, 64));
    CK(cudaMalloc(&bias, 64)); CK(cudaMemset(bias, 0, 64));
    a = Args{st, words, q, k, v, av, bv, o, slot, alog, bias};
  }
  void (*modes[])(Args) = {hot<0>, hot<1>, hot<2>, hot<3>, hot<4>, hot<5>, hot<6>, hot<7>, hot<8>,
                           narrow<16>, narrow<8>, narrow<32>, hot<12>, hot<13>, hot<14>, hot<15>,
                           gdn32<1, 0>, gdn32<0, 1>, gdn32<0, 0>};
  const int threads[] = {128, 128, 128, 128, 128, 128, 128, 128, 128, 64, 32, 128, 128, 128, 128, 128, 128, 128, 128};
  cudaStream_t s; CK(cudaStreamCreate(&s));
  for (int round = 0; round < 3; ++round)
    for (int mode = 0; mode < 19; ++mode) {
      float us = us_per_launch(s, nsets, [&](int i) {
        launch_pdl(modes[mode], dim3(512), dim3(threads[mode]), s, true, sets[i]);
      });
      printf("round %d mode %d: %.3f us a launch\n", round, mode, us);
    }
  return 0;
}
