// What the CUDA probes of bench/cuda/ share: an error check, a launch that may overlap the kernel before it
// (programmatic dependent launch, as megac's runtime launches @early_launch kernels), and the time of one launch
// in a CUDA graph of many, the way bench/run_bench.py times kernels (graph replays, the median).
#pragma once
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

// Launches `kernel` on `stream`; `early`: it may start while the kernel before it on the stream still runs
// (it must wait for that one itself: griddepcontrol.wait).
template <class... Params, class... Args>
void launch_pdl(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, bool early, Args... args) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid; cfg.blockDim = block; cfg.stream = stream;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = early;
  cfg.attrs = attr; cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, kernel, args...));
}

// Microseconds a launch: `launches` calls of launch(i) (each launching one kernel on `stream`) captured into one
// graph, replayed `replays` times; the median over the replays after the first three.
template <class Launch>
float us_per_launch(cudaStream_t stream, int launches, Launch launch, int replays = 30) {
  cudaGraph_t g; cudaGraphExec_t ge;
  CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  for (int i = 0; i < launches; ++i) launch(i);
  CK(cudaStreamEndCapture(stream, &g)); CK(cudaGraphInstantiate(&ge, g, 0));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  std::vector<float> ts;
  for (int r = 0; r < replays; ++r) {
    CK(cudaEventRecord(e0, stream)); CK(cudaGraphLaunch(ge, stream)); CK(cudaEventRecord(e1, stream));
    CK(cudaEventSynchronize(e1));
    float ms; CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 3) ts.push_back(ms * 1000.f / launches);
  }
  std::sort(ts.begin(), ts.end());
  CK(cudaEventDestroy(e0)); CK(cudaEventDestroy(e1));
  CK(cudaGraphExecDestroy(ge)); CK(cudaGraphDestroy(g));
  return ts[ts.size() / 2];
}
