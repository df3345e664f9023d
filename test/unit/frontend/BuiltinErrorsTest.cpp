//===- BuiltinErrorsTest.cpp - The text of each builtin call's diagnostic --===//
//
// One misuse a case, its message (and hint) verbatim. The kernel of
// inKernel has x: *f32, y: *bf16, n: i32 and m: i64.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

const char kFour[] = "let offs = arange(0, 4);\n";

TEST(BuiltinErrors, LoadOther) {
  expectKernelError(std::string(kFour) + "let a = load(x + offs, offs < n, other = (1.0 as bf16));",
                    "'other' is bf16 but the load gives f32", "cast it: (value as f32)");
  expectKernelError(std::string(kFour) + "let a = load(x + offs, offs < n, other = zeros(8, f32));",
                    "'other' shape [8] does not match the load shape [4]");
}

TEST(BuiltinErrors, StoreAndAtomics) {
  expectKernelError(std::string(kFour) + "store(x + offs, zeros(8, f32));",
                    "shapes of pointer [4], value [8] do not broadcast together");
  expectKernelError(std::string(kFour) + "store(x + offs, zeros(4, f32), arange(0, 2) < 1);",
                    "shapes of pointer [4], value [4], mask [2] do not broadcast together");
  expectError("kernel k(p: *f8e4m3) { atomic_add(p, load(p)); }",
              "'atomic_add' does not support f8e4m3");
}

// Different values stored to one address: the offsets forgotten, or too few.
TEST(BuiltinErrors, StoreOfManyValuesToOneAddress) {
  const char *hint = "offset the pointer along every dim of the value (ptr + offs), reduce the "
                     "value first (sum(v, axis = 0)), or mask all but one element";
  expectKernelError(std::string(kFour) + "store(x, load(x + offs));",
                    "store writes 4 elements of tile<4 x f32> to each address of its scalar "
                    "pointer: one of them lands, which one is not defined",
                    hint);
  expectKernelError(std::string(kFour) +
                        "store(x + offs[:, None], load(x + offs[:, None] * 4 + offs[None, :]));",
                    "store writes 4 elements of tile<4 x 4 x f32> to each address of tile<4 x 1 "
                    "x *f32>: one of them lands, which one is not defined",
                    hint);
  expectKernelError(std::string(kFour) + "store(x + offs[None, :], zeros(2, 1, f32) + 1.0);",
                    "store writes 2 elements of tile<2 x 1 x f32> to each address of tile<1 x 4 "
                    "x *f32>: one of them lands, which one is not defined",
                    hint);
  // Fine: a mask that may leave one element an address, a value replicated
  // along the pointer's broadcast dim, a scalar value, an atomic.
  for (const char *ok : {"store(x, load(x + offs), offs == 0);",
                         "store(x + offs[:, None] * 4 + offs[None, :], load(x + offs)[None, :]);",
                         "store(x + offs[:, None], load(x + offs)[:, None]);",
                         "store(x, 1.0, offs < 4);", "store(x, sum(load(x + offs), axis = 0));",
                         "atomic_add(x, load(x + offs));"}) {
    Compile c(inKernel(std::string(kFour) + ok));
    EXPECT_TRUE(c.module) << ok << "\n" << c.errors();
  }
}

TEST(BuiltinErrors, WhereAndCdiv) {
  expectKernelError(std::string(kFour) + "let a = where(offs < 2, zeros(8, f32), 1.0);",
                    "incompatible shapes in 'where': [4] and [8]");
  expectKernelError(std::string(kFour) + "let a = fma(load(x + offs), zeros(8, f32), 1.0);",
                    "incompatible shapes in 'fma': [4] and [8]");
  expectKernelError("let a = cdiv(load(x), load(x));", "cdiv expects integers, got f32");
  expectKernelError("let a = cdiv(arange(0, 4), arange(0, 8));",
                    "incompatible shapes in 'cdiv': [4] and [8]");
}

TEST(BuiltinErrors, ShapeBuiltins) {
  expectKernelError("let a = reshape(zeros(8, f32), dims = 4);",
                    "'reshape' takes positional arguments");
  expectKernelError("let a = expand_dims(zeros(8, f32));", "expand_dims takes (x, axis)");
  expectKernelError("let a = reshape(store(x, 1.0), 1);", "'reshape' expects a value, got void");
}

TEST(BuiltinErrors, Factories) {
  expectKernelError("let a = zeros(4, dtype = f32);", "'zeros' takes positional arguments");
  expectKernelError("let a = full(4, f32);", "full takes (dims..., value, dtype)",
                    "e.g. full(128, 64, -1.0, f32)");
  expectKernelError("let a = zeros(4, *f32);", "the dtype must be a scalar element type");
  expectKernelError("let a = full(4, n, f32);", "full value must be a f32 scalar, got i32");
  expectKernelError("let a = zeros(65536, 65536, f32);",
                    "tile [65536, 65536] is too large (more than 16777216 elements)");
}

TEST(BuiltinErrors, Fp4) {
  expectKernelError("let v = zeros(4, 16, f32);\n"
                    "let d = dequantize_nvfp4(v, zeros(4, 1, f32), 1.0);",
                    "'dequantize_nvfp4' expects packed f4e2m1x2 values, got tile<4 x 16 x f32>");
}

TEST(BuiltinErrors, Bitcast) {
  expectKernelError("let a = bitcast(n, 3);", "bitcast expects a type as its 2nd argument",
                    "bitcast(x, i32)");
  expectKernelError("let a = bitcast(1.0, i32);", "bitcast needs a typed value, got untyped float",
                    "give the literal a type first, e.g. (1.0 as f32)");
}

TEST(BuiltinErrors, WithLayout) {
  expectKernelError("let a = with_layout(n, spt0 = 1, tpw0 = 32, wpc0 = 4);",
                    "with_layout places a tile, got i32");
  expectKernelError("let a = with_layout(zeros(128, f32), spt0 = 1, tpw0 = 32, wpc0 = 4, "
                    "spt1 = 1);",
                    "'spt1' names a dimension tile<128 x f32> does not have");
  expectKernelError("let a = with_layout(zeros(128, f32), spt0 = 1, wpc0 = 4);",
                    "with_layout of tile<128 x f32> needs 'tpw0'",
                    "give spt, tpw and wpc for every dimension, e.g. with_layout(x, spt0 = 1, "
                    "spt1 = 4, tpw0 = 4, tpw1 = 8, wpc0 = 4, wpc1 = 1)");
}

} // namespace
