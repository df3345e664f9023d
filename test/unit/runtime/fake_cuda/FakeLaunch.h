//===- FakeLaunch.h - What the stand-in driver saw of a launch --*- C++ -*-===//
//
// fake_cuda/FakeCuda.cpp keeps the last launch of each thread that it ran,
// and counts the modules loaded; a test finds these functions in the library
// the runtime opened (and knows from their absence that the driver is a real
// one).
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_TEST_FAKE_LAUNCH_H
#define MEGAC_TEST_FAKE_LAUNCH_H

#include <cuda.h>

struct FakeLaunch {
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedBytes;
  CUstream stream;
  bool ex;           // through cuLaunchKernelEx
  bool programmatic; // with programmatic stream serialization allowed
  char function[64];
};

extern "C" const FakeLaunch *megacFakeLastLaunch();
// Modules loaded and not unloaded, in contexts that live.
extern "C" int megacFakeLoadedModules();
// Allocations made and not freed, in contexts that live.
extern "C" int megacFakeLiveAllocations();

#endif // MEGAC_TEST_FAKE_LAUNCH_H
