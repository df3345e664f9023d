//===- ManifestTest.cpp - Manifest JSON round trip and schema errors ------===//
#include "TestManifests.h"

#include "megac/runtime/error.h"

#include <gtest/gtest.h>

using namespace megac::rt;

namespace {

std::string errorOf(std::string_view text) {
  try {
    parseManifest(text, "m.json");
  } catch (const ManifestError &e) {
    return e.what();
  }
  ADD_FAILURE() << "manifest was accepted: " << text;
  return "";
}

// The example of docs/bundle.md, verbatim.
constexpr const char *kSpecExample = R"json({
  "format_version": 1,
  "compiler_version": "0.1.0",
  "module": "vector_add",
  "source_hash": "9f1c2a7b3d4e5f60",
  "kernels": [{
    "name": "vector_add",
    "num_warps": 4,
    "shared_bytes": 0,
    "grid": ["cdiv(n, 1024)", "1", "1"],
    "params": [
      {"name": "x", "kind": "tensor", "dtype": "f32", "align": 16, "shape": ["n"]},
      {"name": "scale", "kind": "tensor", "dtype": "f32", "align": 4, "shape": []},
      {"name": "n", "kind": "scalar", "dtype": "i32", "multiple_of": 16}
    ],
    "variants": [
      {"name": "cap168", "symbol": "gdn_core__cap168", "maxnreg": 168, "min_ctas_per_sm": 3,
       "when": "ctas > 2 * sms && ctas <= 3 * sms"},
      {"name": "default", "symbol": "gdn_core", "maxnreg": 0, "min_ctas_per_sm": 0, "when": ""}
    ]
  }],
  "images": [
    {"target": "sm_90a", "kind": "ptx", "section": 1},
    {"target": "sm_90a", "kind": "cubin", "section": 2,
     "resources": {"gdn_core": {"registers": 160, "spills": 0, "stack": 0, "shared": 0}}}
  ]
})json";

TEST(Manifest, ParsesTheSpecExample) {
  Manifest m = parseManifest(kSpecExample, "spec");
  ASSERT_EQ(m.kernels.size(), 1u);
  const KernelInfo &k = m.kernels[0];
  EXPECT_EQ(k.grid[0], "cdiv(n, 1024)");
  ASSERT_EQ(k.params.size(), 3u);
  EXPECT_EQ(k.params[0].align, 16);
  EXPECT_EQ(k.params[0].shape, std::vector<std::string>{"n"});
  EXPECT_TRUE(k.params[1].shape.empty());
  EXPECT_EQ(k.params[2].kind, ParamKind::Scalar);
  EXPECT_EQ(k.params[2].dtype, DType::i32);
  EXPECT_EQ(k.params[2].multipleOf, 16);
  ASSERT_EQ(k.variants.size(), 2u);
  EXPECT_EQ(k.variants[0].maxnreg, 168);
  EXPECT_EQ(k.variants[0].minCtasPerSm, 3);
  EXPECT_EQ(k.variants[0].when, "ctas > 2 * sms && ctas <= 3 * sms");
  ASSERT_EQ(m.images.size(), 2u);
  EXPECT_EQ(m.images[1].kind, ImageKind::Cubin);
  EXPECT_EQ(m.images[1].resources.at("gdn_core").registers, 160);
}

TEST(Manifest, JsonRoundTrip) {
  Manifest m = test::sampleBundle().manifest;
  std::string text = manifestToJson(m);
  Manifest back = parseManifest(text, "rt");
  EXPECT_EQ(back, m);
  EXPECT_EQ(manifestToJson(back), text);
  Manifest spec = parseManifest(kSpecExample, "spec");
  EXPECT_EQ(parseManifest(manifestToJson(spec), "spec2"), spec);
}

// A variant's own grid and warps are written only when it has them, and
// read back; an old manifest without them reads as the kernel's.
TEST(Manifest, VariantGridAndWarpsRoundTrip) {
  Manifest m = test::sampleBundle().manifest;
  m.kernels[0].variants.insert(m.kernels[0].variants.begin(),
                               {"rows", "vector_add__rows", 0, 0, "n <= 1024", 8,
                                {"n", "1", "1"}, {}, {}});
  std::string text = manifestToJson(m);
  EXPECT_NE(text.find("\"grid\": [\"n\", \"1\", \"1\"]"), std::string::npos) << text;
  Manifest back = parseManifest(text, "rt");
  EXPECT_EQ(back, m);
  EXPECT_EQ(back.kernels[0].variants[0].numWarps, 8);
  EXPECT_EQ(back.kernels[0].variants[1].numWarps, 0);
  EXPECT_TRUE(back.kernels[0].variants[1].grid.empty());
  Manifest changed = m;
  changed.kernels[0].variants[0].grid[0] = "2 * n";
  EXPECT_FALSE(changed == m);
  changed = m;
  changed.kernels[0].variants[0].numWarps = 4;
  EXPECT_FALSE(changed == m);
}

// A variant's access bounds are written only when it has them (other bundles
// keep their bytes), `when` only when set, and read back.
TEST(Manifest, AccessBoundsRoundTrip) {
  Manifest m = test::sampleBundle().manifest;
  std::string plain = manifestToJson(m);
  EXPECT_EQ(plain.find("bounds"), std::string::npos) << plain;
  m.kernels[0].variants[0].bounds = {
      {"x", "load", "add.mega:4:14", "", "0", "1024 * (grid_x - 1) + 1023", "", ""},
      {"out", "store", "add.mega:9:5", "n > 0", "n - 1024", "n - 1", "load", "add.mega:8:14", true}};
  std::string text = manifestToJson(m);
  EXPECT_NE(text.find("\"max\": \"1024 * (grid_x - 1) + 1023\""), std::string::npos) << text;
  size_t first = text.find("\"at\": \"add.mega:4:14\"");
  ASSERT_NE(first, std::string::npos) << text;
  EXPECT_EQ(text.substr(first, text.find("\"min\"", first) - first).find("when"), std::string::npos)
      << text; // the first bound always holds: no `when`
  Manifest back = parseManifest(text, "rt");
  EXPECT_EQ(back, m);
  EXPECT_EQ(back.kernels[0].variants[0].bounds[1].when, "n > 0");
  EXPECT_EQ(back.kernels[0].variants[0].bounds[1].minAt, "add.mega:8:14");
  EXPECT_EQ(text.find("min_at"), text.rfind("min_at")) << text; // the first bound has none
  EXPECT_TRUE(back.kernels[0].variants[0].bounds[1].masked);
  EXPECT_EQ(text.find("\"masked\": true"), text.rfind("\"masked\"")) << text; // written only when true
  EXPECT_FALSE(back == parseManifest(plain, "rt"));
  Manifest changed = m;
  changed.kernels[0].variants[0].bounds[0].max = "1023";
  EXPECT_FALSE(changed == m);
  changed = m;
  changed.kernels[0].variants[0].bounds[1].masked = false;
  EXPECT_FALSE(changed == m);
  std::string wrong = text;
  std::string max = "\"max\": \"n - 1\"";
  wrong.replace(wrong.find(max), max.size(), "\"max\": 5");
  EXPECT_EQ(errorOf(wrong),
            "megac: m.json: manifest kernels[0].variants[0].bounds[1].max: expected a string, found a number");
}

// A kernel flag written only when true (other bundles keep their bytes): absent
// reads as false, true reads back, and a value not a boolean is refused at its
// path. Returns the manifest with the flag set.
Manifest expectFlagRoundTrip(const std::string &key, bool KernelInfo::*flag) {
  Manifest m = test::sampleBundle().manifest;
  std::string plain = manifestToJson(m);
  EXPECT_EQ(plain.find(key), std::string::npos) << plain;
  EXPECT_FALSE(parseManifest(plain, "rt").kernels[0].*flag);
  m.kernels[0].*flag = true;
  std::string text = manifestToJson(m);
  std::string written = "\"" + key + "\": true";
  EXPECT_NE(text.find(written), std::string::npos) << text;
  Manifest back = parseManifest(text, "rt");
  EXPECT_TRUE(back.kernels[0].*flag);
  EXPECT_EQ(back, m);
  EXPECT_FALSE(back == parseManifest(plain, "rt"));
  std::string wrong = text;
  wrong.replace(text.find(written), written.size(), "\"" + key + "\": 1");
  EXPECT_NE(errorOf(wrong).find("kernels[0]." + key), std::string::npos) << errorOf(wrong);
  return m;
}

TEST(Manifest, EarlyLaunchRoundTrip) {
  Manifest m = expectFlagRoundTrip("early_launch", &KernelInfo::earlyLaunch);
  std::string plain = manifestToJson(test::sampleBundle().manifest);
  // A variant's own choice, where it differs, is written and read back.
  Manifest variants = m;
  variants.kernels[0].variants[0].earlyLaunch = false;
  std::string withVariant = manifestToJson(variants);
  EXPECT_NE(withVariant.find("\"early_launch\": false"), std::string::npos) << withVariant;
  Manifest variantsBack = parseManifest(withVariant, "rt");
  EXPECT_EQ(variantsBack, variants);
  EXPECT_EQ(variantsBack.kernels[0].variants[0].earlyLaunch, std::optional<bool>(false));
  EXPECT_FALSE(variantsBack == m);
  EXPECT_FALSE(launchesEarly(variantsBack.kernels[0], 0)); // its own choice
  EXPECT_TRUE(launchesEarly(variantsBack.kernels[0], 1));  // the kernel's
  EXPECT_FALSE(launchesEarly(parseManifest(plain, "rt").kernels[0], 0));
}

// offsets64 likewise (absent: 32-bit offsets, which the argument checks hold
// tensors to).
TEST(Manifest, Offsets64RoundTrip) { expectFlagRoundTrip("offsets64", &KernelInfo::offsets64); }

TEST(Manifest, EqualityNoticesADifference) {
  Manifest a = test::sampleBundle().manifest;
  Manifest b = a;
  b.kernels[0].params[3].multipleOf = 8;
  EXPECT_FALSE(a == b);
}

TEST(Manifest, KernelWithoutVariantsIsItsOwnVariant) {
  Manifest m = parseManifest(
      R"({"format_version": 1, "module": "m", "images": [],
          "kernels": [{"name": "k", "grid": ["1","1","1"], "params": []}]})",
      "m");
  ASSERT_EQ(m.kernels[0].variants.size(), 1u);
  EXPECT_EQ(m.kernels[0].variants[0].symbol, "k");
  EXPECT_EQ(m.kernels[0].variants[0].when, "");
}

TEST(Manifest, MalformedJsonSaysWhere) {
  EXPECT_EQ(errorOf("{\n  \"module\": \"m\",\n  oops\n}"),
            "megac: m.json: JSON error at line 3, column 3: expected a string "
            "key");
  EXPECT_EQ(errorOf("[1, 2"),
            "megac: m.json: JSON error at line 1, column 6: expected ']'");
  EXPECT_EQ(errorOf("{\"a\": \"unterminated}"),
            "megac: m.json: JSON error at line 1, column 21: unterminated "
            "string");
  EXPECT_NE(errorOf("{} trailing").find("unexpected text after the JSON value"),
            std::string::npos);
  EXPECT_NE(errorOf("{\"a\": 1, \"a\": 2}").find("duplicate key \"a\""),
            std::string::npos);
  EXPECT_NE(errorOf("").find("unexpected end of input"), std::string::npos);
}

// Every other way a manifest's JSON can be broken, each with its own message.
TEST(Manifest, MalformedJsonNamesTheMistake) {
  auto says = [](const std::string &json, const std::string &what) {
    std::string msg = errorOf(json);
    EXPECT_NE(msg.find(": " + what), std::string::npos) << json << " -> " << msg;
  };
  says(std::string(100, '[') + std::string(100, ']'), "nesting deeper than 64");
  says("{\"a\": @}", "unexpected character '@'");
  says("{\"a\": \"\\u12", "truncated \\u escape");
  says("{\"a\": \"\\u12x4\"}", "bad \\u escape");
  says("{\"a\": \"tab\there\"}", "control character in string");
  says("{\"a\": \"\\ud800\"}", "unpaired surrogate");
  says("{\"a\": \"\\udc00\"}", "unpaired surrogate"); // a low one alone: no UTF-8 for it
  says("{\"a\": \"\\q\"}", "bad escape '\\q'");
  says("{\"a\": 99999999999999999999}", "integer 99999999999999999999 out of range");
  says("{\"a\": 1.2.3}", "bad number '1.2.3'");
}

TEST(Manifest, SchemaErrorsNameTheField) {
  std::string base = manifestToJson(test::sampleBundle().manifest);
  // One field of the sample manifest's JSON rewritten, and the refusal it gets.
  struct Case {
    const char *from, *to, *message;
  };
  const Case cases[] = {
      {"\"dtype\": \"f32\"", "\"dtype\": \"f33\"",
       "kernels[0].params[0].dtype: unknown dtype 'f33'"},
      {"\"kind\": \"tensor\"", "\"kind\": \"tensr\"",
       "kernels[0].params[0].kind: unknown kind 'tensr' (expected tensor or scalar)"},
      {"\"align\": 16", "\"align\": 12",
       "kernels[0].params[0].align: must be a power of two, found 12"},
      {"\"grid\": [\"cdiv(n, 1024)\", \"1\", \"1\"]", "\"grid\": [\"1\"]",
       "kernels[0].grid: expected 3 expressions, found 1"},
      {"\"when\": \"\"", "\"when\": \"\", \"grid\": [\"1\", \"1\"]",
       "kernels[0].variants[0].grid: expected 3 expressions, found 2"},
      {"\"when\": \"\"", "\"when\": \"\", \"num_warps\": 64",
       "kernels[0].variants[0].num_warps: at most 32 (1024 threads), found 64"},
      {"\"dtype\": \"i32\"", "\"dtype\": \"f8e4m3\"",
       "kernels[0].params[3].dtype: dtype 'f8e4m3' cannot be passed by value"},
      {"\"multiple_of\": 16", "\"multiple_of\": \"16\"",
       "kernels[0].params[3].multiple_of: expected an integer, found a string"},
      {"\"module\": \"vector_add\"", "\"module\": 3",
       "module: expected a string, found a number"},
      {"\"kind\": \"ptx\"", "\"kind\": \"elf\"",
       "images[0].kind: unknown image kind 'elf' (expected ptx or cubin)"},
  };
  for (const Case &c : cases) {
    std::string json = base;
    size_t at = json.find(c.from);
    ASSERT_NE(at, std::string::npos) << c.from;
    json.replace(at, std::string(c.from).size(), c.to);
    EXPECT_EQ(errorOf(json), std::string("megac: m.json: manifest ") + c.message) << c.to;
  }
  EXPECT_EQ(errorOf("{\"format_version\": 1}"),
            "megac: m.json: manifest module: missing");
  EXPECT_EQ(errorOf("[]"),
            "megac: m.json: manifest (root): expected an object, found an "
            "array");
}

} // namespace
