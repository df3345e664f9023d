//===- SyntaxErrorsTest.cpp - The text of each lexer and parser diagnostic -===//
//
// Each test writes one mistake and expects its message (and hint) verbatim:
// a reworded message fails here, as a user reading it would notice.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

TEST(SyntaxErrors, Literals) {
  expectError("kernel k() { let a = 0x; }", "hexadecimal literal has no digits");
  expectError("kernel k() { let a = 1e999; }", "float literal is out of range",
              "the largest f64 is about 1.8e308");
  expectError("import \"a.mega;\nkernel k() {}", "unterminated string literal",
              "close it with '\"' on the same line");
  expectError("kernel k() { let a = .x; }", "unexpected '.'",
              "floats need a digit after '.', like '.5'");
}

TEST(SyntaxErrors, Declarations) {
  expectError("const = 1;", "expected a constant name after 'const'");
  expectError("fn (a) { return a; }", "expected a function name after 'fn'");
  expectError("fn f(1) { return 1; }", "expected a parameter name, got integer",
              "helper parameters are untyped: fn f(a, b) { ... }");
  expectError("@ kernel k() {}", "expected an attribute name after '@'");
  expectError("kernel () {}", "expected a kernel name after 'kernel'");
  expectError("kernel k<1>() {}", "expected a compile-time parameter name");
  expectError("kernel k(1) {}", "expected a parameter name, got integer");
}

TEST(SyntaxErrors, ParameterAttributes) {
  expectError("kernel k(n: i32 multiple_of m) {}", "expected an integer after 'multiple_of'");
  expectError("kernel k(p: *f32 align p) {}", "expected an integer after 'align'");
  expectError("kernel k(p: *f32 align 0) {}", "the value must be positive");
}

TEST(SyntaxErrors, Types) {
  expectError("kernel k(t: tile<4 x f32>) {}", "tile types are not allowed here",
              "kernel parameters are scalars or pointers");
  expectError("kernel k() { let a: tile<4 f32> = zeros(4, f32); }",
              "expected 'x' in tile type, got 'f32'", "write tile<128 x 64 x f32>");
  expectError("kernel k(a: float) {}", "expected a type name, got 'float'",
              "types are i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 "
              "f8e4m3 f8e5m2 f4e2m1x2 e8m0, pointers *T");
  expectError("kernel k() { let a: tile<+ x f32> = zeros(4, f32); }",
              "expected a tile dimension, got '+'");
}

TEST(SyntaxErrors, Statements) {
  expectError("kernel k() { let = 1; }", "expected a variable name after 'let', got '='");
  expectError("kernel k() { for in range(0, 4) { } }", "expected a loop variable after 'for'");
  expectError("kernel k() { for i in 4 { } }", "expected 'range(...)' after 'in'",
              "loops are: for i in range(start, end) or range(start, end, step)");
  expectError("kernel k() { for i in range(4) { } }", "range() takes 2 or 3 arguments, got 1",
              "write range(start, end) or range(start, end, step)");
  expectError("kernel k() { for i in range(0, 4, step = 2) { } }",
              "range() takes no keyword 'step'", "its only keyword is unroll = N, last");
  expectError("kernel k() { let a = arange(0, 4)(1); }", "only named functions can be called");
}

} // namespace
