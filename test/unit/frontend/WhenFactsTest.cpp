//===- WhenFactsTest.cpp - Divisibility a variant's `when` implies --------===//

#include "TestUtil.h"

#include "frontend/WhenFacts.h"

using namespace megac::fe;
using namespace megac::fe::test;

namespace {

// The facts of the first variant of a kernel k(x: *f32[n], n: i32, m: i32)
// whose `when` is `cond`: parameter index -> divisor (n is 1, m is 2).
std::map<int, int64_t> factsOf(const std::string &cond) {
  Compile c("const VEC = 8;\n@variant(v, when = " + cond +
            ")\nkernel k(x: *f32[n], n: i32, m: i32) {\n"
            "    store(x + arange(0, 128), 1.0, arange(0, 128) < n);\n}\n");
  EXPECT_EQ(c.errors(), "");
  if (!c.module)
    return {};
  return divisorsFromWhen(*c.kernel().variants.at(0).when);
}

TEST(WhenFactsTest, RemainderZeroOfAParameter) {
  EXPECT_EQ(factsOf("n % 4 == 0"), (std::map<int, int64_t>{{1, 4}}));
  EXPECT_EQ(factsOf("0 == m % 16"), (std::map<int, int64_t>{{2, 16}}));
  EXPECT_EQ(factsOf("n % VEC == 0"), (std::map<int, int64_t>{{1, 8}}));
}

TEST(WhenFactsTest, ConjunctsJoin) {
  EXPECT_EQ(factsOf("n % 4 == 0 && m % 3 == 0 && n > 16"),
            (std::map<int, int64_t>{{1, 4}, {2, 3}}));
  // Two facts of one parameter: their least common multiple.
  EXPECT_EQ(factsOf("n % 4 == 0 && n % 6 == 0"), (std::map<int, int64_t>{{1, 12}}));
}

TEST(WhenFactsTest, WhatDoesNotImplyItGivesNothing) {
  EXPECT_TRUE(factsOf("n % 4 == 0 || n > 100").empty()); // either side may hold
  EXPECT_TRUE(factsOf("n * 2 % 4 == 0").empty());        // a remainder of an expression
  EXPECT_TRUE(factsOf("n % 4 != 0").empty());
  EXPECT_TRUE(factsOf("n % 4 == 1").empty());
  EXPECT_TRUE(factsOf("ctas % 4 == 0").empty()); // not a kernel parameter
  EXPECT_TRUE(factsOf("n > 4").empty());
}

TEST(WhenFactsTest, CombineDivisors) {
  EXPECT_EQ(combineDivisors(4, 6), 12);
  EXPECT_EQ(combineDivisors(16, 4), 16);
  EXPECT_EQ(combineDivisors(1, 7), 7);
  // An overflowing multiple keeps the larger fact, not a wrapped one.
  int64_t big = int64_t(1) << 62;
  EXPECT_EQ(combineDivisors(big, 3), big);
}

} // namespace
