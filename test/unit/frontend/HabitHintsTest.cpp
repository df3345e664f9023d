//===- HabitHintsTest.cpp - Other languages' spellings get this one's -----===//
//
// Each test writes what a Python, Triton or C author writes first and expects
// the message and the hint naming this language's spelling, verbatim. The
// last tests check that a mistake the lexer reports is reported once, not
// again by the parser tripping over what the lexer skipped, and that the hints
// stay out of code they do not fit.
//===----------------------------------------------------------------------===//
#include "TestUtil.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

const char *const kWhere = "a value chosen by a condition is where(cond, a, b)";

TEST(HabitHints, PythonOperators) {
  expectKernelError("let a = (n > 0) and (n < 9);",
                    "expected ';' after the expression, got 'and'",
                    "write 'and' as '&&' ('or' is '||', 'not' is '!')");
  expectKernelError("let a = (n > 0) or (n < 9);",
                    "expected ';' after the expression, got 'or'",
                    "write 'or' as '||' ('and' is '&&', 'not' is '!')");
  expectKernelError("let a = n is 0;", "expected ';' after the expression, got 'is'",
                    "compare with '==' or '!='");
  expectKernelError("let a = n ** 2;", "expected an expression, got '*'",
                    "there is no '**': multiply (x * x), or exp2(y * log2(x)) for x > 0");
  expectKernelError("let a = load(x) if n > 0 else 0.0;",
                    "expected ';' after the expression, got 'if'", kWhere);
  expectKernelError("let a = load(x) @ load(x);", "expected ';' after the expression, got '@'",
                    "a matrix product is dot(a, b), or dot(a, b, acc) to accumulate");
}

TEST(HabitHints, PythonValues) {
  expectKernelError("let a = reshape(arange(0, 128), [2, 64]);",
                    "expected an expression, got '['",
                    "there are no list or tuple values: dimensions are separate arguments, as "
                    "in reshape(x, 2, 64) and zeros(2, 64, f32)");
  expectKernelError("let a = zeros((128,), f32);",
                    "expected ')' to close the parenthesis, got ','",
                    "there are no tuples: dimensions are separate arguments, as in zeros(2, "
                    "64, f32)");
  expectKernelError("let a = True;", "unknown name 'True'", "booleans are 'true' and 'false'");
  expectKernelError("let a = not (n > 0);", "unknown function 'not'",
                    "negation is '!': !(a > b)");
  expectKernelError("let a = pow(load(x), 2.0);", "unknown function 'pow'",
                    "there is no pow: multiply (x * x), or exp2(y * log2(x)) for x > 0");
  expectKernelError("let a = float(n);", "unknown function 'float'",
                    "a cast is written 'x as f32' (or i32, f64, f16, ...)");
  expectKernelError("let a = f32(n);", "only named functions can be called",
                    "a cast is written 'x as f32'");
  expectKernelError("let a = maximum(load(x), 0.0);", "unknown function 'maximum'",
                    "max(a, b) and min(a, b) are elementwise; max(x, axis = 0) reduces");
  expectKernelError("let a = load(x) ^ 2.0;", "'^' expects integers, got f32",
                    "'^' is exclusive or: for a power, multiply (x * x)");
}

TEST(HabitHints, MethodsAndModules) {
  const char *hint = "nothing has methods, fields or modules here: builtins are called by "
                     "name, as in sum(x, axis = 1), trans(x), load(p)";
  expectKernelError("let a = tl.load(x);", "unexpected '.'", hint);
  expectKernelError("let t = arange(0, 128); let a = t.sum();", "unexpected '.'", hint);
  expectKernelError("let t = arange(0, 128)[:, None]; let a = t[:, :].T;", "unexpected '.'",
                    hint);
}

TEST(HabitHints, Statements) {
  expectKernelError("var a = 1;", "expected ';' after the expression, got 'a'",
                    "variables are declared with 'let': let a = ...;");
  expectKernelError("int a = 1;", "expected ';' after the expression, got 'a'",
                    "variables are declared with 'let': let a = ...;");
  expectKernelError("let mut a = 1;", "expected '=' after the variable name, got 'a'",
                    "every 'let' variable can be assigned: drop 'mut'");
  expectKernelError("if n > 0: store(x, 1.0);", "expected '{' to start a block, got ':'",
                    "blocks are in braces, not after ':': if c { ... }, for i in range(0, n) "
                    "{ ... }");
  expectKernelError("for i in range(0, n): store(x, 1.0);",
                    "expected '{' to start a block, got ':'",
                    "blocks are in braces, not after ':': if c { ... }, for i in range(0, n) "
                    "{ ... }");
  expectKernelError("if n > 0 { } elif n < 0 { }", "expected ';' after the expression, got 'n'",
                    "write 'else if'");
  expectKernelError("while n > 0 { }", "expected ';' after the expression, got 'n'",
                    "there is no 'while': loops are for i in range(start, end) { ... }");
  expectKernelError("let i = 0; i++;", "expected an expression, got '+'",
                    "there is no '++': write i += 1");
  expectError("def f(a):\n    return a\n", "expected 'import', 'const', 'fn' or 'kernel', got 'def'",
              "helpers are fn name(a, b) { ... }, kernels kernel name(x: *f32, n: i32) { ... }");
}

TEST(HabitHints, Characters) {
  expectKernelError("let a = n > 0 ? 1.0 : 2.0;", "unexpected character (byte 0x3f)",
                    std::string("there is no '?:': ") + kWhere);
  expectKernelError("# a comment", "unexpected character (byte 0x23)",
                    "comments are // and /* */");
  expectKernelError("let a = 'a';", "unexpected character (byte 0x27)",
                    "strings take double quotes, and only 'import' takes one");
  expectKernelError("let a = n \u2212 1;", "unexpected character (byte 0xe2)",
                    "code is ASCII (comments and strings may hold any text): a pasted "
                    "'\u2212', '\u00d7' or curly quote is not '-', '*' or '\"'");
  expectKernelError("let a = 1e-3f;", "invalid suffix on numeric literal",
                    "literals take no suffix: a literal takes the type its use needs; cast it "
                    "with 'as' for another (2 as i64)");
}

TEST(HabitHints, IntegerDivisionWrittenAsAComment) {
  // Python's `//` starts a comment here: the statement runs on to the next
  // line, where the missing ';' is found.
  expectKernelError("let a = n // 2;\nlet b = 1;", "expected ';' after the expression, got 'let'",
                    "the line before ends in a '//' comment: if '//' was meant as division, "
                    "write '/'");
}

/// The number of errors `body` gets in a kernel.
unsigned errorsIn(const std::string &body) {
  Compile c(inKernel(body));
  return c.diags.errorCount();
}

TEST(HabitHints, ALexerErrorIsReportedOnce) {
  // Before, the parser went on to report the token after what the lexer
  // skipped ("expected ';' after the expression, got 'load'").
  EXPECT_EQ(errorsIn("let a = tl.load(x);"), 1u);
  EXPECT_EQ(errorsIn("let a = n > 0 ? 1.0 : 2.0;"), 1u);
  EXPECT_EQ(errorsIn("let a = 'a';"), 1u);
  EXPECT_EQ(errorsIn("# a comment: with words, (brackets and) a 'quote"), 1u);
  EXPECT_EQ(errorsIn("let a = n \u2212 1;"), 1u);
  // Errors after the statement are still reported.
  EXPECT_EQ(errorsIn("let a = t.x; let b = ;"), 2u);
}

TEST(HabitHints, OnlyWhereTheyFit) {
  // A comment after a statement missing its ';' reads as prose: no division
  // hint. A '.' not after an operand keeps the float hint.
  Compile comment(inKernel("let a = n // half of it\nlet b = 1;"));
  EXPECT_EQ(comment.errors().find("division"), std::string::npos) << comment.errors();
  expectKernelError("let a = .x;", "unexpected '.'", "floats need a digit after '.', like '.5'");
  // A statement missing its ';' above a line that starts with '@' or 'if'
  // is not a matrix product or a conditional value.
  Compile missingSemi("const X = 1\n@grid(1)\nkernel k() {}");
  EXPECT_NE(missingSemi.errors().find("error: expected ';'"), std::string::npos)
      << missingSemi.errors();
  EXPECT_EQ(missingSemi.errors().find("hint:"), std::string::npos) << missingSemi.errors();
  Compile acrossComment("const X = 1 /* ends\nhere */ @grid(1)\nkernel k() {}");
  EXPECT_EQ(acrossComment.errors().find("hint:"), std::string::npos) << acrossComment.errors();
  Compile beforeIf(inKernel("let a = n\nif n > 0 { }"));
  EXPECT_EQ(beforeIf.errors().find("where"), std::string::npos) << beforeIf.errors();
  // A typo of a builtin still gets "did you mean".
  expectKernelError("let a = maxx(n, 1);", "unknown function 'maxx'", "did you mean 'max'?");
  // `^` on integers is fine, and on i1 too.
  Compile xorOk(inKernel("let a = n ^ 3; let b = (n > 0) ^ (n < 9);"));
  EXPECT_TRUE(xorOk.module) << xorOk.errors();
  // Code after a '//' comment that ends in ';' but follows a complete
  // statement is fine.
  Compile fine(inKernel("let a = 1; // let b = 2;\nlet c = 3;"));
  EXPECT_TRUE(fine.module) << fine.errors();
}

} // namespace
