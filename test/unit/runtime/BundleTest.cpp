//===- BundleTest.cpp - Bundle read/write, refusals, header embedding -----===//
#include "TestManifests.h"

#include "crc32.h"
#include "megac/runtime/error.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

using namespace megac::rt;

namespace {

/// Runs `read` and returns the BundleError message; fails the test if the
/// bundle is accepted.
template <typename F> std::string refusal(F read) {
  try {
    read();
  } catch (const BundleError &e) {
    return e.what();
  }
  ADD_FAILURE() << "bundle was accepted";
  return "";
}

std::string refusalOf(const std::string &bytes) {
  return refusal([&] { readBundle(bytes.data(), bytes.size(), "k.mgb"); });
}

void putU32(std::string &bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    bytes[at + i] = char((v >> (8 * i)) & 0xFF);
}

TEST(Bundle, RoundTripInMemory) {
  Bundle b = test::sampleBundle();
  std::string bytes = writeBundle(b);
  Bundle back = readBundle(bytes.data(), bytes.size(), "mem");
  EXPECT_EQ(back.manifest, b.manifest);
  EXPECT_EQ(back.blobs, b.blobs);
  EXPECT_EQ(back.imageData(back.manifest.images[1]), b.blobs[1]);
  EXPECT_EQ(writeBundle(back), bytes);
}

TEST(Bundle, LayoutFollowsTheSpec) {
  std::string bytes = writeBundle(test::sampleBundle());
  EXPECT_EQ(bytes.substr(0, 8), "MEGACBND");
  EXPECT_EQ(bytes[8], 1);  // version
  EXPECT_EQ(bytes[12], 3); // manifest + 2 blobs
  // The manifest section starts right after the table and its CRC.
  EXPECT_EQ(uint8_t(bytes[16 + 8]), 16 + 24 * 3 + 4);
  EXPECT_EQ(bytes[16 + 24 * 3 + 4], '{');
}

TEST(Bundle, RoundTripThroughAFile) {
  Bundle b = test::sampleBundle();
  std::string path = ::testing::TempDir() + "/roundtrip.mgb";
  writeBundleFile(b, path);
  Bundle back = readBundleFile(path);
  EXPECT_EQ(back.manifest, b.manifest);
  EXPECT_EQ(back.blobs, b.blobs);
  std::remove(path.c_str());
}

TEST(Bundle, MissingFileNamesThePath) {
  std::string msg = refusal([] { readBundleFile("/nonexistent/x.mgb"); });
  EXPECT_NE(msg.find("/nonexistent/x.mgb: cannot open"), std::string::npos)
      << msg;
}

// A directory used to escape as libstdc++'s own exception from the read.
TEST(Bundle, RefusesADirectory) {
  std::string msg = refusal([] { readBundleFile("/"); });
  EXPECT_EQ(msg, "megac: bundle /: cannot open: it is a directory");
}

TEST(Bundle, RefusesWrongMagic) {
  std::string bytes = writeBundle(test::sampleBundle());
  bytes[0] = 'X';
  EXPECT_EQ(refusalOf(bytes),
            "megac: bundle k.mgb: not a megac bundle (wrong magic; expected "
            "\"MEGACBND\")");
}

TEST(Bundle, RefusesAnotherVersion) {
  std::string bytes = writeBundle(test::sampleBundle());
  putU32(bytes, 8, 2);
  EXPECT_EQ(refusalOf(bytes),
            "megac: bundle k.mgb: format version 2, this runtime reads version "
            "1 (recompile the module with a matching megac)");
}

TEST(Bundle, RefusesTruncation) {
  std::string bytes = writeBundle(test::sampleBundle());
  EXPECT_NE(refusalOf(bytes.substr(0, 10)).find("k.mgb: truncated: 10 bytes"),
            std::string::npos);
  EXPECT_NE(refusalOf(bytes.substr(0, 40)).find("truncated: the section table"),
            std::string::npos);
  std::string cut = refusalOf(bytes.substr(0, bytes.size() - 1));
  EXPECT_NE(cut.find("k.mgb: truncated: section 2 spans bytes"),
            std::string::npos)
      << cut;
}

TEST(Bundle, RefusesTrailingBytes) {
  std::string bytes = writeBundle(test::sampleBundle()) + "xx";
  EXPECT_NE(refusalOf(bytes).find("size does not match"), std::string::npos);
}

TEST(Bundle, RefusesACorruptedByteInEverySection) {
  std::string bytes = writeBundle(test::sampleBundle());
  // A byte of the section table, of the manifest and of the last blob.
  for (size_t at : {size_t(20), size_t(100), bytes.size() - 3}) {
    std::string bad = bytes;
    bad[at] ^= 0x40;
    std::string msg = refusalOf(bad);
    EXPECT_NE(msg.find("k.mgb: corrupted: "), std::string::npos) << at;
    EXPECT_NE(msg.find("CRC mismatch"), std::string::npos) << msg;
  }
  std::string bad = bytes;
  bad[bytes.size() - 3] ^= 1;
  EXPECT_NE(refusalOf(bad).find("section 2 CRC mismatch"), std::string::npos);
}

/// `bytes` with section `index`'s kind set to `kind` and the header CRC
/// recomputed, so that the reader gets past the CRC to the kind checks.
std::string withSectionKind(std::string bytes, size_t index, uint32_t kind) {
  const size_t header = 16, entry = 24;
  size_t count = size_t(uint8_t(bytes[12]));
  putU32(bytes, header + entry * index, kind);
  size_t tableEnd = header + entry * count;
  putU32(bytes, tableEnd, megac::rt::crc32(bytes.data(), tableEnd));
  return bytes;
}

TEST(Bundle, RefusesSectionsOfTheWrongKind) {
  std::string bytes = writeBundle(test::sampleBundle());
  EXPECT_EQ(refusalOf(withSectionKind(bytes, 1, 7)),
            "megac: bundle k.mgb: section 1 has unknown kind 7");
  EXPECT_EQ(refusalOf(withSectionKind(bytes, 0, 1)),
            "megac: bundle k.mgb: section 0 must be the manifest");
  EXPECT_EQ(refusalOf(withSectionKind(bytes, 2, 0)),
            "megac: bundle k.mgb: section 2 is a second manifest");
  // A byte of the table without the CRC recomputed: the header's CRC.
  std::string bad = bytes;
  bad[20] ^= 0x40;
  EXPECT_NE(refusalOf(bad).find("k.mgb: corrupted: header CRC mismatch (stored "),
            std::string::npos);
}

TEST(Bundle, RefusesToWriteWhereItCannot) {
  std::string msg = refusal(
      [] { writeBundleFile(test::sampleBundle(), "/nonexistent-dir/k.mgb"); });
  EXPECT_EQ(msg, "megac: bundle /nonexistent-dir/k.mgb: cannot write: No such file or directory");
}

TEST(Bundle, RefusesAnImageThatNamesAMissingSection) {
  Bundle b = test::sampleBundle();
  b.manifest.images[1].section = 5;
  std::string msg = refusal([&] { writeBundle(b); });
  EXPECT_NE(msg.find("image sm_90a names section 5, but only 2 blobs"),
            std::string::npos)
      << msg;
}

TEST(Bundle, ManifestErrorsNameTheFile) {
  Bundle b = test::sampleBundle();
  b.manifest.formatVersion = 7;
  std::string bytes = writeBundle(b);
  try {
    readBundle(bytes.data(), bytes.size(), "old.mgb");
    FAIL() << "accepted";
  } catch (const ManifestError &e) {
    EXPECT_STREQ(e.what(), "megac: old.mgb: manifest format_version: version "
                           "7 is not supported (this runtime reads version 1)");
  }
}

TEST(Bundle, CppHeaderEmbedsTheBytes) {
  std::string bytes("MEGA\x00\xff", 6);
  std::string header = bundleToCppHeader(bytes, "my_module");
  EXPECT_NE(header.find("const unsigned char my_module[] = {"),
            std::string::npos);
  EXPECT_NE(header.find("0x4d, 0x45, 0x47, 0x41, 0x00, 0xff,"),
            std::string::npos)
      << header;
  EXPECT_NE(header.find("const size_t my_module_size = 6;"), std::string::npos);
  EXPECT_EQ(refusal([&] { bundleToCppHeader(bytes, "9lives"); }),
            "megac: cannot embed bundle as '9lives': not a C identifier");
  EXPECT_THROW(bundleToCppHeader(bytes, "a-b"), BundleError);
}

} // namespace
