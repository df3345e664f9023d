//===- RuntimeCheckTest.cpp - megac's check that the runtime reads its manifest ===//
//
// megac reads back the manifest it writes as the runtime will (driver/
// RuntimeCheck.h) and reports a refusal as an internal error. The language
// keeps such manifests from being written (SemaErrors.LaunchExpressions*), so
// the check is tested here on manifests written by hand.
//===----------------------------------------------------------------------===//
#include "driver/RuntimeCheck.h"

#include <gtest/gtest.h>

#include <string>

namespace {

std::string manifest(const std::string &when, const std::string &param = "n") {
  return R"J({"format_version": 1, "compiler_version": "0.1.0", "module": "m", "source_hash": "00",
    "kernels": [{"name": "k", "num_warps": 4, "shared_bytes": 0, "grid": ["cdiv(n, 1024)", "1", "1"],
      "params": [{"name": "x", "kind": "tensor", "dtype": "f32", "align": 16, "shape": [")J" +
         param + R"J("]},
                 {"name": ")J" + param + R"J(", "kind": "scalar", "dtype": "i32", "multiple_of": 1}],
      "variants": [{"name": "v", "symbol": "k__v", "maxnreg": 0, "min_ctas_per_sm": 0, "when": ")J" +
         when + R"J("},
                   {"name": "default", "symbol": "k", "maxnreg": 0, "min_ctas_per_sm": 0, "when": ""}]}],
    "images": []})J";
}

TEST(RuntimeCheck, AcceptsWhatTheRuntimeReads) {
  EXPECT_EQ(megac::runtimeRefusal(manifest("(n > 4) == (n < 9) && ctas > sms")), "");
}

TEST(RuntimeCheck, ReportsWhatTheRuntimeRefuses) {
  EXPECT_EQ(megac::runtimeRefusal(manifest("n << 2 > 8")),
            "megac: kernel 'k': variant 'v': when: expression 'n << 2 > 8': unexpected '<' at column 4");
  EXPECT_EQ(megac::runtimeRefusal(manifest("n > 4 == n < 9")),
            "megac: kernel 'k': variant 'v': when: expression 'n > 4 == n < 9': unexpected '=' at column 7");
  // a parameter named as a runtime function leaves its shape unreadable
  EXPECT_NE(megac::runtimeRefusal(manifest("", "min")).find("expected '('"), std::string::npos);
  EXPECT_EQ(megac::runtimeRefusal("{"), "megac: the manifest: JSON error at line 1, column 2: expected a string key");
}

} // namespace
