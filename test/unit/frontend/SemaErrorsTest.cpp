//===- SemaErrorsTest.cpp - The text of each semantic diagnostic ----------===//
#include "TestUtil.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

TEST(SemaErrors, TypeMismatchShowsBothTypes) {
  Compile c(inKernel("let a = load(x + arange(0, 128));\n"
                     "let b = load(y + arange(0, 128));\n"
                     "let s = a + b;"));
  EXPECT_EQ(c.errors(), "test.mega:5:11: error: mismatched types in '+': "
                        "tile<128 x f32> and tile<128 x bf16>\n"
                        "let s = a + b;\n"
                        "          ^\n"
                        "hint: cast one side with 'as', e.g. (x as bf16)\n");
}

TEST(SemaErrors, ShapeMismatchShowsBothShapes) {
  expectKernelError("let a = arange(0, 128) + arange(0, 64);",
                    "incompatible shapes in '+': [128] and [64]",
                    "dims must be equal or 1; insert a dim with x[:, None]");
}

TEST(SemaErrors, MathNeedsFloats) {
  expectKernelError("let a = exp(arange(0, 128));",
                    "exp expects a floating-point value, got tile<128 x i32>",
                    "cast first: (x as f32)");
}

TEST(SemaErrors, NonPowerOfTwoTile) {
  expectKernelError("let a = arange(0, 100);",
                    "tile dimension 100 is not a power of two",
                    "pad to the next power of two and mask");
}

TEST(SemaErrors, TooManyDims) {
  expectKernelError("let a = zeros(2, 2, 2, 2, f32);",
                    "tiles have 1 to 3 dims, got 4");
}

TEST(SemaErrors, UnknownFunctionSuggestsBuiltin) {
  expectKernelError("let a = lod(x);", "unknown function 'lod'",
                    "did you mean 'load'?");
}

TEST(SemaErrors, SwappedLettersSuggestTheName) {
  expectKernelError("let a = laod(x);", "unknown function 'laod'",
                    "did you mean 'load'?");
}

TEST(SemaErrors, StorageOnlyArithmetic) {
  expectError("kernel k(p: *f8e4m3) { let a = load(p) * 2.0; }",
              "a literal cannot be f8e4m3 directly",
              "write it as f32 and cast: (2.0 as f8e4m3)");
  expectError("kernel k(p: *f8e4m3) { let a = load(p); let b = a + a; }",
              "arithmetic on f8e4m3 is not supported (got f8e4m3)",
              "cast to f32 first: (x as f32)");
}

TEST(SemaErrors, IfConditionOnTile) {
  expectKernelError("if arange(0, 128) < 4 { }",
                    "'if' condition must be a scalar i1, got tile<128 x i1>",
                    "for elementwise selection use where(cond, a, b)");
}

TEST(SemaErrors, LoopCarriedTypeChange) {
  expectKernelError("let acc = 0; for i in range(0, n) { acc = 1.5 * "
                    "load(x); }",
                    "cannot assign f32 to 'acc' of type i32",
                    "a variable keeps the type of its 'let' (also across "
                    "loop iterations); cast with 'as' or use a new 'let'");
}

TEST(SemaErrors, ReturnInsideLoop) {
  expectKernelError("for i in range(0, 4) { return; }",
                    "early 'return' is not allowed inside a 'for' loop");
}

TEST(SemaErrors, KernelReturnsValue) {
  expectKernelError("return 1;", "kernels cannot return a value",
                    "write results with store(ptr, value)");
}

TEST(SemaErrors, HelperRecursion) {
  expectError("fn f(a) { return f(a); }\nkernel k(n: i32) { let b = f(n); }",
              "helper 'f' calls itself",
              "helpers are inlined, so recursion is not supported");
}

TEST(SemaErrors, HelperArity) {
  expectError("fn f(a, b) { return a; }\nkernel k(n: i32) { let b = f(n); }",
              "'f' takes 2 arguments, got 1");
}

TEST(SemaErrors, HelperReturnNotLast) {
  expectError("fn f(a) { return a; let b = 1; }\n"
              "kernel k(n: i32) { let b = f(n); }",
              "'return' must be the last statement of a helper");
}

TEST(SemaErrors, HelperRedefinesBuiltin) {
  expectError("fn exp(a) { return a; }\nkernel k() {}",
              "'exp' is a builtin and cannot be redefined");
}

TEST(SemaErrors, ImportCycleNamesTheCycle) {
  expectError(
      "import \"a.mega\";\nkernel k() {}",
      "import cycle: a.mega -> b.mega -> a.mega",
      "move the shared declarations into a third file", {},
      {{"a.mega", "import \"b.mega\";"}, {"b.mega", "import \"a.mega\";"}});
}

TEST(SemaErrors, MissingImport) {
  expectError("import \"nope/missing.mega\";\nkernel k() {}",
              "cannot open 'nope/missing.mega': No such file or directory");
  // A directory used to read as an empty file.
  expectError("import \"/\";\nkernel k() {}", "cannot open '/': it is a directory");
}

TEST(SemaErrors, Attributes) {
  expectError("@num_warp(4)\nkernel k() {}", "unknown attribute '@num_warp'",
              "did you mean '@num_warps'?");
  expectError("@num_warps(4) @num_warps(8)\nkernel k() {}",
              "duplicate attribute '@num_warps'");
  expectError("@num_warps(3)\nkernel k() {}",
              "@num_warps must be a power of two, got 3");
  expectError("@maxnreg(300)\nkernel k() {}",
              "@maxnreg must be between 24 and 255, got 300");
  expectError("@grid()\nkernel k() {}", "@grid takes 1 to 3 expressions",
              "@grid(cdiv(n, BLOCK)) or @grid(x, y, z)");
  expectError("@variant(maxnreg = 3)\nkernel k() {}",
              "@variant needs a name first",
              "@variant(big, maxnreg = 168, when = ctas > 2 * sms)");
  // A variant's options have the kernel attributes' ranges.
  expectError("@variant(v, num_warps = 64)\nkernel k() {}", "'num_warps' must be in 1..32, got 64");
  expectError("@variant(v, num_warps = 6)\nkernel k() {}",
              "'num_warps' must be a power of two, got 6");
  expectError("@variant(v, maxnreg = 8)\nkernel k() {}", "'maxnreg' must be in 24..255, got 8");
  expectError("@variant(v, min_ctas_per_sm = 65)\nkernel k() {}",
              "'min_ctas_per_sm' must be in 1..64, got 65");
}

TEST(SemaErrors, LaunchExpressions) {
  expectError("@grid(x)\nkernel k(x: *f32) {}",
              "a grid dimension must be an integer scalar, got *f32",
              "it may use scalar parameters, constants and integer "
              "arithmetic");
  expectError("@variant(v, when = ctas + 1)\nkernel k() {}",
              "the 'when' condition must be an i1 condition, got i64");
  expectError("@grid(offs)\nkernel k(n: i32) { let offs = n; }",
              "unknown name 'offs'");
}

// What the runtime cannot evaluate is refused here, where it is written: it
// used to reach the manifest and be refused when the bundle was loaded (`<<`,
// `~`, a float, `where`, `program_id`), or be read otherwise (a narrowing cast).
TEST(SemaErrors, LaunchExpressionsTheRuntimeCannotEvaluate) {
  const std::string arithmetic =
      "the runtime evaluates grid, shape and 'when' expressions in 64-bit integers with + - * / %, "
      "comparisons, && || !, cdiv, min and max";
  expectError("@grid(n << 1)\nkernel k(n: i32) {}", "'<<' cannot appear in a grid dimension",
              arithmetic + "; multiply or divide by a power of two");
  expectError("@variant(v, when = n >> 2 > 1)\nkernel k(n: i32) {}",
              "'>>' cannot appear in the 'when' condition",
              arithmetic + "; multiply or divide by a power of two");
  expectError("@variant(v, when = (n & 7) == 0)\nkernel k(n: i32) {}",
              "'&' cannot appear in the 'when' condition",
              arithmetic + "; n % 8 == 0 tests what n & 7 == 0 does");
  expectError("kernel k(x: *f32[n | 1], n: i32) {}", "'|' cannot appear in a shape dimension",
              arithmetic + "; n % 8 == 0 tests what n & 7 == 0 does");
  expectError("@grid(~n)\nkernel k(n: i32) {}", "'~' cannot appear in a grid dimension",
              arithmetic + "; -x - 1 is ~x");
  expectError("@variant(v, when = (n as f32) * 1.5 > 100.0)\nkernel k(n: i32) {}",
              "a floating-point value cannot appear in the 'when' condition", arithmetic);
  expectError("@variant(v, when = eps > 0.5)\nkernel k(eps: f32) {}",
              "a floating-point value cannot appear in the 'when' condition", arithmetic);
  expectError("@variant(v, when = where(n > 4, n, 4) > 5)\nkernel k(n: i32) {}",
              "a call of 'where' cannot appear in the 'when' condition", arithmetic);
  expectError("@variant(v, when = program_id(0) > 0)\nkernel k() {}",
              "a call of 'program_id' cannot appear in the 'when' condition", arithmetic);
  expectError("@grid(n as i8)\nkernel k(n: i32) {}",
              "a cast from i32 to i8 cannot appear in a grid dimension",
              arithmetic + ", so a cast may only widen (the runtime would not wrap the value)");
  expectError("@grid(n as u32)\nkernel k(n: i32) {}",
              "a cast from i32 to u32 cannot appear in a grid dimension");
  const std::string names = "in its launch expressions the runtime reads 'ctas', 'sms', 'l2_mb', 'early', "
                            "'grid_x', 'grid_y' and 'grid_z' as the launch's and 'cdiv', 'min' and 'max' as its "
                            "functions; rename it";
  for (const char *name : {"ctas", "sms", "early", "l2_mb", "grid_x", "grid_y", "grid_z", "cdiv", "min", "max"})
    expectError(std::string("kernel k(x: *f32[n], n: i32, ") + name + ": i32) {}",
                std::string("a kernel parameter cannot be named '") + name + "'", names);
  // The launch's names exist in a variant's condition only.
  for (std::string name : {"ctas", "sms", "early", "l2_mb"}) {
    const std::string hint = "'" + name + "' is known only in a variant's condition, @variant(name, when = ...)";
    expectError("@grid(" + name + ")\nkernel k(x: *f32[4]) {}", "unknown name '" + name + "'", hint);
    expectError("kernel k(x: *f32[4], n: i64) { let a = n + " + name + "; }", "unknown name '" + name + "'", hint);
  }
}

TEST(SemaErrors, Constants) {
  expectError("const A = 1 / 0;\nkernel k() {}",
              "division by zero in constant expression");
  expectError("const A = 1 << 64;\nkernel k() {}",
              "shift amount 64 is out of range [0, 63]");
  expectError("const A = 9223372036854775807 + 1;\nkernel k() {}",
              "integer overflow in constant expression");
  expectError("kernel k(n: i32) { let a = n; }\nconst B = A;",
              "unknown name 'A'");
  expectError("kernel k<B: i32>() {}",
              "compile-time parameter 'B' has no value",
              "give a default (<B: i32 = 1024>) or pass -D B=...");
  expectError("const A: u8 = 300;\nkernel k() {}",
              "value 300 of 'A' does not fit in u8");
  expectError("const A = 1;\nkernel k() { A = 2; }",
              "cannot assign to constant 'A'",
              "declare a variable: let A = ...;");
}

TEST(SemaErrors, Defines) {
  expectError("const A = 1;\nkernel k() {}",
              "-D A=1.5: 'A' is an integer constant", "", {{"A", "1.5"}});
  expectError("const A = 1;\nkernel k() {}",
              "-D A=abc: not an integer, float or true/false", "",
              {{"A", "abc"}});
}

TEST(SemaErrors, LiteralsThatDoNotFit) {
  expectKernelError("let a: u8 = 300;", "integer 300 does not fit in u8");
  expectKernelError("let a: i1 = 1;", "the number 1 cannot be used as i1",
                    "use true/false, or compare: x != 0");
}

TEST(SemaErrors, LetAnnotationMismatch) {
  expectKernelError("let a: tile<64 x f32> = arange(0, 64);",
                    "'a' is declared tile<64 x f32> but the value is "
                    "tile<64 x i32>",
                    "cast the value with 'as'");
}

TEST(SemaErrors, MemoryOps) {
  expectKernelError("let a = load(n);", "'load' expects a pointer, got i32",
                    "pointers are kernel params of type *T, offset with +");
  expectKernelError("let a = load(x, n);", "mask must be i1, got i32",
                    "compare to make a mask: offs < n");
  expectKernelError("store(y, load(x));", "'store' of f32 through *bf16",
                    "cast the value: (value as bf16)");
  expectKernelError("let a = load(x + arange(0, 64), arange(0, 32) < 4);",
                    "mask shape [32] does not match pointer shape [64]");
  expectKernelError("let a = load(x, mask = true, other = 1, msk = true);",
                    "'load' has no parameter 'msk'", "did you mean 'mask'?");
  expectKernelError("let a = load(ptr = x, true);",
                    "positional argument after a keyword argument");
  expectKernelError("let a = load(x, mask = true, mask = false);",
                    "argument 'mask' is given twice");
  expectKernelError("let a = load();", "'load' needs argument 'ptr'");
}

TEST(SemaErrors, Reductions) {
  expectKernelError("let a = sum(zeros(4, 4, f32));",
                    "'sum' over a 2-D tile needs an axis", "sum(x, axis = 0)");
  expectKernelError("let a = sum(zeros(4, 4, f32), 2);",
                    "axis 2 is out of range for tile<4 x 4 x f32>");
  expectKernelError("let a = sum(n);", "'sum' reduces a tile, got i32");
}

TEST(SemaErrors, ShapeBuiltins) {
  expectKernelError("let a = reshape(zeros(8, f32), 4);",
                    "cannot reshape tile<8 x f32> (8 elements) to [4] (4 "
                    "elements)");
  expectKernelError("let a = broadcast_to(zeros(8, f32), 4);",
                    "cannot broadcast tile<8 x f32> to [4]",
                    "dims must be equal or 1");
  expectKernelError("let a = arange(0, n);",
                    "arange end must be a compile-time integer",
                    "use a literal or a 'const'");
  expectKernelError("let a = program_id(3);", "axis must be 0, 1 or 2, got 3");
  expectKernelError("let a = zeros(4);", "zeros takes (dims..., dtype)",
                    "e.g. zeros(128, 64, f32)");
}

TEST(SemaErrors, Operators) {
  expectKernelError("let a = n && n;", "'&&' expects i1 operands, got i32",
                    "compare first, e.g. x != 0");
  expectKernelError("let a = x * 2;",
                    "invalid pointer arithmetic: *f32 * untyped int",
                    "pointers support ptr + int and ptr - int (offsets in "
                    "elements)");
  expectKernelError("let a = x + 1.5;",
                    "pointer offset must be an integer, got f32");
  expectKernelError("let a = load(x) << 2;", "'<<' expects integers, got f32");
  expectKernelError("let a = !n;", "'!' expects i1, got i32",
                    "compare instead: x == 0");
  expectKernelError("let a = arange(0, 4)[:, :];",
                    "index has 2 ':' but the value has 1 dims (tile<4 x i32>)",
                    "write one ':' per existing dim and None for each new dim");
  expectKernelError("let a = n as *f32;", "cannot cast i32 to *f32",
                    "casts convert numbers to numbers or pointers to pointers");
  expectKernelError("let a = f32;", "a type is not a value here",
                    "types are arguments only of zeros, full, cast and bitcast, or "
                    "follow 'as'");
  expectKernelError("store(x, 1.0);\nlet b = store(x, 1.0) + 1;",
                    "this call has no value");
}

TEST(SemaErrors, Loops) {
  expectKernelError("for i in range(n, m) { }",
                    "range() bounds must share one type: i32 and i64",
                    "cast one with 'as'");
  expectKernelError("for i in range(0, 8, 0) { }",
                    "range() step must be positive");
  expectKernelError("for i in range(0, 8) { i = 2; }",
                    "cannot assign to loop variable 'i'");
}

TEST(SemaErrors, Params) {
  expectError("kernel k(a: f32 multiple_of 16) {}",
              "'multiple_of' applies to integer parameters; 'a' is f32");
  expectError("kernel k(a: i32[4]) {}",
              "only pointer parameters have a shape; 'a' is i32");
  expectError("kernel k(a: f8e4m3) {}", "scalar parameters cannot be f8e4m3",
              "pass it as f32, or pass a pointer *f8e4m3");
  expectError("kernel k(a: *f32 align 12) {}",
              "'align' of 'a' must be a power of two");
  expectError("kernel k(a: i32, a: i32) {}", "parameter 'a' is already "
                                             "defined");
}

TEST(SemaErrors, CastKeywords) {
  expectKernelError("let a = cast(load(x), f8e4m3, rounding = up);",
                    "rounding must be one of rne, rz, ru, rd");
  expectKernelError("let a = cast(load(x), 3);",
                    "cast expects a type as its 2nd argument",
                    "cast(x, f8e4m3, rounding = rne, saturate = true)");
}

// FP8 quantization: every misuse names the call and what it expected.
const char kTile[] = "let v = load(x + arange(0, 4)[:, None] * 256 + arange(0, 256)[None, :]);\n";

TEST(SemaErrors, QuantizeFp8) {
  expectKernelError("let q = quantize_fp8(arange(0, 128), 2.0, f8e4m3);",
                    "'quantize_fp8' quantizes a tile of f32, bf16 or f16, got tile<128 x i32>");
  expectKernelError("let q = quantize_fp8(load(x), 2.0, f8e4m3);",
                    "'quantize_fp8' quantizes a tile, got the scalar f32",
                    "quantize a tile of whole blocks, e.g. load(x + arange(0, 16))");
  expectKernelError("let q = quantize_nvfp4(load(x), 1.0);",
                    "'quantize_nvfp4' quantizes a tile, got the scalar f32",
                    "quantize a tile of whole blocks, e.g. load(x + arange(0, 16))");
  expectKernelError(std::string(kTile) + "let q = quantize_fp8(v, 2.0, bf16);",
                    "'quantize_fp8' quantizes to f8e4m3 or f8e5m2, got bf16",
                    "FP8 is f8e4m3 (finite to 448) or f8e5m2 (finite to 57344)");
  expectKernelError(std::string(kTile) + "let q = quantize_fp8(v, 2.0, 3);",
                    "'quantize_fp8' expects a type here: f8e4m3 or f8e5m2");
  expectKernelError(std::string(kTile) + "let q = quantize_fp8(v, v, f8e4m3);",
                    "the scale must be an f32 scalar, got tile<4 x 256 x f32>");
  expectKernelError(std::string(kTile) + "let q = quantize_fp8(v, f8e4m3);",
                    "'quantize_fp8' needs argument 'dtype'");
}

TEST(SemaErrors, QuantizeFp8Group) {
  expectKernelError("let v = load(x + arange(0, 64));\nlet q = quantize_fp8_group(v, f8e4m3);",
                    "'quantize_fp8_group' needs the last dimension to be a multiple of 128, got [64]",
                    "each block of 128 consecutive elements shares one scale");
  expectKernelError(std::string(kTile) + "let s = fp8_group_scales(v, f8e4m3, ue8m0 = 1);",
                    "ue8m0 must be true or false");
  expectKernelError(std::string(kTile) + "let s = fp8_group_scales(v, f8e4m3, ue8m0 = n > 0);",
                    "ue8m0 must be true or false");
  expectKernelError(std::string(kTile) + "let s = fp8_group_scales(v, e8m0);",
                    "'fp8_group_scales' quantizes to f8e4m3 or f8e5m2, got e8m0");
  expectKernelError(std::string(kTile) + "let s = fp8_group_scales(expand_dims(v, 0), f8e4m3);",
                    "'fp8_group_scales' needs a 1-D or 2-D tile when a row holds several groups "
                    "of 128, got [1, 4, 256]",
                    "use [rows, K], or one group per row: [.., 128]");
}

TEST(SemaErrors, DequantizeFp8) {
  expectKernelError(std::string(kTile) + "let d = dequantize_fp8(v, 2.0);",
                    "'dequantize_fp8' expects a tile of f8e4m3 or f8e5m2 values, got "
                    "tile<4 x 256 x f32>");
  expectKernelError(std::string(kTile) +
                        "let d = dequantize_fp8(quantize_fp8(v, 2.0, f8e5m2), 2.0, f16);",
                    "'dequantize_fp8' dequantizes to f32 or bf16, got f16");
  expectKernelError(std::string(kTile) +
                        "let d = dequantize_fp8_group(quantize_fp8_group(v, f8e4m3), v);",
                    "the scales must be tile<4 x 2 x f32> for values tile<4 x 256 x f8e4m3>, got "
                    "tile<4 x 256 x f32>",
                    "one f32 scale per 128 values, as fp8_group_scales gives them");
}

} // namespace
