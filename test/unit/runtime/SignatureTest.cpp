//===- SignatureTest.cpp - Argument checks, inference, grid, variants -----===//
#include "TestManifests.h"

#include "megac/runtime/error.h"
#include "megac/runtime/signature.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include <cmath>
#include <cstring>
#include <string>
#include <tuple>

using namespace megac::rt;

namespace {

constexpr uint64_t kPtr = 0x7f0000001000;

std::vector<Arg> vectorAddArgs(int64_t n) {
  return {Arg::tensor(kPtr, DType::f32, {n}),
          Arg::tensor(kPtr + 0x10000, DType::f32, {n}),
          Arg::tensor(kPtr + 0x20000, DType::f32, {n}),
          Arg::scalar(DType::i32, n)};
}

std::string refusal(const KernelSignature &sig, const std::vector<Arg> &args,
                    const Grid *grid = nullptr) {
  LaunchConfig config;
  try {
    sig.prepare(args.data(), args.size(), test::kH200, grid, config);
  } catch (const ArgError &e) {
    return e.what();
  }
  ADD_FAILURE() << "arguments accepted";
  return "";
}

// Why a manifest's kernel is refused when it loads ("" when it is accepted).
std::string loadRefusal(const KernelInfo &k) {
  try {
    KernelSignature sig(k);
  } catch (const ManifestError &e) {
    return e.what();
  }
  ADD_FAILURE() << "manifest accepted";
  return "";
}

TEST(Signature, AcceptsGoodArgumentsAndPacksThem) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(4096);
  LaunchConfig c;
  sig.prepare(args.data(), args.size(), test::kH200, nullptr, c);
  EXPECT_EQ(c.grid[0], 4u);
  EXPECT_EQ(c.grid[1], 1u);
  EXPECT_EQ(c.block[0], 128u);
  EXPECT_EQ(c.numParams, 4);
  EXPECT_EQ(*static_cast<uint64_t *>(c.params[0]), kPtr);
  EXPECT_EQ(*static_cast<uint64_t *>(c.params[2]), kPtr + 0x20000);
  EXPECT_EQ(*static_cast<int32_t *>(c.params[3]), 4096);
  EXPECT_FALSE(c.empty());
}

TEST(Signature, RefusesWrongCount) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args.resize(2);
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': 2 arguments given, 4 expected (or 3 "
            "leaving out 'n', inferred from tensor shapes)");
}

TEST(Signature, RefusesWrongDtype) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args[0].dtype = DType::bf16;
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'vector_add': parameter 'x': "
                                "dtype bf16 given, f32 expected");
  args = vectorAddArgs(1024);
  args[3] = Arg::scalar(DType::f32, 1024.0);
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'vector_add': parameter 'n': "
                                "dtype f32 given, i32 expected");
}

TEST(Signature, RefusesWrongKind) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args[1] = Arg::scalar(DType::f32, 1.0);
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'vector_add': parameter 'y': "
                                "scalar given, tensor expected");
  args = vectorAddArgs(1024);
  args[3] = args[0];
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'vector_add': parameter 'n': "
                                "tensor given, scalar expected");
}

TEST(Signature, RefusesMisalignedPointer) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args[2].ptr = kPtr + 4;
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'out': pointer "
            "0x7f0000001004 is not 16-byte aligned");
}

TEST(Signature, RefusesNullPointer) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args[0].ptr = 0;
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'x': null pointer");
}

TEST(Signature, RefusesWrongShape) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args[1] = Arg::tensor(kPtr, DType::f32, {1008});
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'y': shape [1008] given, "
            "[1024] expected (n = 1024)");
  args[1] = Arg::tensor(kPtr, DType::f32, {32, 32});
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'y': 2 dimensions [32, 32] "
            "given, 1 expected");
}

TEST(Signature, ShapeExpressionsUseBoundScalars) {
  KernelSignature sig(test::gdnCoreKernel());
  std::vector<Arg> args = {Arg::tensor(kPtr, DType::bf16, {2, 8, 128, 128}),
                           Arg::tensor(kPtr, DType::f32, {}),
                           Arg::scalar(DType::i32, 2),
                           Arg::scalar(DType::i32, 16)};
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'gdn_core': parameter 'state': shape [2, 8, 128, "
            "128] given, [2, 16, 128, 128] expected (b = 2, h = 16)");
}

TEST(Signature, RefusesNonContiguous) {
  KernelSignature sig(test::gdnCoreKernel());
  std::vector<Arg> args = {
      Arg::tensor(kPtr, DType::bf16, {2, 8, 128, 128}, {131072, 128, 1024, 1}),
      Arg::tensor(kPtr, DType::f32, {}), Arg::scalar(DType::i32, 2),
      Arg::scalar(DType::i32, 8)};
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'gdn_core': parameter 'state': not contiguous: "
            "strides [131072, 128, 1024, 1] for shape [2, 8, 128, 128] (a "
            "contiguous row-major tensor is required)");
  // Size-1 dimensions may have any stride, as in PyTorch.
  args[0] =
      Arg::tensor(kPtr, DType::bf16, {1, 8, 128, 128}, {999, 16384, 128, 1});
  args[2] = Arg::scalar(DType::i32, 1);
  LaunchConfig c;
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, nullptr, c));
}

TEST(Signature, RefusesNegativeDimensions) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args[0] = Arg::tensor(kPtr, DType::f32, {-1024});
  args.pop_back(); // n inferred from x
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'x': negative dimension in shape [-1024]");
}

// numel past int64 used to overflow in the check itself (found by the
// property test's model, which refuses such a tensor).
TEST(Signature, RefusesAShapePastInt64) {
  KernelSignature sig(test::gdnCoreKernel());
  std::vector<Arg> args = {
      Arg::tensor(kPtr, DType::bf16, {int64_t(1) << 40, int64_t(1) << 40, 128, 128}),
      Arg::tensor(kPtr, DType::f32, {}), Arg::scalar(DType::i32, 1), Arg::scalar(DType::i32, 1)};
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'gdn_core': parameter 'state': shape [1099511627776, 1099511627776, 128, "
            "128] has more than 2^63 elements");
}

// A tensor without elements is contiguous whatever its strides, as in PyTorch
// (torch.empty(0, 5).t() has strides [1, 5]).
TEST(Signature, AcceptsAnEmptyTensorWithAnyStrides) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(0);
  args[0] = Arg::tensor(kPtr, DType::f32, {0}, {7});
  LaunchConfig c;
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, nullptr, c));
  EXPECT_TRUE(c.empty());
  args = vectorAddArgs(16);
  args[0] = Arg::tensor(kPtr, DType::f32, {16}, {7});
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'vector_add': parameter 'x': not contiguous: strides [7] "
                                "for shape [16] (a contiguous row-major tensor is required)");
}

TEST(Signature, RefusesTooManyDimensions) {
  try {
    Arg::tensor(kPtr, DType::f32, {1, 1, 1, 1, 1, 1, 1});
    FAIL() << "accepted";
  } catch (const ArgError &e) {
    EXPECT_STREQ(e.what(), "megac: a tensor argument has 7 dimensions; at most 6 are supported");
  }
  EXPECT_THROW(Arg::tensor(kPtr, DType::f32, {4, 4}, {4}), ArgError);
  // A manifest's parameter of more dimensions than an argument can carry is
  // refused when the kernel loads, not at its first launch.
  KernelInfo k = test::vectorAddKernel();
  k.params[0].shape = {"1", "1", "1", "1", "1", "1", "n"};
  EXPECT_EQ(loadRefusal(k), "megac: kernel 'vector_add': parameter 'x': 7 dimensions, at most 6");
}

// An integer parameter takes only an exact integer: 1.5 or 2^63 given for an
// i32 or i64 is refused, never truncated or wrapped.
TEST(Signature, RefusesANonIntegerForAnIntegerScalar) {
  try {
    Arg::scalar(DType::i32, 1.5);
    FAIL() << "accepted";
  } catch (const ArgError &e) {
    EXPECT_STREQ(e.what(), "megac: scalar 1.5 given as i32, not an integer");
  }
  EXPECT_THROW(Arg::scalar(DType::i64, 9.3e18), ArgError);
  EXPECT_THROW(Arg::scalar(DType::i32, std::nan("")), ArgError);
  EXPECT_EQ(Arg::scalar(DType::i64, -4096.0).intValue, -4096);
}

TEST(Signature, RefusesScalarNotAMultiple) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1000);
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'vector_add': parameter 'n': "
                                "value 1000 is not a multiple of 16");
  args.pop_back();
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'n': value 1000 (inferred "
            "from 'x') is not a multiple of 16");
}

TEST(Signature, RefusesScalarOutOfRange) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  args[3] = Arg::scalar(DType::i64, int64_t(1) << 40);
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'vector_add': parameter 'n': "
                                "value 1099511627776 does not fit i32");
}

// A kernel whose pointer offsets are all 32-bit (the manifest says nothing
// else) cannot address a tensor of 2^31 elements or more: its offsets would
// wrap. One compiled with a 64-bit offset (offsets64) may take it.
TEST(Signature, RefusesTensorsPastThirtyTwoBitOffsets) {
  KernelInfo info = test::vectorAddKernel();
  std::vector<Arg> args = vectorAddArgs(int64_t(1) << 31);
  args[3] = Arg::scalar(DType::i64, int64_t(1) << 31);
  EXPECT_EQ(refusal(KernelSignature(info), args),
            "megac: kernel 'vector_add': parameter 'x': 2147483648 elements: the kernel's offsets are "
            "32-bit, at most 2^31 - 1 elements a tensor (compute the offsets in i64 in the kernel, or "
            "pass a smaller view)");
  info.offsets64 = true;
  EXPECT_EQ(refusal(KernelSignature(info), args),
            "megac: kernel 'vector_add': parameter 'n': value 2147483648 does not fit i32");
  LaunchConfig c;
  std::vector<Arg> largest = vectorAddArgs(INT32_MAX - 15); // the largest multiple of 16 below 2^31
  KernelSignature(test::vectorAddKernel()).prepare(largest.data(), largest.size(), test::kH200, nullptr, c);
  EXPECT_EQ(c.grid[0], 2097152u);
}

TEST(Signature, InfersOmittedScalars) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(2048);
  args.pop_back();
  LaunchConfig c;
  sig.prepare(args.data(), args.size(), test::kH200, nullptr, c);
  EXPECT_EQ(*static_cast<int32_t *>(c.params[3]), 2048);
  EXPECT_EQ(c.grid[0], 2u);

  args.push_back(Arg::infer());
  LaunchConfig c2;
  sig.prepare(args.data(), args.size(), test::kH200, nullptr, c2);
  EXPECT_EQ(*static_cast<int32_t *>(c2.params[3]), 2048);
}

TEST(Signature, InferredScalarIsCheckedAgainstOtherTensors) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(2048);
  args[1] = Arg::tensor(kPtr, DType::f32, {1024});
  args.pop_back();
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'y': shape [1024] given, "
            "[2048] expected (n = 2048)");
}

TEST(Signature, RefusesInferenceWithoutASource) {
  KernelInfo k = test::vectorAddKernel();
  k.params.push_back({"k", ParamKind::Scalar, DType::i32, 1, {}, 1});
  KernelSignature sig(k);
  std::vector<Arg> args = vectorAddArgs(1024);
  args.push_back(Arg::infer());
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'k': cannot be inferred (no "
            "tensor dimension is exactly 'k'); pass it");
}

TEST(Signature, PacksScalarsByDtype) {
  KernelInfo k;
  k.name = "scalars";
  k.params = {{"a", ParamKind::Scalar, DType::f32, 1, {}, 1},
              {"b", ParamKind::Scalar, DType::bf16, 1, {}, 1},
              {"c", ParamKind::Scalar, DType::f16, 1, {}, 1},
              {"d", ParamKind::Scalar, DType::i64, 1, {}, 1},
              {"e", ParamKind::Scalar, DType::u8, 1, {}, 1}};
  k.variants = {{"default", "scalars", 0, 0, "", 0, {}, {}, {}}};
  KernelSignature sig(k);
  std::vector<Arg> args = {
      Arg::scalar(DType::f32, 1.5), Arg::scalar(DType::bf16, 1.0),
      Arg::scalar(DType::f16, -2.0), Arg::scalar(DType::i64, -5),
      Arg::scalar(DType::u8, 255)};
  LaunchConfig c;
  sig.prepare(args.data(), args.size(), test::kH200, nullptr, c);
  EXPECT_EQ(*static_cast<float *>(c.params[0]), 1.5f);
  EXPECT_EQ(*static_cast<uint16_t *>(c.params[1]), 0x3F80);
  EXPECT_EQ(*static_cast<uint16_t *>(c.params[2]), 0xC000);
  EXPECT_EQ(*static_cast<int64_t *>(c.params[3]), -5);
  EXPECT_EQ(*static_cast<uint8_t *>(c.params[4]), 255);
  args[4] = Arg::scalar(DType::u8, 256);
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'scalars': parameter 'e': value "
                                "256 does not fit u8");
}

// A finite value that a float parameter's dtype would round to infinity is a
// mistake (a scale of 1e39 for an f32); infinity itself passes as given.
TEST(Signature, RefusesAFiniteFloatPastItsDtype) {
  KernelInfo k;
  k.name = "scalars";
  k.params = {{"a", ParamKind::Scalar, DType::f32, 1, {}, 1},
              {"b", ParamKind::Scalar, DType::f16, 1, {}, 1}};
  k.variants = {{"default", "scalars", 0, 0, "", 0, {}, {}, {}}};
  KernelSignature sig(k);
  std::vector<Arg> args = {Arg::scalar(DType::f32, 3.4e38), Arg::scalar(DType::f16, 65519.0)};
  LaunchConfig c;
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, nullptr, c));
  args = {Arg::scalar(DType::f32, 1e39), Arg::scalar(DType::f16, 1.0)};
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'scalars': parameter 'a': value 1e+39 is past the range "
                                "of f32 (it would be infinity; pass inf if that is meant)");
  args = {Arg::scalar(DType::f32, 1.0), Arg::scalar(DType::f16, 65520.0)};
  EXPECT_EQ(refusal(sig, args), "megac: kernel 'scalars': parameter 'b': value 65520 is past the range "
                                "of f16 (it would be infinity; pass inf if that is meant)");
  args = {Arg::scalar(DType::f32, HUGE_VAL), Arg::scalar(DType::f16, -HUGE_VAL)};
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, nullptr, c));
}

/// vector_add compiled without its mask: its loads and stores reach
/// 1024 * grid_x elements (what megac writes into the manifest for it).
KernelInfo unmaskedVectorAdd() {
  KernelInfo k = test::vectorAddKernel();
  std::vector<AccessBoundInfo> &bounds = k.variants[0].bounds;
  for (const char *param : {"x", "y"})
    bounds.push_back({param, "load", "add.mega:4:14", "", "0", "1024 * (grid_x - 1) + 1023", "", ""});
  bounds.push_back({"out", "store", "add.mega:5:5", "", "0", "1024 * (grid_x - 1) + 1023", "", ""});
  return k;
}

// The launch of a kernel whose accesses would leave a tensor is refused,
// naming the access, the element and the arguments.
TEST(Signature, RefusesALaunchPastATensor) {
  KernelSignature sig(unmaskedVectorAdd());
  LaunchConfig c;
  std::vector<Arg> args = vectorAddArgs(2048);
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, nullptr, c));
  EXPECT_EQ(refusal(sig, vectorAddArgs(1040)),
            "megac: kernel 'vector_add': parameter 'x': the load at add.mega:4:14 would read element "
            "2047, past its 1040 elements (shape [1040]) for these arguments (grid [2, 1, 1], n = "
            "1040): a mask missing in the kernel, or arguments it does not support");
  // A grid the caller gives counts as it is.
  Grid three{3, 1, 1};
  EXPECT_EQ(refusal(sig, args, &three),
            "megac: kernel 'vector_add': parameter 'x': the load at add.mega:4:14 would read element "
            "3071, past its 2048 elements (shape [2048]) for these arguments (grid [3, 1, 1], n = "
            "2048): a mask missing in the kernel, or arguments it does not support");
  // Nothing runs on an empty grid: nothing to refuse.
  Grid none{0, 1, 1};
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, &none, c));
}

// Bounds are the chosen variant's; one that runs only under a condition (its
// loop has trips) is checked only when it holds; one below the first element
// and one that fails to evaluate refuse too.
TEST(Signature, ChecksTheChosenVariantsBounds) {
  KernelInfo k = test::vectorAddKernel();
  k.variants.insert(k.variants.begin(),
                    {"small", "vector_add__small", 0, 0, "n <= 1024", 0, {}, {}, {}});
  k.variants[0].bounds = {{"out", "store", "add.mega:9:5", "n > 16", "n - 2048", "n - 1", "", ""}};
  k.variants[1].bounds = {{"y", "atomic", "", "", "0", "1024 / (n - 4096)", "", ""}};
  KernelSignature sig(k);
  LaunchConfig c;
  std::vector<Arg> args = vectorAddArgs(16);
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, nullptr, c));
  EXPECT_EQ(refusal(sig, vectorAddArgs(32)),
            "megac: kernel 'vector_add': parameter 'out': the store at add.mega:9:5 (variant 'small') "
            "would write element -2016, before its first for these arguments (grid [1, 1, 1], n = "
            "32): a mask missing in the kernel, or arguments it does not support");
  args = vectorAddArgs(2048);
  EXPECT_NO_THROW(sig.prepare(args.data(), args.size(), test::kH200, nullptr, c));
  EXPECT_EQ(refusal(sig, vectorAddArgs(4096)),
            "megac: kernel 'vector_add': expression '1024 / (n - 4096)': division by zero");
}

// The inputs of the last launch whose bounds held are remembered: the same
// inputs again skip the evaluation, and any that differ (the grid, a scalar,
// a tensor's size) are checked again.
TEST(Signature, RemembersOnlyWhatItChecked) {
  KernelInfo k = unmaskedVectorAdd();
  k.params[2].shape = {"_"}; // out's size is not checked: only its bound holds it
  KernelSignature sig(k);
  LaunchConfig c;
  std::vector<Arg> good = vectorAddArgs(2048);
  for (int i = 0; i < 3; ++i)
    EXPECT_NO_THROW(sig.prepare(good.data(), good.size(), test::kH200, nullptr, c));
  Grid three{3, 1, 1};
  EXPECT_NE(refusal(sig, good, &three).find("would read element 3071"), std::string::npos);
  EXPECT_NE(refusal(sig, vectorAddArgs(1040)).find("would read element 2047"), std::string::npos);
  std::vector<Arg> shortOut = good;
  shortOut[2] = Arg::tensor(kPtr + 0x20000, DType::f32, {2047});
  EXPECT_NE(refusal(sig, shortOut).find("the store at add.mega:5:5 would write element 2047, past its 2047"),
            std::string::npos);
  EXPECT_NO_THROW(sig.prepare(good.data(), good.size(), test::kH200, nullptr, c));
}

// Launches from many threads at once, half of them past the tensor: each is
// accepted or refused on its own inputs, whatever the others remembered.
TEST(Signature, BoundsFromManyThreads) {
  KernelSignature sig(unmaskedVectorAdd());
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        bool past = (i + t) % 2;
        std::vector<Arg> args = vectorAddArgs(past ? 1040 : 2048);
        Grid grid{2, 1, 1};
        LaunchConfig c;
        bool refused = false;
        try {
          sig.prepare(args.data(), args.size(), test::kH200, &grid, c);
        } catch (const ArgError &) {
          refused = true;
        }
        wrong += refused != past;
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
}

// A bound shared by accesses that differ by a constant names the one that
// reaches highest past the end and the one that reaches lowest before it.
TEST(Signature, NamesTheAccessThatLeaves) {
  KernelInfo k = test::vectorAddKernel();
  k.variants[0].bounds = {{"x", "store", "s.mega:5:5", "", "n - 1025", "n", "load", "s.mega:4:13"}};
  KernelSignature sig(k);
  EXPECT_NE(refusal(sig, vectorAddArgs(1024)).find("the load at s.mega:4:13 would read element -1, before its first"),
            std::string::npos);
  EXPECT_NE(refusal(sig, vectorAddArgs(2048)).find("the store at s.mega:5:5 would write element 2048, past its 2048"),
            std::string::npos);
}

// A masked access that leaves its tensor: its mask does not match the
// tensor's shape, and the refusal says so instead of asking for a mask.
TEST(Signature, NamesTheMaskThatLetsAnAccessOut) {
  KernelInfo k = test::vectorAddKernel();
  k.variants[0].bounds = {{"out", "store", "s.mega:5:5", "", "0", "n", "", "", true}};
  KernelSignature sig(k);
  std::string why = refusal(sig, vectorAddArgs(1024));
  EXPECT_NE(why.find("the store at s.mega:5:5 would write element 1024, past its 1024 elements"),
            std::string::npos) << why;
  EXPECT_NE(why.find("): its mask lets it past the tensor (a mask that does not match the tensor's shape), or "
                     "arguments it does not support"),
            std::string::npos) << why;
  EXPECT_EQ(why.find("a mask missing"), std::string::npos) << why;
}

TEST(Signature, RefusesABoundOfAnUnknownTensor) {
  KernelInfo k = test::vectorAddKernel();
  k.variants[0].bounds = {{"n", "load", "", "", "0", "0", "", ""}};
  EXPECT_EQ(loadRefusal(k), "megac: kernel 'vector_add': variant 'default': bounds[0]: no tensor "
                            "parameter is named 'n'");
}

// The product of a caller's grid used to overflow before its range check.
TEST(Signature, RefusesAGridPastInt64Ctas) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(1024);
  Grid huge{int64_t(1) << 40, int64_t(1) << 40, 1};
  EXPECT_EQ(refusal(sig, args, &huge),
            "megac: kernel 'vector_add': grid [1099511627776, 1099511627776, 1] has more than 2^63 CTAs");
}

TEST(Signature, GridOverrideAndEmptyGrid) {
  KernelSignature sig(test::vectorAddKernel());
  std::vector<Arg> args = vectorAddArgs(0);
  LaunchConfig c;
  sig.prepare(args.data(), args.size(), test::kH200, nullptr, c);
  EXPECT_TRUE(c.empty());
  args = vectorAddArgs(1024);
  Grid g{7, 2, 1};
  LaunchConfig c2;
  sig.prepare(args.data(), args.size(), test::kH200, &g, c2);
  EXPECT_EQ(c2.grid[0], 7u);
  EXPECT_EQ(c2.grid[1], 2u);
  Grid bad{1, 70000, 1};
  EXPECT_EQ(refusal(sig, args, &bad),
            "megac: kernel 'vector_add': grid [1, 70000, 1] is out of range "
            "(dimension 1 must be in [0, 65535])");
}

// The 168-register cap pays off only in the window of 2-3 waves
// (docs/bundle.md).
TEST(Signature, CapWindowVariantAtBoundaries) {
  KernelSignature sig(test::gdnCoreKernel());
  auto variantFor = [&](int64_t b) {
    // grid = (b, h) with h = 1: ctas = b.
    std::vector<Arg> args = {Arg::tensor(kPtr, DType::bf16, {b, 1, 128, 128}),
                             Arg::tensor(kPtr, DType::f32, {}),
                             Arg::scalar(DType::i32, b),
                             Arg::scalar(DType::i32, 1)};
    LaunchConfig c;
    sig.prepare(args.data(), args.size(), test::kH200, nullptr, c);
    EXPECT_EQ(int64_t(c.grid[0]) * c.grid[1] * c.grid[2], b);
    return sig.info().variants[size_t(c.variant)].name;
  };
  EXPECT_EQ(variantFor(264), "default");
  EXPECT_EQ(variantFor(265), "cap168");
  EXPECT_EQ(variantFor(396), "cap168");
  EXPECT_EQ(variantFor(397), "default");
  int64_t env[kMaxParams + 7] = {};
  EXPECT_EQ(sig.selectVariant(env, 300, {100, 60}), 0);
  EXPECT_EQ(sig.selectVariant(env, 301, {100, 60}), 1);
}

// A variant compiled with other constants (hop's BLOCK = 2048) is chosen by a
// condition on a scalar parameter.
TEST(Signature, VariantByScalarParameter) {
  KernelInfo k = test::vectorAddKernel();
  k.variants = {{"small", "vector_add__small", 0, 0, "n <= 2048", 0, {}, {}, {}},
                {"default", "vector_add", 0, 0, "", 0, {}, {}, {}}};
  KernelSignature sig(k);
  auto variantFor = [&](int64_t n) {
    auto args = vectorAddArgs(n);
    LaunchConfig c;
    sig.prepare(args.data(), args.size(), test::kH200, nullptr, c);
    return sig.info().variants[size_t(c.variant)].symbol;
  };
  EXPECT_EQ(variantFor(1024), "vector_add__small");
  EXPECT_EQ(variantFor(2048), "vector_add__small");
  EXPECT_EQ(variantFor(2064), "vector_add");
}

// `early` in a condition: whether the caller launches early-launch variants
// early (gdn_core's `prefetch`, which waits below its state's loads, only
// then). Unknown to the grid, which is computed before.
TEST(Signature, VariantByLaunchMode) {
  KernelInfo k = test::vectorAddKernel();
  k.variants = {{"prefetch", "vector_add__prefetch", 0, 0, "early && n <= 2048", 0, {}, {}, {}},
                {"default", "vector_add", 0, 0, "", 0, {}, {}, {}}};
  KernelSignature sig(k);
  auto variantFor = [&](int64_t n, bool early) {
    auto args = vectorAddArgs(n);
    LaunchConfig c;
    sig.prepare(args.data(), args.size(), test::kH200, nullptr, c, early);
    return sig.info().variants[size_t(c.variant)].name;
  };
  EXPECT_EQ(variantFor(1024, true), "prefetch");
  EXPECT_EQ(variantFor(1024, false), "default");
  EXPECT_EQ(variantFor(4096, true), "default");
  k.grid = {"cdiv(n, early)", "1", "1"};
  EXPECT_THROW(KernelSignature{k}, ManifestError);
}

// `l2_mb` in a condition: the device's L2 in MiB, which tells an H200 (60)
// from an H100 (50), both of 132 SMs (shared_act_quant's r1c512). Like
// `ctas` and `early`, unknown to the grid.
TEST(Signature, VariantByDeviceL2) {
  KernelInfo k = test::vectorAddKernel();
  k.variants = {{"big_l2", "vector_add__big_l2", 0, 0, "l2_mb >= 55 && n > 2048", 0, {}, {}, {}},
                {"default", "vector_add", 0, 0, "", 0, {}, {}, {}}};
  KernelSignature sig(k);
  auto variantFor = [&](int64_t n, const DeviceFacts &device) {
    auto args = vectorAddArgs(n);
    LaunchConfig c;
    sig.prepare(args.data(), args.size(), device, nullptr, c);
    return sig.info().variants[size_t(c.variant)].name;
  };
  EXPECT_EQ(variantFor(4096, test::kH200), "big_l2");
  EXPECT_EQ(variantFor(4096, test::kH100), "default");
  EXPECT_EQ(variantFor(1024, test::kH200), "default");
  k.grid = {"cdiv(n, l2_mb)", "1", "1"};
  EXPECT_THROW(KernelSignature{k}, ManifestError);
}

// A variant whose constants change the grid (softmax_small's one row a CTA
// at small M) launches its own grid and warps; the condition sees the
// kernel's grid; a grid the caller gives wins.
TEST(Signature, VariantWithItsOwnGridAndWarps) {
  KernelInfo k = test::vectorAddKernel();
  k.variants = {{"rows", "vector_add__rows", 0, 0, "ctas <= 2", 8, {"n / 16", "2", "1"}, {}, {}},
                {"default", "vector_add", 0, 0, "", 0, {}, {}, {}}};
  KernelSignature sig(k);
  // The launch of vector_add over n elements: variant, grid x and y, CTA size.
  using Launch = std::tuple<std::string, uint32_t, uint32_t, uint32_t>;
  auto launch = [&](int64_t n, const Grid *given) {
    LaunchConfig c;
    auto args = vectorAddArgs(n);
    sig.prepare(args.data(), args.size(), test::kH200, given, c);
    return Launch(sig.info().variants[size_t(c.variant)].name, c.grid[0], c.grid[1], c.block[0]);
  };
  EXPECT_EQ(launch(2048, nullptr), Launch("rows", 128, 2, 256));   // kernel grid: 2 CTAs
  EXPECT_EQ(launch(4096, nullptr), Launch("default", 4, 1, 128));  // 4 CTAs: the default's grid and warps
  Grid given{2, 1, 1};
  EXPECT_EQ(launch(2048, &given), Launch("rows", 2, 1, 256));
}

// The variant's grid is range-checked like the kernel's.
TEST(Signature, VariantGridOutOfRange) {
  KernelInfo k = test::vectorAddKernel();
  k.variants = {{"rows", "vector_add__rows", 0, 0, "", 0, {"1", "n", "1"}, {}, {}}};
  KernelSignature sig(k);
  EXPECT_EQ(refusal(sig, vectorAddArgs(1 << 17)),
            "megac: kernel 'vector_add': grid [1, 131072, 1] is out of range "
            "(dimension 1 must be in [0, 65535])");
}

TEST(Signature, NoVariantHolds) {
  KernelInfo k = test::vectorAddKernel();
  k.variants = {{"big", "vector_add", 0, 0, "ctas > 1000", 0, {}, {}, {}}};
  KernelSignature sig(k);
  EXPECT_EQ(refusal(sig, vectorAddArgs(1024)),
            "megac: kernel 'vector_add': no variant's condition holds (ctas = "
            "1, sms = 132, l2_mb = 60, early = 0)");
}

TEST(Signature, BadExpressionsAreRefusedAtLoad) {
  KernelInfo k = test::vectorAddKernel();
  k.grid[0] = "cdiv(n, ctas)";
  EXPECT_EQ(loadRefusal(k), "megac: kernel 'vector_add': grid[0]: expression 'cdiv(n, "
                            "ctas)': unknown name 'ctas' (known: n, sms) at column 9");
  k = test::vectorAddKernel();
  k.params[0].shape = {"x"};
  EXPECT_THROW(KernelSignature{k}, ManifestError);
}

TEST(Signature, RefusesTwoParametersOfOneName) {
  KernelInfo k = test::vectorAddKernel();
  k.params[1].name = "x";
  EXPECT_EQ(loadRefusal(k), "megac: kernel 'vector_add': params: two parameters are named 'x'");
}

TEST(Signature, DivisionByZeroNamesTheKernel) {
  KernelInfo k = test::vectorAddKernel();
  k.grid[0] = "1024 / n";
  KernelSignature sig(k);
  EXPECT_EQ(refusal(sig, vectorAddArgs(0)),
            "megac: kernel 'vector_add': expression '1024 / n': division by "
            "zero");
}

} // namespace

namespace {

// A shape entry "_" is not checked (the rows of a paged cache); the others
// still are.
TEST(Signature, AnyExtentDimensionIsNotChecked) {
  KernelInfo k = test::vectorAddKernel();
  k.params[0].shape = {"_", "n"};
  KernelSignature sig(k);
  std::vector<Arg> args = {Arg::tensor(kPtr, DType::f32, {7, 1024}),
                           Arg::tensor(kPtr + 0x10000, DType::f32, {1024}),
                           Arg::tensor(kPtr + 0x20000, DType::f32, {1024}),
                           Arg::scalar(DType::i32, 1024)};
  LaunchConfig c;
  sig.prepare(args.data(), args.size(), test::kH200, nullptr, c);
  EXPECT_EQ(c.grid[0], 1u);
  args[0] = Arg::tensor(kPtr, DType::f32, {7, 1000});
  EXPECT_EQ(refusal(sig, args),
            "megac: kernel 'vector_add': parameter 'x': shape [7, 1000] given, "
            "[7, 1024] expected (n = 1024)");
}

} // namespace
