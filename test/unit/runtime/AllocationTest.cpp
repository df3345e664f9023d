//===- AllocationTest.cpp - The launch checks allocate nothing ------------===//
//
// Replaces global operator new in this test binary to count allocations, so
// that the "no heap allocation per launch" promise of prepare() is checked.
//
//===----------------------------------------------------------------------===//
#include "TestManifests.h"

#include "megac/runtime/signature.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> allocations{0};
} // namespace

void *operator new(size_t size) {
  ++allocations;
  if (void *p = std::malloc(size ? size : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }

using namespace megac::rt;

namespace {

TEST(Allocation, PrepareAllocatesNothing) {
  KernelSignature vectorAdd(test::vectorAddKernel());
  KernelSignature gdn(test::gdnCoreKernel());
  Arg add[] = {Arg::tensor(0x1000, DType::f32, {4096}),
               Arg::tensor(0x2000, DType::f32, {4096}),
               Arg::tensor(0x3000, DType::f32, {4096})}; // n inferred
  Arg core[] = {Arg::tensor(0x1000, DType::bf16, {300, 1, 128, 128}),
                Arg::tensor(0x2000, DType::f32, {}),
                Arg::scalar(DType::i32, 300), Arg::scalar(DType::i32, 1)};
  LaunchConfig c;
  long before = allocations.load();
  for (int i = 0; i < 100; ++i) {
    vectorAdd.prepare(add, 3, test::kH200, nullptr, c);
    gdn.prepare(core, 4, test::kH200, nullptr, c);
  }
  EXPECT_EQ(allocations.load() - before, 0);
  EXPECT_EQ(c.variant, 0); // 300 CTAs on 132 SMs: the capped variant
  // The counter works: a refusal builds its message on the heap.
  add[0].dtype = DType::bf16;
  EXPECT_THROW(vectorAdd.prepare(add, 3, test::kH200, nullptr, c), std::exception);
  EXPECT_GT(allocations.load() - before, 0);
}

} // namespace
