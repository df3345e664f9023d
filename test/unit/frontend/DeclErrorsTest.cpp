//===- DeclErrorsTest.cpp - Declarations, constants, operators, casts -----===//
//
// The diagnostics SemaErrorsTest does not reach: one mistake a case, its
// message (and hint) verbatim.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

TEST(DeclErrors, Redefinitions) {
  expectError("fn f(a) { return a; }\nfn f(b) { return b; }\nkernel k() {}",
              "helper 'f' is already defined");
  expectError("const A = 1;\nconst A = 2;\nkernel k() {}", "constant 'A' is already defined");
  expectError("kernel k<A: i32 = 1, A: i32 = 2>() {}", "parameter 'A' is already defined");
  expectError("@variant(a, maxnreg = 64) @variant(a, maxnreg = 96)\nkernel k() {}",
              "duplicate variant 'a'");
}

TEST(DeclErrors, Constants) {
  expectError("const A = program_id(0);\nkernel k() {}",
              "the value of 'A' must be known at compile time");
  expectError("const A: *f32 = 1;\nkernel k() {}", "constants are integers, floats or i1");
  expectError("const A: i32 = 1.5;\nkernel k() {}", "'A' is declared i32 but its value is 1.5");
  expectError("const A = 1;\nkernel k() {}",
              "-D BLOK: no constant or compile-time parameter has this name", "", {{"BLOK", "1"}});
}

// An operator on constants is refused with the message (and hint) it gets
// on values, before any folding.
TEST(DeclErrors, OperatorsOnConstants) {
  expectError("const A = 1.5 & 2.0;\nkernel k() {}", "'&' expects integers, got untyped float");
  expectError("const A = 1.5 << 2;\nkernel k() {}", "'<<' expects integers, got untyped float");
  expectError("const A = true + false;\nkernel k() {}", "'+' expects numbers, got i1");
  expectError("const A = true < false;\nkernel k() {}", "'<' expects numbers, got i1");
  expectError("const A = 1 && 2;\nkernel k() {}", "'&&' expects i1 operands, got untyped int",
              "compare first, e.g. x != 0");
  expectKernelError("let a = 1.5 || 2.5;", "'||' expects i1 operands, got untyped float",
                    "compare first, e.g. x != 0");
  expectError("const A = !1;\nkernel k() {}", "'!' expects i1, got untyped int",
              "compare instead: x == 0");
  expectError("const A = ~1.5;\nkernel k() {}", "'~' expects integers, got untyped float");
  // What does fold keeps its value.
  expectError("const A = (true && !false) == true;\nconst B: i32 = A;\nkernel k() {}",
              "'B' is declared i32 but its value is true");
  expectError("const A = cdiv(1.5, 2);\nkernel k() {}", "cdiv expects integers");
  expectError("const A = cdiv(4, 0);\nkernel k() {}", "cdiv by a non-positive constant");
}

TEST(DeclErrors, Attributes) {
  expectError("@num_warps(a = 4)\nkernel k() {}",
              "@num_warps takes one integer, e.g. @num_warps(1)");
  expectError("@grid(x = 1)\nkernel k() {}", "@grid takes positional expressions");
  expectError("@zzzzzzzz\nkernel k() {}", "unknown attribute '@zzzzzzzz'",
              "attributes are @num_warps @maxnreg @min_ctas_per_sm @grid @variant @fast_math "
              "@fast_division @value_major @tile_division @tree_reductions @fused_reductions "
              "@early_launch");
}

TEST(DeclErrors, Helpers) {
  expectError("fn f(a) { return a; }\nkernel k(n: i32) { let b = f(a = n); }",
              "helper 'f' takes no keyword arguments");
  // Each level calls the one below twice: 2^13 inlined calls.
  std::string src = "fn f0(a) { return a; }\n";
  for (int i = 1; i <= 13; ++i)
    src += "fn f" + std::to_string(i) + "(a) { return f" + std::to_string(i - 1) + "(a) + f" +
           std::to_string(i - 1) + "(a); }\n";
  expectError(src + "kernel k(n: i32) { let b = f13(n); }",
              "too many helper calls to inline (more than 4096)");
}

TEST(DeclErrors, Loops) {
  expectKernelError("for i in range(0, load(x)) { }",
                    "range() bounds must be integer scalars, got f32");
  expectKernelError("for i in range(0, 8, unroll = 17) { }",
                    "range()'s unroll must be between 1 and 16, got 17",
                    "unroll = 2 or 4 usually suffices to overlap loads");
}

TEST(DeclErrors, Operators) {
  expectKernelError("let a = (n > 0) * (n > 1);", "'*' expects numbers, got i1");
  expectKernelError("let a = ~load(x);", "'~' expects integers, got f32");
  expectKernelError("let p: *f32 = 0;", "the number 0 cannot be used as a pointer");
  expectKernelError("let a = store(x, 1.0)[:, None];", "cannot index void");
}

TEST(DeclErrors, Casts) {
  expectKernelError("let a = load(x) as e8m0;", "casts to or from e8m0 are not supported",
                    "use quantize/dequantize (or bitcast for raw bits)");
  expectKernelError("let a = n as f8e4m3;", "convert integers to f32 before casting to f8e4m3",
                    "(x as f32) as f8e4m3");
  expectKernelError("let a = cast(load(x), f8e4m3, rounding = rz);",
                    "only rne rounding exists for f8e4m3", "drop the rounding mode");
}

} // namespace
