//===- ParserTest.cpp - Syntax: structure, precedence, syntax errors ------===//
#include "TestUtil.h"

#include "frontend/Lexer.h"
#include "frontend/Parser.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

struct Parsed {
  SourceManager sm;
  DiagnosticEngine diags{sm};
  std::unique_ptr<FileAST> file;
  explicit Parsed(const std::string &text) {
    uint32_t id = sm.addBuffer("p.mega", text);
    file = parseFile(id, lex(id, sm.text(id), diags), diags);
  }
  /// Init of the nth let of the first kernel.
  const Expr &init(size_t n) const {
    return *cast<LetStmt>(file->kernels.at(0).body.at(n).get())->init;
  }
};

TEST(Parser, TopLevelDeclarations) {
  Parsed p("import \"a.mega\";\nconst A = 1;\nfn f(a, b) { return a; }\n"
           "@num_warps(8) @grid(n)\n"
           "kernel k<B: i32 = 64>(x: *bf16[n, 2 * n] align 32, n: i32 "
           "multiple_of 16) { }");
  ASSERT_FALSE(p.diags.hasErrors()) << p.diags.formatted();
  EXPECT_EQ(p.file->imports.at(0).first, "a.mega");
  EXPECT_EQ(p.file->constants.at(0).name, "A");
  EXPECT_EQ(p.file->helpers.at(0).params.size(), 2u);
  const KernelDecl &k = p.file->kernels.at(0);
  EXPECT_EQ(k.attributes.size(), 2u);
  EXPECT_EQ(k.constParams.at(0).name, "B");
  EXPECT_EQ(k.params.at(0).shape.size(), 2u);
  EXPECT_EQ(k.params.at(0).align, 32);
  EXPECT_EQ(k.params.at(1).multipleOf, 16);
  EXPECT_TRUE(k.params.at(0).typeRef.elem.isPointer);
}

TEST(Parser, PrecedenceLowToHigh) {
  Parsed p("kernel k() { let a = 1 || 2 && 3 | 4 ^ 5 & 6 == 7 < 8 << 9 + 10 "
           "* -11 as f32; }");
  ASSERT_FALSE(p.diags.hasErrors()) << p.diags.formatted();
  auto *e = cast<BinaryExpr>(&p.init(0));
  EXPECT_EQ(e->op, BinaryOp::LogicalOr);
  auto *andE = cast<BinaryExpr>(e->rhs.get());
  EXPECT_EQ(andE->op, BinaryOp::LogicalAnd);
  auto *orE = cast<BinaryExpr>(andE->rhs.get());
  EXPECT_EQ(orE->op, BinaryOp::BitOr);
  auto *xorE = cast<BinaryExpr>(orE->rhs.get());
  EXPECT_EQ(xorE->op, BinaryOp::BitXor);
  auto *bandE = cast<BinaryExpr>(xorE->rhs.get());
  EXPECT_EQ(bandE->op, BinaryOp::BitAnd);
  auto *eqE = cast<BinaryExpr>(bandE->rhs.get());
  EXPECT_EQ(eqE->op, BinaryOp::Eq);
  auto *ltE = cast<BinaryExpr>(eqE->rhs.get());
  EXPECT_EQ(ltE->op, BinaryOp::Lt);
  auto *shlE = cast<BinaryExpr>(ltE->rhs.get());
  EXPECT_EQ(shlE->op, BinaryOp::Shl);
  auto *addE = cast<BinaryExpr>(shlE->rhs.get());
  EXPECT_EQ(addE->op, BinaryOp::Add);
  auto *mulE = cast<BinaryExpr>(addE->rhs.get());
  EXPECT_EQ(mulE->op, BinaryOp::Mul);
  // Unary minus applies to the cast: -(11 as f32).
  auto *neg = cast<UnaryExpr>(mulE->rhs.get());
  EXPECT_TRUE(isa<CastExpr>(neg->operand.get()));
}

TEST(Parser, LeftAssociative) {
  Parsed p("kernel k() { let a = 1 - 2 - 3; }");
  auto *e = cast<BinaryExpr>(&p.init(0));
  EXPECT_TRUE(isa<BinaryExpr>(e->lhs.get()));
  EXPECT_TRUE(isa<IntLitExpr>(e->rhs.get()));
}

TEST(Parser, CompoundAssignmentDesugars) {
  Parsed p("kernel k() { x *= 2; }");
  auto *a = cast<AssignStmt>(p.file->kernels[0].body[0].get());
  auto *b = cast<BinaryExpr>(a->value.get());
  EXPECT_EQ(b->op, BinaryOp::Mul);
  EXPECT_EQ(cast<NameExpr>(b->lhs.get())->name, "x");
}

TEST(Parser, CallsKeywordArgsIndexAndTypes) {
  Parsed p("kernel k() { let a = load(p, mask = m, other = 0.0)[:, None]; "
           "let t: tile<64 x 32 x f16> = zeros(64, 32, f16); }");
  ASSERT_FALSE(p.diags.hasErrors()) << p.diags.formatted();
  auto *idx = cast<IndexExpr>(&p.init(0));
  EXPECT_EQ(idx->isNewDim, (std::vector<bool>{false, true}));
  auto *call = cast<CallExpr>(idx->base.get());
  EXPECT_EQ(call->args[1].name, "mask");
  auto *let = cast<LetStmt>(p.file->kernels[0].body[1].get());
  EXPECT_EQ(let->annotation->tileDims.size(), 2u);
  auto *zeros = cast<CallExpr>(let->init.get());
  EXPECT_TRUE(isa<TypeArgExpr>(zeros->args[2].value.get()));
}

TEST(Parser, ForIfElseReturn) {
  Parsed p("kernel k() { for i in range(0, 10, 2) { } if a { return; } else "
           "if b { } else { } }");
  ASSERT_FALSE(p.diags.hasErrors()) << p.diags.formatted();
  auto *f = cast<ForStmt>(p.file->kernels[0].body[0].get());
  EXPECT_TRUE(f->step != nullptr);
  auto *i = cast<IfStmt>(p.file->kernels[0].body[1].get());
  EXPECT_TRUE(isa<IfStmt>(i->elseBody[0].get()));
}

TEST(Parser, ErrorExpectedSemicolon) {
  Parsed p("kernel k() { let a = 1 let b = 2; }");
  EXPECT_EQ(p.diags.formatted(),
            "p.mega:1:24: error: expected ';' after the expression, got "
            "'let'\n"
            "kernel k() { let a = 1 let b = 2; }\n"
            "                       ^~~\n");
}

TEST(Parser, ErrorBadTopLevel) {
  Parsed p("let a = 1;");
  EXPECT_NE(p.diags.formatted().find(
                "error: expected 'import', 'const', 'fn' or 'kernel', got "
                "'let'"),
            std::string::npos);
}

TEST(Parser, ErrorBadIndex) {
  Parsed p("kernel k() { let a = x[0]; }");
  EXPECT_NE(p.diags.formatted().find(
                "error: expected ':' or 'None' in an index, got integer"),
            std::string::npos);
  EXPECT_NE(p.diags.formatted().find(
                "hint: indexing only inserts dims: x[:, None] or x[None, :]"),
            std::string::npos);
}

TEST(Parser, ErrorRangeArity) {
  Parsed p("kernel k() { for i in range(5) { } }");
  EXPECT_NE(p.diags.formatted().find("error: range() takes 2 or 3 arguments, "
                                     "got 1"),
            std::string::npos);
}

TEST(Parser, ErrorForNeedsRange) {
  Parsed p("kernel k() { for i in 5 { } }");
  EXPECT_NE(p.diags.formatted().find("error: expected 'range(...)' after "
                                     "'in'"),
            std::string::npos);
}

TEST(Parser, ErrorBadTypeName) {
  Parsed p("kernel k(x: *float) { }");
  EXPECT_NE(p.diags.formatted().find("error: expected a type name, got "
                                     "'float'"),
            std::string::npos);
}

TEST(Parser, ErrorTileParam) {
  Parsed p("kernel k(x: tile<4 x f32>) { }");
  EXPECT_NE(p.diags.formatted().find("error: tile types are not allowed "
                                     "here"),
            std::string::npos);
}

TEST(Parser, ErrorCallOfNonName) {
  Parsed p("kernel k() { let a = (1)(2); }");
  EXPECT_NE(p.diags.formatted().find("error: only named functions can be "
                                     "called"),
            std::string::npos);
}

TEST(Parser, ErrorImportWithoutPath) {
  Parsed p("import common;");
  EXPECT_NE(p.diags.formatted().find("error: expected a quoted path after "
                                     "'import'"),
            std::string::npos);
}

TEST(Parser, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "kernel k() { let a = " + std::string(100000, '(') + "1" +
                     std::string(100000, ')') + "; }";
  Parsed p(deep);
  EXPECT_EQ(p.diags.errorCount(), 1u);
  EXPECT_NE(p.diags.formatted().find("error: nesting is too deep (more than "
                                     "128 levels)"),
            std::string::npos);
  std::string unary =
      "kernel k() { let a = " + std::string(100000, '-') + "1; }";
  Parsed q(unary);
  EXPECT_EQ(q.diags.errorCount(), 1u);
}

TEST(Parser, DeepBlocksAreAnError) {
  std::string deep =
      "kernel k() " + std::string(5000, '{') + std::string(5000, '}');
  Parsed p(deep);
  EXPECT_TRUE(p.diags.hasErrors());
}

TEST(Parser, GiantIdentifierIsTruncatedInMessages) {
  std::string name(100000, 'a');
  Parsed p("kernel k() { " + name + " " + name + "; }");
  EXPECT_TRUE(p.diags.hasErrors());
  EXPECT_LT(p.diags.diagnostics()[0].message.size(), 200u);
}

} // namespace
