//===- SemaTest.cpp - Types, folding and rewrites of valid programs -------===//
#include "TestUtil.h"

#include "frontend/ASTPrinter.h"
#include "frontend/Builtins.h"

#include <fstream>
#include <sstream>

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

const char *kActQuant = R"(
const BLOCK = 1024;
fn silu_mul(g, u) { return silu(g) * u; }

@num_warps(4)
@maxnreg(128)
@grid(cdiv(M * I, BLOCK))
@variant(cap168, maxnreg = 168, min_ctas_per_sm = 3, when = ctas > 2 * sms && ctas <= 3 * sms)
kernel shared_act_quant(x: *bf16[M, 2 * I], scale: *f32, q: *f8e4m3[M, I], M: i32, I: i32 multiple_of 16) {
    let pid = program_id(0);
    let offs = pid * BLOCK + arange(0, BLOCK);
    let row = offs / I;
    let col = offs % I;
    let mask = offs < M * I;
    let g = load(x + row * (2 * I) + col, mask, 0.0) as f32;
    let u = load(x + row * (2 * I) + I + col, mask = mask, other = 0.0) as f32;
    let s = load(scale);
    let a = silu_mul(g, u) / s;
    store(q + offs, a as f8e4m3, mask);
}
)";

std::string typeOf(const Compile &c, size_t stmt) {
  return letInit(c, stmt).type.str();
}

TEST(Sema, ActQuantExampleTypes) {
  Compile c(kActQuant);
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(typeOf(c, 0), "i32");
  EXPECT_EQ(typeOf(c, 1), "tile<1024 x i32>");
  EXPECT_EQ(typeOf(c, 4), "tile<1024 x i1>");
  EXPECT_EQ(typeOf(c, 5), "tile<1024 x f32>");
  EXPECT_EQ(typeOf(c, 7), "f32");
  EXPECT_EQ(typeOf(c, 8), "tile<1024 x f32>");
  const KernelDecl &k = c.kernel();
  EXPECT_EQ(k.numWarps, 4);
  EXPECT_EQ(k.maxnreg, 128);
  ASSERT_EQ(k.grid.size(), 1u);
  EXPECT_EQ(manifestExpr(*k.grid[0]), "cdiv(M * I, 1024)");
  ASSERT_EQ(k.variants.size(), 1u);
  EXPECT_EQ(k.variants[0].name, "cap168");
  EXPECT_EQ(k.variants[0].maxnreg, 168);
  EXPECT_EQ(k.variants[0].minCtasPerSm, 3);
  EXPECT_EQ(manifestExpr(*k.variants[0].when),
            "ctas > 2 * sms && ctas <= 3 * sms");
  EXPECT_EQ(manifestExpr(*k.params[0].shape[1]), "2 * I");
  EXPECT_EQ(k.params[4].multipleOf, 16);
  EXPECT_EQ(k.params[0].align, 16);
}

TEST(Sema, ConstantsFoldIntoTypedLiterals) {
  Compile c(kActQuant);
  ASSERT_TRUE(c.module) << c.errors();
  // pid * BLOCK: BLOCK became an i32 literal 1024.
  // The scalar product pid * BLOCK is splat to the tile shape...
  auto *add = cast<BinaryExpr>(&letInit(c, 1));
  auto *splat = cast<BroadcastExpr>(add->lhs.get());
  EXPECT_EQ(splat->type.str(), "tile<1024 x i32>");
  // ...and BLOCK became an i32 literal 1024.
  auto *mul = cast<BinaryExpr>(splat->operand.get());
  auto *lit = dyn_cast<IntLitExpr>(mul->rhs.get());
  ASSERT_TRUE(lit);
  EXPECT_EQ(lit->value, 1024u);
  EXPECT_EQ(lit->type.str(), "i32");
}

TEST(Sema, ScalarOperandsAreSplatExplicitly) {
  Compile c(inKernel("let a = arange(0, 128) + n;"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *b = cast<BinaryExpr>(&letInit(c, 0));
  ASSERT_TRUE(isa<BroadcastExpr>(b->rhs.get()));
  EXPECT_EQ(b->rhs->type.str(), "tile<128 x i32>");
  EXPECT_EQ(cast<BroadcastExpr>(b->rhs.get())->operand->type.str(), "i32");
}

TEST(Sema, FloatLiteralAdaptsToOtherSide) {
  Compile c(inKernel("let v = load(y + arange(0, 128)); let w = v * 2.0;"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *b = cast<BinaryExpr>(&letInit(c, 1));
  auto *splat = cast<BroadcastExpr>(b->rhs.get());
  auto *lit = dyn_cast<FloatLitExpr>(splat->operand.get());
  ASSERT_TRUE(lit);
  EXPECT_EQ(lit->type.str(), "bf16");
  EXPECT_EQ(b->type.str(), "tile<128 x bf16>");
}

TEST(Sema, IntLiteralAdaptsToFloat) {
  Compile c(inKernel("let f = load(x) * 2;"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *b = cast<BinaryExpr>(&letInit(c, 0));
  EXPECT_TRUE(isa<FloatLitExpr>(b->rhs.get()));
  EXPECT_EQ(b->rhs->type.str(), "f32");
}

TEST(Sema, UntypedDefaultsToI32AndF32) {
  Compile c(inKernel(
      "let a = 3; let b = 1.5; let c = 5000000000; let d = BLOCK * 2;"));
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(typeOf(c, 0), "i32");
  EXPECT_EQ(typeOf(c, 1), "f32");
  EXPECT_EQ(typeOf(c, 2), "i64");
  EXPECT_EQ(typeOf(c, 3), "i32");
  EXPECT_EQ(letInit(c, 3).constValue->i, 256);
}

TEST(Sema, PointerArithmeticPutsPointerOnTheLeft) {
  Compile c(inKernel("let p = arange(0, 128) + x;"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *b = cast<BinaryExpr>(&letInit(c, 0));
  EXPECT_EQ(b->lhs->type.str(), "tile<128 x *f32>");
  EXPECT_EQ(b->rhs->type.str(), "tile<128 x i32>");
  EXPECT_EQ(b->type.str(), "tile<128 x *f32>");
}

TEST(Sema, ExpandDimsAndTwoDimBroadcast) {
  Compile c(inKernel("let r = arange(0, 64); let cc = arange(0, 32);\n"
                     "let p = x + r[:, None] * 32 + cc[None, :];\n"
                     "let v = load(p);\n"
                     "let s = sum(v, 1);\n"
                     "let t = max(v, axis = 0);\n"
                     "let i = argmax(v, 0);\n"
                     "let all = sum(s);\n"));
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(typeOf(c, 2), "tile<64 x 32 x *f32>");
  EXPECT_EQ(typeOf(c, 3), "tile<64 x 32 x f32>");
  EXPECT_EQ(typeOf(c, 4), "tile<64 x f32>");
  EXPECT_EQ(typeOf(c, 5), "tile<32 x f32>");
  EXPECT_EQ(typeOf(c, 6), "tile<32 x i32>");
  EXPECT_EQ(typeOf(c, 7), "f32");
  EXPECT_EQ(cast<CallExpr>(&letInit(c, 5))->builtin, Builtin::ReduceMax);
}

TEST(Sema, ElementwiseMinMaxVersusReduction) {
  Compile c(inKernel("let v = load(x + arange(0, 128));\n"
                     "let r = max(v, 0.0);\n"
                     "let m = max(v);\n"
                     "let k = min(BLOCK, 64);\n"));
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(cast<CallExpr>(&letInit(c, 1))->builtin, Builtin::Maximum);
  EXPECT_EQ(typeOf(c, 1), "tile<128 x f32>");
  EXPECT_EQ(cast<CallExpr>(&letInit(c, 2))->builtin, Builtin::ReduceMax);
  EXPECT_EQ(typeOf(c, 2), "f32");
  EXPECT_EQ(letInit(c, 3).constValue->i, 64);
}

TEST(Sema, ShapeBuiltins) {
  Compile c(inKernel("let z = zeros(16, 8, f32);\n"
                     "let f = full(4, -1, i8);\n"
                     "let r = reshape(z, 128);\n"
                     "let b = broadcast_to(n, 4, 4);\n"
                     "let e = expand_dims(f, 0);\n"
                     "let w = where(r > 0.0, r, 1.0);\n"));
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(typeOf(c, 0), "tile<16 x 8 x f32>");
  EXPECT_EQ(typeOf(c, 1), "tile<4 x i8>");
  EXPECT_EQ(typeOf(c, 2), "tile<128 x f32>");
  EXPECT_EQ(typeOf(c, 3), "tile<4 x 4 x i32>");
  EXPECT_EQ(typeOf(c, 4), "tile<1 x 4 x i8>");
  EXPECT_EQ(typeOf(c, 5), "tile<128 x f32>");
}

TEST(Sema, CastsRecordRoundingAndSaturation) {
  Compile c(
      inKernel("let v = load(x + arange(0, 128));\n"
               "let a = v as f8e4m3;\n"
               "let b = v as i32;\n"
               "let d = cast(v, i32, rounding = rz, saturate = false);\n"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *a = cast<CastExpr>(&letInit(c, 1));
  EXPECT_EQ(a->rounding, Rounding::RNE);
  EXPECT_TRUE(*a->saturate);
  EXPECT_EQ(a->type.str(), "tile<128 x f8e4m3>");
  auto *b = cast<CastExpr>(&letInit(c, 2));
  EXPECT_EQ(b->rounding, Rounding::RZ);
  EXPECT_FALSE(*b->saturate);
  auto *d = cast<CastExpr>(&letInit(c, 3));
  EXPECT_TRUE(d->explicitCall);
  EXPECT_EQ(d->rounding, Rounding::RZ);
  EXPECT_FALSE(*d->saturate);
}

// Casts without a lowering are refused by sema, where they are written.
TEST(Sema, CastsWithoutALoweringAreRefused) {
  for (const char *cast : {"cast(v, f8e5m2, rounding = rz)", "cast(v, f8e4m3, saturate = false)",
                           "cast(v, bf16, rounding = rz)", "n as f8e4m3", "v as f4e2m1x2",
                           "(v as f8e4m3) as i32", "x as *bf16"}) {
    Compile c(inKernel(std::string("let v = load(x + arange(0, 128));\nlet d = ") + cast + ";\n"));
    EXPECT_FALSE(c.module) << cast;
    EXPECT_NE(c.errors().find("hint:"), std::string::npos) << cast << ": " << c.errors();
  }
}

TEST(Sema, CastBindsTighterThanMultiply) {
  Compile c(inKernel("let a = n as f32 * 2.0;"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *b = cast<BinaryExpr>(&letInit(c, 0));
  EXPECT_TRUE(isa<CastExpr>(b->lhs.get()));
  EXPECT_EQ(b->type.str(), "f32");
}

TEST(Sema, LoopCarriedVariablesAreListed) {
  Compile c(inKernel(
      "let acc = zeros(128, f32); let cnt = 0; let t = 1;\n"
      "for i in range(0, n, 2) { let tmp = i; acc += 1.0; cnt = cnt + i; }"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *f = cast<ForStmt>(c.kernel().body[3].get());
  ASSERT_EQ(f->carried.size(), 2u);
  EXPECT_EQ(f->carried[0].var->name, "acc");
  EXPECT_EQ(f->carried[0].type.str(), "tile<128 x f32>");
  EXPECT_EQ(f->carried[1].var->name, "cnt");
  EXPECT_EQ(f->index->type.str(), "i32");
  EXPECT_EQ(f->step->constValue->i, 2);
}

TEST(Sema, IfAssignedVariablesAreListed) {
  Compile c(inKernel(
      "let a = 1.0; let b = 2;\n"
      "if n > 0 { a = 3.0; } else if n < -5 { b = 4; } else { return; }"));
  ASSERT_TRUE(c.module) << c.errors();
  auto *s = cast<IfStmt>(c.kernel().body[2].get());
  ASSERT_EQ(s->carried.size(), 2u);
  EXPECT_EQ(s->carried[0].var->name, "a");
  EXPECT_EQ(s->carried[1].var->name, "b");
  auto *nested = cast<IfStmt>(s->elseBody[0].get());
  ASSERT_EQ(nested->carried.size(), 1u);
  EXPECT_EQ(nested->carried[0].var->name, "b");
}

TEST(Sema, HelpersAreInlinedPerCallSite) {
  Compile c("fn twice(a) { let b = a + a; return b; }\n"
            "kernel k(x: *f32, n: i32) {\n"
            "  let f = twice(load(x));\n"
            "  let i = twice(n);\n"
            "  let k = twice(3);\n"
            "}\n");
  ASSERT_TRUE(c.module) << c.errors();
  auto *f = cast<InlinedCallExpr>(&letInit(c, 0));
  EXPECT_EQ(f->helper, "twice");
  EXPECT_EQ(f->type.str(), "f32");
  ASSERT_EQ(f->body.size(), 2u); // let a = arg; let b = a + a;
  EXPECT_EQ(cast<LetStmt>(f->body[0].get())->var->name, "a");
  EXPECT_EQ(typeOf(c, 1), "i32");
  // A constant argument stays a constant inside the helper.
  auto *k = cast<InlinedCallExpr>(&letInit(c, 2));
  EXPECT_EQ(k->body.size(), 1u);
  EXPECT_EQ(k->result->type.str(), "i32");
}

TEST(Sema, DefinesOverrideConstants) {
  Compile c(
      "const BLOCK = 128;\n"
      "kernel k<W: i32 = 4>(x: *f32) { let a = arange(0, BLOCK); let w = W; }",
      {{"BLOCK", "256"}, {"W", "8"}});
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(typeOf(c, 0), "tile<256 x i32>");
  EXPECT_EQ(letInit(c, 1).constValue->i, 8);
  EXPECT_TRUE(c.module->root().constants[0].overridden);
}

TEST(Sema, ImportsShareConstantsAndHelpers) {
  Compile c(
      "import \"lib/common.mega\";\n"
      "kernel k(x: *f32) { let a = arange(0, B); let b = sq(load(x)); }",
      {},
      {{"lib/common.mega",
        "import \"base.mega\";\nconst B = A * 2;\nfn sq(v) { return v * v; }"},
       {"lib/base.mega", "const A = 32;"}});
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(c.module->files.size(), 3u);
  EXPECT_EQ(typeOf(c, 0), "tile<64 x i32>");
}

TEST(Sema, LaunchVariablesAndParamsInWhen) {
  Compile c("@grid(n, 2)\n"
            "@variant(small, num_warps = 2, when = n < 4096)\n"
            "@variant(big, when = ctas > sms)\n"
            "kernel k(n: i32) { }");
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(c.kernel().variants.size(), 2u);
  EXPECT_EQ(c.kernel().variants[0].numWarps, 2);
  EXPECT_EQ(manifestExpr(*c.kernel().variants[0].when), "n < 4096");
  EXPECT_EQ(manifestExpr(*c.kernel().grid[1]), "2");
}

TEST(Sema, ManifestExprParenthesizes) {
  Compile c("const B = 64;\n@grid((n + B - 1) / B, cdiv(n, B) * (n - "
            "1))\nkernel k(n: i32) {}");
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(manifestExpr(*c.kernel().grid[0]), "(n + 64 - 1) / 64");
  EXPECT_EQ(manifestExpr(*c.kernel().grid[1]), "cdiv(n, 64) * (n - 1)");
}

// The runtime's grammar has one comparison between two sums and no true or
// false: nested comparisons keep their parentheses, conditions print as 1 / 0.
TEST(Sema, ManifestExprAsTheRuntimeReadsIt) {
  Compile c("@variant(a, when = (n > 4) == (m > 4))\n"
            "@variant(b, when = n > 4 != m < 2 && true)\n"
            "@variant(c, when = n == m == false || 1 > 2)\n"
            "kernel k(n: i32, m: i32) {}");
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(manifestExpr(*c.kernel().variants[0].when), "(n > 4) == (m > 4)");
  EXPECT_EQ(manifestExpr(*c.kernel().variants[1].when), "(n > 4) != (m < 2) && 1");
  EXPECT_EQ(manifestExpr(*c.kernel().variants[2].when), "(n == m) == 0 || 0");
}

TEST(Sema, PrintASTShowsTypes) {
  Compile c(kActQuant);
  ASSERT_TRUE(c.module) << c.errors();
  std::ostringstream os;
  printAST(*c.module, os);
  std::string s = os.str();
  EXPECT_NE(s.find("kernel shared_act_quant num_warps=4 maxnreg=128"),
            std::string::npos);
  EXPECT_NE(s.find("param x: *bf16 shape=[M, 2 * I] align=16"),
            std::string::npos);
  EXPECT_NE(s.find("let offs: tile<1024 x i32>"), std::string::npos);
  EXPECT_NE(s.find("inlined silu_mul : tile<1024 x f32>"), std::string::npos);
  EXPECT_NE(s.find("call arange start=0 shape=[1024] : tile<1024 x i32>"),
            std::string::npos);
}

TEST(Sema, EveryExprHasAFinalType) {
  Compile c(kActQuant);
  ASSERT_TRUE(c.module) << c.errors();
  std::ostringstream os;
  printAST(*c.module, os);
  EXPECT_EQ(os.str().find("untyped"), std::string::npos);
  EXPECT_EQ(os.str().find("<invalid>"), std::string::npos);
}

TEST(Sema, NegativeMinimumLiteral) {
  Compile c(inKernel("let a = -9223372036854775808;"));
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(typeOf(c, 0), "i64");
}

TEST(Sema, Fp8QuantizationTypes) {
  Compile c(inKernel(
      "let v = load(y + arange(0, 4)[:, None] * 256 + arange(0, 256)[None, :]);\n"
      "let q = quantize_fp8(v, 0.5, f8e5m2);\n"
      "let d = dequantize_fp8(q, 0.5, bf16);\n"
      "let g = quantize_fp8_group(v, f8e4m3, ue8m0 = true);\n"
      "let s = fp8_group_scales(v, f8e4m3, ue8m0 = true);\n"
      "let b = dequantize_fp8_group(g, s);"));
  ASSERT_TRUE(c.module) << c.errors();
  EXPECT_EQ(typeOf(c, 1), "tile<4 x 256 x f8e5m2>");
  EXPECT_EQ(typeOf(c, 2), "tile<4 x 256 x bf16>");
  EXPECT_EQ(typeOf(c, 3), "tile<4 x 256 x f8e4m3>");
  EXPECT_EQ(typeOf(c, 4), "tile<4 x 2 x f32>");
  EXPECT_EQ(typeOf(c, 5), "tile<4 x 256 x f32>");
  auto *scales = cast<CallExpr>(&letInit(c, 4));
  EXPECT_EQ(scales->fp8, ScalarKind::F8E4M3);
  EXPECT_TRUE(scales->ue8m0);
}

// A helper's true/false parameter stays a compile-time constant inside it.
TEST(Sema, BoolArgumentsOfHelpersStayConstant) {
  Compile c("fn scales(v, flag) { return fp8_group_scales(v, f8e4m3, ue8m0 = flag); }\n"
            "kernel k(x: *f32[128], s: *f32[1]) {\n"
            "    store(s + arange(0, 1), scales(load(x + arange(0, 128)), true));\n"
            "}\n");
  EXPECT_TRUE(c.module) << c.errors();
}

} // namespace
