//===- ExprTest.cpp - Expression parsing and evaluation -------------------===//
#include "megac/runtime/expr.h"
#include "megac/runtime/error.h"

#include <gtest/gtest.h>

using namespace megac::rt;

namespace {

const std::vector<std::string> kNames = {"n", "m", "", "ctas", "sms"};

int64_t eval(std::string_view text,
             std::vector<int64_t> env = {1000, 7, 0, 0, 132}) {
  return Expr::parse(text, kNames).eval(env.data());
}

std::string parseError(std::string_view text) {
  try {
    Expr::parse(text, kNames);
  } catch (const ExprError &e) {
    return e.what();
  }
  ADD_FAILURE() << "parsed: " << text;
  return "";
}

std::string evalError(std::string_view text, std::vector<int64_t> env) {
  try {
    eval(text, env);
  } catch (const ExprError &e) {
    return e.what();
  }
  ADD_FAILURE() << "evaluated: " << text;
  return "";
}

TEST(Expr, Arithmetic) {
  EXPECT_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_EQ(eval("10 - 2 - 3"), 5);
  EXPECT_EQ(eval("100 / 7 / 2"), 7);
  EXPECT_EQ(eval("-7 / 2"), -3); // truncates, as C
  EXPECT_EQ(eval("-7 % 2"), -1);
  EXPECT_EQ(eval("- -3"), 3);
  EXPECT_EQ(eval("n * m"), 7000);
}

TEST(Expr, Functions) {
  EXPECT_EQ(eval("cdiv(n, 1024)"), 1);
  EXPECT_EQ(eval("cdiv(1025, 1024)"), 2);
  EXPECT_EQ(eval("cdiv(1024, 1024)"), 1);
  EXPECT_EQ(eval("cdiv(0, 1024)"), 0);
  EXPECT_EQ(eval("cdiv(-5, 2)"), -2);
  EXPECT_EQ(eval("min(n, m)"), 7);
  EXPECT_EQ(eval("max(n, m)"), 1000);
  EXPECT_EQ(eval("max(min(n, 4), cdiv(m, 2))"), 4);
}

TEST(Expr, Logic) {
  EXPECT_EQ(eval("n > m"), 1);
  EXPECT_EQ(eval("n < m"), 0);
  EXPECT_EQ(eval("n >= 1000 && n <= 1000"), 1);
  EXPECT_EQ(eval("n == 1000"), 1);
  EXPECT_EQ(eval("n != 1000"), 0);
  EXPECT_EQ(eval("!(n == 1000) || m == 7"), 1);
  EXPECT_EQ(eval("!0"), 1);
  EXPECT_EQ(eval("5 && 3"), 1);
  EXPECT_EQ(eval("0 || 0 || 4"), 1);
  EXPECT_EQ(eval("1 && 1 && 0"), 0);
  EXPECT_EQ(eval("1 || 0 && 0"), 1); // && binds tighter
}

TEST(Expr, ShortCircuitGuardsDivision) {
  EXPECT_EQ(eval("m > 0 && 100 / m > 2", {0, 0, 0, 0, 0}), 0);
  EXPECT_EQ(eval("m == 0 || 100 / m > 2", {0, 0, 0, 0, 0}), 1);
}

TEST(Expr, CapWindowRule) {
  Expr e = Expr::parse("ctas > 2 * sms && ctas <= 3 * sms", kNames);
  auto at = [&](int64_t ctas) {
    int64_t env[] = {0, 0, 0, ctas, 132};
    return e.eval(env);
  };
  EXPECT_EQ(at(264), 0);
  EXPECT_EQ(at(265), 1);
  EXPECT_EQ(at(396), 1);
  EXPECT_EQ(at(397), 0);
}

TEST(Expr, SingleNameAndConstant) {
  EXPECT_EQ(Expr::parse("m", kNames).singleName(), 1);
  EXPECT_EQ(Expr::parse(" n ", kNames).singleName(), 0);
  EXPECT_EQ(Expr::parse("n + 0", kNames).singleName(), -1);
  EXPECT_TRUE(Expr::parse("128", kNames).isConstant());
  EXPECT_FALSE(Expr::parse("n", kNames).isConstant());
  EXPECT_EQ(Expr().eval(nullptr), 1);
}

TEST(Expr, ParseErrors) {
  EXPECT_EQ(parseError("n +"),
            "expression 'n +': expected a value before the end at column 4");
  EXPECT_EQ(parseError("foo * 2"),
            "expression 'foo * 2': unknown name 'foo' (known: n, m, ctas, sms) "
            "at column 1");
  EXPECT_EQ(parseError("(n"),
            "expression '(n': expected ')' before the end at column 3");
  EXPECT_EQ(parseError("n m"), "expression 'n m': unexpected 'm' at column 3");
  EXPECT_EQ(parseError("cdiv(n)"),
            "expression 'cdiv(n)': expected ',' at column 7");
  EXPECT_EQ(parseError("n & m"),
            "expression 'n & m': unexpected '&' at column 3");
  EXPECT_EQ(parseError("12ab"), "expression '12ab': bad integer at column 3");
  EXPECT_NE(parseError("99999999999999999999").find("integer too large"),
            std::string::npos);
  EXPECT_NE(parseError("").find("expected a value before the end"),
            std::string::npos);
  std::string wide;
  for (int i = 0; i < 40; ++i)
    wide += "1+(";
  wide += "1" + std::string(40, ')');
  EXPECT_NE(parseError(wide).find("too deeply nested (more than 32 pending "
                                  "values)"),
            std::string::npos);
  std::string deep = std::string(100, '(') + "1" + std::string(100, ')');
  EXPECT_NE(parseError(deep).find("too deeply nested (more than 64 "
                                  "parentheses)"),
            std::string::npos);
  EXPECT_EQ(eval(std::string(60, '(') + "5" + std::string(60, ')')), 5);
}

// A run of unary operators recursed once an operator, so a long one overflowed
// the stack (found by fuzz/runtime_fuzzer.cpp); it is a loop now.
TEST(Expr, LongRunsOfUnaryOperators) {
  EXPECT_EQ(eval(std::string(1000000, '-') + "5"), 5);
  EXPECT_EQ(eval(std::string(1000001, '-') + "5"), -5);
  EXPECT_EQ(eval(std::string(1000001, '!') + "5"), 0);
  EXPECT_EQ(eval("-!-!5"), -1);
  EXPECT_EQ(eval("!-5 != -!5"), 0);
}

TEST(Expr, EvalErrors) {
  EXPECT_EQ(evalError("n / m", {5, 0, 0, 0, 0}),
            "expression 'n / m': division by zero");
  EXPECT_EQ(evalError("cdiv(n, m)", {5, 0, 0, 0, 0}),
            "expression 'cdiv(n, m)': division by zero");
  EXPECT_EQ(evalError("n % m", {5, 0, 0, 0, 0}),
            "expression 'n % m': division by zero");
  EXPECT_EQ(evalError("n * m", {INT64_MAX, 2, 0, 0, 0}),
            "expression 'n * m': overflow");
}

} // namespace
