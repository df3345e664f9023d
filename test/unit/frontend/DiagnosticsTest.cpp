//===- DiagnosticsTest.cpp - Formatting, recovery and the error cap -------===//
#include "TestUtil.h"

#include "frontend/EditDistance.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

TEST(Diagnostics, FormatHasLocationSourceCaretAndHint) {
  Compile c("kernel k(n: i32) {\n  let offs = n;\n  let y = offz + 1;\n}\n");
  EXPECT_EQ(c.errors(), "test.mega:3:11: error: unknown name 'offz'\n"
                        "  let y = offz + 1;\n"
                        "          ^~~~\n"
                        "hint: did you mean 'offs'?\n");
  EXPECT_TRUE(c.diags.hasErrors());
  EXPECT_FALSE(c.module);
}

TEST(Diagnostics, CommandLineErrorsHaveNoSourceLine) {
  Compile c("kernel k() {}", {{"BLOK", "1"}});
  EXPECT_EQ(c.errors(), "<command line>: error: -D BLOK: no constant or "
                        "compile-time parameter has this name\n");
}

TEST(Diagnostics, SeveralParseErrorsAreReported) {
  Compile c("kernel k(n: i32) {\n"
            "  let a = ;\n"
            "  let b = n +;\n"
            "  let c = (n;\n"
            "}\n");
  EXPECT_EQ(c.diags.errorCount(), 3u) << c.errors();
  EXPECT_NE(c.errors().find("test.mega:2:11: error: expected an expression, "
                            "got ';'"),
            std::string::npos);
  EXPECT_NE(c.errors().find("test.mega:4:13: error: expected ')' to close "
                            "the parenthesis, got ';'"),
            std::string::npos);
}

TEST(Diagnostics, RecoveryAtClosingBrace) {
  Compile c("kernel a() { let x = 1 }\nkernel b() { let y = ; }\n");
  EXPECT_EQ(c.diags.errorCount(), 2u) << c.errors();
}

TEST(Diagnostics, CapAtTwentyErrors) {
  std::string body;
  for (int i = 0; i < 30; ++i)
    body += "let v" + std::to_string(i) + " = nope;\n";
  Compile c(inKernel(body));
  EXPECT_EQ(c.diags.errorCount(), 20u);
  EXPECT_NE(c.errors().find("too many errors (20), stopping now"),
            std::string::npos);
}

TEST(Diagnostics, CaretClipsToTheFirstLine) {
  Compile c("kernel k(n: i32) {\n  let a = n +\n  1.5;\n}");
  EXPECT_EQ(c.errors(), "test.mega:3:3: error: float literal 1.5 cannot be "
                        "used as i32\n"
                        "  1.5;\n"
                        "  ^~~\n"
                        "hint: write an integer, or cast one side with "
                        "'as'\n");
}

TEST(Diagnostics, ControlBytesArePrintedAsSpaces) {
  Compile c(std::string("kernel k() { let a = \x01; }"));
  EXPECT_NE(c.errors().find("kernel k() { let a =  ; }\n"), std::string::npos)
      << c.errors();
}

TEST(EditDistance, SuggestsCloseNamesOnly) {
  EXPECT_EQ(closestName("offz", {"offs", "mask", "row"}), "offs");
  EXPECT_EQ(closestName("xyz", {"offs", "mask"}), "");
  EXPECT_EQ(editDistance("kitten", "sitting", 10), 3u);
  EXPECT_EQ(editDistance(std::string(1000, 'a'), "b", 2), 3u);
}

TEST(EditDistance, ASwapOfNeighboursIsOneTypo) {
  EXPECT_EQ(editDistance("laod", "load", 10), 1u);
  EXPECT_EQ(editDistance("ab", "ba", 10), 1u);
  // A swap counts only of two characters no other edit touches: "abc" ->
  // "ca" is three edits, not a deletion and a swap.
  EXPECT_EQ(editDistance("abc", "ca", 10), 3u);
  EXPECT_EQ(closestName("laod", {"load", "store"}), "load");
  EXPECT_EQ(closestName("arnage", {"arange", "range"}), "arange");
  // The cap still ends the search early with a swap in reach.
  EXPECT_EQ(editDistance("abcdefgh", "badcfehg", 2), 3u);
}

} // namespace
