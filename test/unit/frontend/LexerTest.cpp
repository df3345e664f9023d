//===- LexerTest.cpp ------------------------------------------------------===//
#include "frontend/Lexer.h"
#include "frontend/Diagnostics.h"
#include "frontend/SourceManager.h"

#include <gtest/gtest.h>

using namespace megac::fe;

namespace {

struct Lexed {
  SourceManager sm;
  DiagnosticEngine diags{sm};
  std::vector<Token> toks;
  explicit Lexed(const std::string &text) {
    uint32_t id = sm.addBuffer("t.mega", text);
    toks = lex(id, sm.text(id), diags);
  }
  std::vector<Tok> kinds() const {
    std::vector<Tok> k;
    for (const Token &t : toks)
      k.push_back(t.kind);
    return k;
  }
};

TEST(Lexer, KeywordsIdentifiersAndPunctuation) {
  Lexed l("let x = a <= b >> 2; // comment\n/* block */ x += 1;");
  std::vector<Tok> expected = {
      Tok::KwLet,      Tok::Ident, Tok::Assign, Tok::Ident, Tok::LessEq,
      Tok::Ident,      Tok::Shr,   Tok::Int,    Tok::Semi,  Tok::Ident,
      Tok::PlusAssign, Tok::Int,   Tok::Semi,   Tok::Eof};
  EXPECT_EQ(l.kinds(), expected);
  EXPECT_FALSE(l.diags.hasErrors());
}

TEST(Lexer, IntegerLiterals) {
  Lexed l("1_024 0xff 0x_10 9223372036854775807");
  ASSERT_EQ(l.toks.size(), 5u);
  EXPECT_EQ(l.toks[0].intValue, 1024u);
  EXPECT_EQ(l.toks[1].intValue, 255u);
  EXPECT_EQ(l.toks[2].intValue, 16u);
  EXPECT_EQ(l.toks[3].intValue, 9223372036854775807u);
  EXPECT_FALSE(l.diags.hasErrors());
}

TEST(Lexer, FloatLiterals) {
  Lexed l("1.0 1e-6 .5 2.5E3 3.");
  ASSERT_EQ(l.toks.size(), 6u);
  EXPECT_DOUBLE_EQ(l.toks[0].floatValue, 1.0);
  EXPECT_DOUBLE_EQ(l.toks[1].floatValue, 1e-6);
  EXPECT_DOUBLE_EQ(l.toks[2].floatValue, 0.5);
  EXPECT_DOUBLE_EQ(l.toks[3].floatValue, 2500.0);
  EXPECT_DOUBLE_EQ(l.toks[4].floatValue, 3.0);
  for (int i = 0; i < 5; ++i)
    EXPECT_EQ(l.toks[i].kind, Tok::Float);
}

TEST(Lexer, IntegerOverflowIsDiagnosed) {
  Lexed l("let a = 99999999999999999999;");
  EXPECT_EQ(l.diags.formatted(),
            "t.mega:1:9: error: integer literal is too large for i64\n"
            "let a = 99999999999999999999;\n"
            "        ^~~~~~~~~~~~~~~~~~~~\n"
            "hint: the largest integer is 9223372036854775807\n");
}

TEST(Lexer, FloatOverflowIsDiagnosed) {
  Lexed l("1e999");
  EXPECT_NE(l.diags.formatted().find("float literal is out of range"),
            std::string::npos);
}

TEST(Lexer, UnterminatedBlockComment) {
  Lexed l("let a = 1; /* never closed");
  EXPECT_EQ(l.diags.formatted(),
            "t.mega:1:12: error: unterminated block comment\n"
            "let a = 1; /* never closed\n"
            "           ^~\n"
            "hint: close it with '*/'\n");
}

TEST(Lexer, UnterminatedString) {
  Lexed l("import \"abc\n");
  EXPECT_NE(l.diags.formatted().find("unterminated string literal"),
            std::string::npos);
}

TEST(Lexer, JunkBytesAreReportedOncePerRun) {
  Lexed l("a \x01\x02\xff b $ c");
  EXPECT_EQ(l.diags.errorCount(), 2u);
  EXPECT_NE(l.diags.formatted().find("unexpected character (byte 0x01)"),
            std::string::npos);
  EXPECT_EQ(l.toks.back().kind, Tok::Eof);
}

TEST(Lexer, NulBytesDoNotStopLexing) {
  Lexed l(std::string("a\0b", 3));
  EXPECT_EQ(l.diags.errorCount(), 1u);
  EXPECT_EQ(l.toks.size(), 3u); // a, b, eof
}

TEST(Lexer, InvalidSuffix) {
  Lexed l("12abc");
  EXPECT_NE(l.diags.formatted().find("invalid suffix on numeric literal"),
            std::string::npos);
}

} // namespace
