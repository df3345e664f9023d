//===- bundle.cpp - Module bundles (.mgb): read and write -----------------===//
#include "megac/runtime/bundle.h"

#include "crc32.h"
#include "megac/runtime/error.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace megac::rt {

namespace {

constexpr size_t kHeaderSize = 16;
constexpr size_t kEntrySize = 24;
constexpr uint32_t kManifestSection = 0;
constexpr uint32_t kBlobSection = 1;

uint32_t loadU32(const unsigned char *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}

uint64_t loadU64(const unsigned char *p) {
  return uint64_t(loadU32(p)) | uint64_t(loadU32(p + 4)) << 32;
}

void storeU32(std::string &out, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    out += char((v >> (8 * i)) & 0xFF);
}

void storeU64(std::string &out, uint64_t v) {
  storeU32(out, uint32_t(v));
  storeU32(out, uint32_t(v >> 32));
}

struct Section {
  uint32_t kind;
  uint32_t crc;
  uint64_t offset;
  uint64_t size;
};

[[noreturn]] void refuse(std::string_view name, const std::string &what) {
  throw BundleError("megac: bundle " + std::string(name) + ": " + what);
}

std::string hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

} // namespace

const std::string &Bundle::imageData(const ImageInfo &image) const {
  size_t index = size_t(image.section) - 1;
  if (image.section < 1 || index >= blobs.size())
    throw BundleError("megac: module '" + manifest.module + "': image " +
                      image.target + " names section " +
                      std::to_string(image.section) + ", which does not exist");
  return blobs[index];
}

Bundle readBundle(const void *data, size_t size, std::string_view name) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  if (size < kHeaderSize)
    refuse(name, "truncated: " + std::to_string(size) +
                     " bytes, shorter than the 16-byte header");
  if (std::memcmp(bytes, kBundleMagic, sizeof kBundleMagic) != 0)
    refuse(name, "not a megac bundle (wrong magic; expected \"MEGACBND\")");
  uint32_t version = loadU32(bytes + 8);
  if (version != kBundleFormatVersion)
    refuse(name, "format version " + std::to_string(version) +
                     ", this runtime reads version " +
                     std::to_string(kBundleFormatVersion) +
                     " (recompile the module with a matching megac)");
  uint64_t count = loadU32(bytes + 12);
  if (count == 0)
    refuse(name, "no sections (a bundle starts with its manifest section)");
  uint64_t tableEnd = kHeaderSize + kEntrySize * count;
  if (tableEnd + 4 > size)
    refuse(name, "truncated: the section table of " + std::to_string(count) +
                     " sections needs " + std::to_string(tableEnd + 4) +
                     " bytes, the file has " + std::to_string(size));
  uint32_t storedHeaderCrc = loadU32(bytes + tableEnd);
  uint32_t headerCrc = crc32(bytes, size_t(tableEnd));
  if (storedHeaderCrc != headerCrc)
    refuse(name, "corrupted: header CRC mismatch (stored " +
                     hex32(storedHeaderCrc) + ", computed " + hex32(headerCrc) +
                     ")");

  std::vector<Section> sections;
  uint64_t end = tableEnd + 4;
  for (uint64_t i = 0; i < count; ++i) {
    const unsigned char *e = bytes + kHeaderSize + kEntrySize * i;
    Section s{loadU32(e), loadU32(e + 4), loadU64(e + 8), loadU64(e + 16)};
    std::string which = "section " + std::to_string(i);
    if (s.kind != kManifestSection && s.kind != kBlobSection)
      refuse(name, which + " has unknown kind " + std::to_string(s.kind));
    if ((i == 0) != (s.kind == kManifestSection))
      refuse(name, which + (i == 0 ? " must be the manifest"
                                   : " is a second manifest"));
    if (s.offset < tableEnd + 4 || s.offset > size || s.size > size - s.offset)
      refuse(name, "truncated: " + which + " spans bytes [" +
                       std::to_string(s.offset) + ", " +
                       std::to_string(s.offset + s.size) +
                       "), outside the file of " + std::to_string(size) +
                       " bytes");
    end = std::max(end, s.offset + s.size);
    sections.push_back(s);
  }
  if (end != size)
    refuse(name, "size does not match: sections end at byte " +
                     std::to_string(end) + ", the file has " +
                     std::to_string(size) + " bytes");
  for (uint64_t i = 0; i < count; ++i) {
    const Section &s = sections[i];
    uint32_t crc = crc32(bytes + s.offset, size_t(s.size));
    if (crc != s.crc)
      refuse(name, "corrupted: section " + std::to_string(i) +
                       " CRC mismatch (stored " + hex32(s.crc) + ", computed " +
                       hex32(crc) + ")");
  }

  Bundle bundle;
  std::string_view manifestText(
      reinterpret_cast<const char *>(bytes + sections[0].offset),
      size_t(sections[0].size));
  bundle.manifest = parseManifest(manifestText, name);
  for (uint64_t i = 1; i < count; ++i)
    bundle.blobs.emplace_back(
        reinterpret_cast<const char *>(bytes + sections[i].offset),
        size_t(sections[i].size));
  for (const ImageInfo &img : bundle.manifest.images)
    if (size_t(img.section) > bundle.blobs.size())
      refuse(name, "manifest image " + img.target + " " +
                       std::string(imageKindName(img.kind)) +
                       " names section " + std::to_string(img.section) +
                       ", the bundle has " + std::to_string(count) +
                       " sections");
  return bundle;
}

Bundle readBundleFile(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw BundleError("megac: bundle " + path + ": cannot open: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw BundleError("megac: bundle " + path +
                      ": cannot open: " + std::strerror(errno));
  std::string bytes;
  try {
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::exception &e) {
    // libstdc++'s filebuf throws on a failed read (EIO, EISDIR).
    throw BundleError("megac: bundle " + path + ": read error: " + e.what());
  }
  if (in.bad())
    throw BundleError("megac: bundle " + path + ": read error");
  return readBundle(bytes.data(), bytes.size(), path);
}

std::string writeBundle(const Bundle &bundle) {
  for (const ImageInfo &img : bundle.manifest.images)
    if (img.section < 1 || size_t(img.section) > bundle.blobs.size())
      throw BundleError("megac: module '" + bundle.manifest.module +
                        "': image " + img.target + " names section " +
                        std::to_string(img.section) + ", but only " +
                        std::to_string(bundle.blobs.size()) +
                        " blobs are given");
  std::vector<std::string_view> payloads;
  std::string manifest = manifestToJson(bundle.manifest);
  payloads.push_back(manifest);
  for (const std::string &blob : bundle.blobs)
    payloads.push_back(blob);

  std::string out(kBundleMagic, sizeof kBundleMagic);
  storeU32(out, kBundleFormatVersion);
  storeU32(out, uint32_t(payloads.size()));
  uint64_t offset = kHeaderSize + kEntrySize * payloads.size() + 4;
  for (size_t i = 0; i < payloads.size(); ++i) {
    storeU32(out, i == 0 ? kManifestSection : kBlobSection);
    storeU32(out, crc32(payloads[i].data(), payloads[i].size()));
    storeU64(out, offset);
    storeU64(out, payloads[i].size());
    offset += payloads[i].size();
  }
  storeU32(out, crc32(out.data(), out.size()));
  for (std::string_view p : payloads)
    out.append(p.data(), p.size());
  return out;
}

void writeBundleFile(const Bundle &bundle, const std::string &path) {
  std::string bytes = writeBundle(bundle);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();
  if (!out)
    throw BundleError("megac: bundle " + path +
                      ": cannot write: " + std::strerror(errno));
}

} // namespace megac::rt
