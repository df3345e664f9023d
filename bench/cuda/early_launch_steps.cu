// Probe: from the floor of an early-launched decode kernel (early_launch_floor.cu) to gdn_core's `prefetch`, one
// step at a time, to see where its time above the floor goes (B = 1, HV = 16: 512 CTAs of 128 threads, a warp a
// row of 128 f32 state values, 4 a lane; every launch of the graph launched early, reading cold rotated inputs).
//   mode 1: the floor: one cold 16-byte read a thread after the wait, three warp reductions side by side.
//   mode 2: gdn_core's loads after the wait instead: q and k (8 bytes a lane of the head's 256), v (a bf16 a row),
//           a and b (a bf16 each), same arithmetic as mode 1.
//   mode 3: mode 2 with gdn_core's math: five reductions side by side (q.q, k.k, q.k, s.k, s.q), rsqrt, sigmoid,
//           decay = exp(-exp(A_log) * softplus(a + dt_bias)) with the accurate log1pf, the state update and o.
//   mode 4: mode 3 with the slot's indirection before the wait (the state's address read from slot[request]).
//   mode 5: mode 4 with a fast softplus (log of 1 + exp through the approximate ex2 / lg2).
//   mode 6: mode 4 launched plainly (no early launch).
//   mode 7: mode 5 with the five inputs' lines prefetched into the L2 before the wait (prefetch.global.L2: a hint
//           with no effect on what the loads after the wait read, which the kernel before may still be writing).
//   mode 8: mode 1 (the floor) with its one read's line prefetched into the L2 before the wait.
//   mode 9: mode 7 with one prefetch a warp for the lines all its lanes share (v, a, b).
//   mode 10: mode 1 with its one read made before the wait too (ld.global.cg, into the L2 only; the value dropped).
//   mode 11: mode 5 with its five reads made before the wait too, as mode 10.
//   mode 12: mode 2 with q, k, v, a and b side by side in one allocation (as the model's q, k and v are views of
//            one projection's output) instead of five.
//   mode 13: mode 5 with its five inputs in one allocation, as mode 12.
//   mode 14: mode 2 reading only q and k.  mode 15: mode 2 reading only v, a and b.
//   mode 16: mode 1 with five 16-byte reads a thread from the one buffer (2 KB apart) instead of one.
#include "graph_timing.h"
#include <cstdint>

__device__ __forceinline__ float bf(uint32_t h) { return __uint_as_float(h << 16); }
__device__ __forceinline__ float warp_sum(float v) {
  for (int d = 16; d; d >>= 1) v += __shfl_xor_sync(~0u, v, d);
  return v;
}

__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" :: "l"(p)); }
// A load into the L2 only whose value is dropped (kept alive by an empty asm after the wait, so it is issued).
__device__ __forceinline__ unsigned touch_l2(const void* p) {
  unsigned short x; asm volatile("ld.global.cg.u16 %0, [%1];" : "=h"(x) : "l"(p));
  return x;
}

struct Args {
  float* state; const int* slot; const uint2* q; const uint2* k; const uint16_t* v; const uint16_t* a;
  const uint16_t* b; const uint4* qkv; const float* a_log; const float* dt_bias; float* o;
};

__global__ void __launch_bounds__(128) step(Args p, int mode) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const int head = blockIdx.x / 32, lane = threadIdx.x & 31, row = blockIdx.x * 4 + threadIdx.x / 32;
  // mode >= 4: the state's address waits on the slot's load (slot 0: every set holds one pool of state).
  const size_t sl = mode >= 4 && mode != 8 && mode != 10 ? (size_t)p.slot[0] : 0;
  const size_t base = (sl * 512 * 4 + row) * 128 + lane * 4;
  float4 s = *reinterpret_cast<float4*>(p.state + base);
  float alog = p.a_log[head], bias = p.dt_bias[head];
  if (mode == 7) {
    prefetch_l2(p.q + head * 32 + lane); prefetch_l2(p.k + head * 32 + lane); prefetch_l2(p.v + row);
    prefetch_l2(p.a + head); prefetch_l2(p.b + head);
  }
  if (mode == 8) prefetch_l2(p.qkv + head * 128 + threadIdx.x);
  if (mode == 9) {
    prefetch_l2(p.q + head * 32 + lane); prefetch_l2(p.k + head * 32 + lane);
    if (lane == 0) { prefetch_l2(p.v + row); prefetch_l2(p.a + head); prefetch_l2(p.b + head); }
  }
  unsigned sink = 0;
  if (mode == 10) sink = touch_l2(p.qkv + head * 128 + threadIdx.x);
  if (mode == 11)
    sink = touch_l2(p.q + head * 32 + lane) + touch_l2(p.k + head * 32 + lane) + touch_l2(p.v + row) +
           touch_l2(p.a + head) + touch_l2(p.b + head);
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("" :: "r"(sink));
  if (mode == 1 || mode == 8 || mode == 10) {
    uint4 w = p.qkv[head * 128 + threadIdx.x];
    float k = bf(w.x) + bf(w.y) * 0.5f + bf(w.z) * 0.25f;
    float x = s.x * k, y = s.y * k, z = s.z * k;
    for (int d = 16; d; d >>= 1) { x += __shfl_xor_sync(~0u, x, d); y += __shfl_xor_sync(~0u, y, d); z += __shfl_xor_sync(~0u, z, d); }
    s.x += x; s.y += y; s.z += z;
    *reinterpret_cast<float4*>(p.state + base) = s;
    if (lane == 0) p.o[row] = x + y + z;
    return;
  }
  if (mode == 16) {
    const uint4* w0 = p.qkv + (head * 128 + threadIdx.x) % 2048;
    uint4 w = w0[0], x1 = p.qkv[(head * 128 + threadIdx.x + 128) % 2048],
          x2 = p.qkv[(head * 128 + threadIdx.x + 256) % 2048], x3 = p.qkv[(head * 128 + threadIdx.x + 384) % 2048],
          x4 = p.qkv[(head * 128 + threadIdx.x + 512) % 2048];
    float k = bf(w.x) + bf(x1.y) * 0.5f + bf(x2.z) * 0.25f + bf(x3.x) + bf(x4.w);
    float x = s.x * k, y = s.y * k, z = s.z * k;
    for (int d = 16; d; d >>= 1) { x += __shfl_xor_sync(~0u, x, d); y += __shfl_xor_sync(~0u, y, d); z += __shfl_xor_sync(~0u, z, d); }
    s.x += x; s.y += y; s.z += z;
    *reinterpret_cast<float4*>(p.state + base) = s;
    if (lane == 0) p.o[row] = x + y + z;
    return;
  }
  if (mode == 14 || mode == 15) {
    float k;
    if (mode == 14) {
      uint2 qw = p.q[head * 32 + lane], kw = p.k[head * 32 + lane];
      k = bf(kw.x & 0xffff) + bf(kw.x >> 16) * 0.5f + bf(qw.y & 0xffff) * 0.25f;
    } else {
      k = bf(p.v[row]) + bf(p.a[head]) + bf(p.b[head]);
    }
    float x = s.x * k, y = s.y * k, z = s.z * k;
    for (int d = 16; d; d >>= 1) { x += __shfl_xor_sync(~0u, x, d); y += __shfl_xor_sync(~0u, y, d); z += __shfl_xor_sync(~0u, z, d); }
    s.x += x; s.y += y; s.z += z;
    *reinterpret_cast<float4*>(p.state + base) = s;
    if (lane == 0) p.o[row] = x + y + z;
    return;
  }
  uint2 qw = p.q[head * 32 + lane], kw = p.k[head * 32 + lane];
  float vv = bf(p.v[row]), av = bf(p.a[head]), bv = bf(p.b[head]);
  float q0 = bf(qw.x & 0xffff), q1 = bf(qw.x >> 16), q2 = bf(qw.y & 0xffff), q3 = bf(qw.y >> 16);
  float k0 = bf(kw.x & 0xffff), k1 = bf(kw.x >> 16), k2 = bf(kw.y & 0xffff), k3 = bf(kw.y >> 16);
  if (mode == 2) {
    float k = k0 + k1 * 0.5f + q2 * 0.25f + vv + av + bv;
    float x = s.x * k, y = s.y * k, z = s.z * k;
    for (int d = 16; d; d >>= 1) { x += __shfl_xor_sync(~0u, x, d); y += __shfl_xor_sync(~0u, y, d); z += __shfl_xor_sync(~0u, z, d); }
    s.x += x; s.y += y; s.z += z;
    *reinterpret_cast<float4*>(p.state + base) = s;
    if (lane == 0) p.o[row] = x + y + z;
    return;
  }
  float qq = q0 * q0 + q1 * q1 + q2 * q2 + q3 * q3, kk = k0 * k0 + k1 * k1 + k2 * k2 + k3 * k3;
  float qk = q0 * k0 + q1 * k1 + q2 * k2 + q3 * k3;
  float skv = s.x * k0 + s.y * k1 + s.z * k2 + s.w * k3, sqv = s.x * q0 + s.y * q1 + s.z * q2 + s.w * q3;
  for (int d = 16; d; d >>= 1) {
    qq += __shfl_xor_sync(~0u, qq, d); kk += __shfl_xor_sync(~0u, kk, d); qk += __shfl_xor_sync(~0u, qk, d);
    skv += __shfl_xor_sync(~0u, skv, d); sqv += __shfl_xor_sync(~0u, sqv, d);
  }
  float rq = rsqrtf(qq + 1e-6f) * 0.08838834764831845f, rk = rsqrtf(kk + 1e-6f);
  float beta = __fdividef(1.f, 1.f + __expf(-bv));
  float x = av + bias;
  float sp = mode >= 5 ? __logf(1.f + __expf(x)) : log1pf(__expf(x));
  sp = x > 20.f ? x : sp;
  float decay = __expf(-__expf(alog) * sp);
  float u = beta * (vv - decay * rk * skv);
  s.x = s.x * decay + u * k0 * rk; s.y = s.y * decay + u * k1 * rk;
  s.z = s.z * decay + u * k2 * rk; s.w = s.w * decay + u * k3 * rk;
  *reinterpret_cast<float4*>(p.state + base) = s;
  if (lane == 0) p.o[row] = decay * rq * sqv + u * (rq * rk * qk);
}

int main() {
  const int nsets = 160;  // 160 x (1 MB state + inputs) > 3 x L2
  std::vector<Args> sets(nsets), packed(nsets);
  for (int i = 0; i < nsets; ++i) {
    Args& a = sets[i];
    float *st, *o, *alog, *bias; int* slot; uint2 *q, *k; uint16_t *v, *av, *bv; uint4* qkv;
    CK(cudaMalloc(&st, 512 * 512 * 4)); CK(cudaMemset(st, 0, 512 * 512 * 4));
    CK(cudaMalloc(&slot, 4)); CK(cudaMemset(slot, 0, 4));
    CK(cudaMalloc(&q, 16 * 256)); CK(cudaMemset(q, 0, 16 * 256));
    CK(cudaMalloc(&k, 16 * 256)); CK(cudaMemset(k, 0, 16 * 256));
    CK(cudaMalloc(&v, 16 * 256)); CK(cudaMemset(v, 0, 16 * 256));
    CK(cudaMalloc(&av, 32)); CK(cudaMemset(av, 0, 32));
    CK(cudaMalloc(&bv, 32)); CK(cudaMemset(bv, 0, 32));
    CK(cudaMalloc(&qkv, 16 * 128 * 16)); CK(cudaMemset(qkv, 0, 16 * 128 * 16));
    CK(cudaMalloc(&alog, 64)); CK(cudaMemset(alog, 0, 64));
    CK(cudaMalloc(&bias, 64)); CK(cudaMemset(bias, 0, 64));
    CK(cudaMalloc(&o, 512 * 4 * 4));
    a = Args{st, slot, q, k, v, av, bv, qkv, alog, bias, o};
    // The same five inputs' sizes at 4 KB, 8 KB, 12 KB and 12 KB + 64 of one allocation.
    char* one;
    CK(cudaMalloc(&one, 16 * 256 * 4)); CK(cudaMemset(one, 0, 16 * 256 * 4));
    packed[i] = a;
    packed[i].q = reinterpret_cast<const uint2*>(one);
    packed[i].k = reinterpret_cast<const uint2*>(one + 4096);
    packed[i].v = reinterpret_cast<const uint16_t*>(one + 8192);
    packed[i].a = reinterpret_cast<const uint16_t*>(one + 12288);
    packed[i].b = reinterpret_cast<const uint16_t*>(one + 12288 + 64);
  }
  cudaStream_t s; CK(cudaStreamCreate(&s));
  for (int round = 0; round < 2; ++round)
    for (int mode = 1; mode <= 16; ++mode) {
      int early = mode != 6, kmode = mode == 6 ? 4 : mode == 12 ? 2 : mode == 13 ? 5 : mode;
      const std::vector<Args>& args = mode >= 12 ? packed : sets;
      float us = us_per_launch(s, nsets, [&](int i) {
        launch_pdl(step, dim3(512), dim3(128), s, early, args[i], kmode);
      });
      printf("round %d mode %d (%s): %.2f us a launch\n", round, mode, early ? "early" : "plain", us);
    }
  return 0;
}
