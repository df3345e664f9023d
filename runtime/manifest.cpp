//===- manifest.cpp - The JSON manifest of a module bundle ----------------===//
#include "megac/runtime/manifest.h"

#include "json.h"
#include "megac/runtime/error.h"

#include <limits>
#include <tuple>

namespace megac::rt {

using json::Value;

namespace {

/// Walks the JSON with the path of the current field, so that every schema
/// error says where it is.
class Reader {
public:
  explicit Reader(std::string_view source) : source_(source) {}

  [[noreturn]] void fail(const std::string &path,
                         const std::string &what) const {
    throw ManifestError("megac: " + std::string(source_) + ": manifest " +
                        path + ": " + what);
  }

  const Value &field(const Value &obj, const std::string &path,
                     std::string_view key, Value::Kind kind) const {
    const Value *v = obj.find(key);
    std::string at =
        path.empty() ? std::string(key) : path + "." + std::string(key);
    if (!v)
      fail(at, "missing");
    checkKind(*v, at, kind);
    return *v;
  }

  const Value *optional(const Value &obj, const std::string &path,
                        std::string_view key, Value::Kind kind) const {
    const Value *v = obj.find(key);
    if (v)
      checkKind(*v, path + "." + std::string(key), kind);
    return v;
  }

  void checkKind(const Value &v, const std::string &at,
                 Value::Kind kind) const {
    if (v.kind() != kind)
      fail(at, std::string("expected ") + json::kindName(kind) + ", found " +
                   json::kindName(v.kind()));
  }

  int64_t integer(const Value &obj, const std::string &path,
                  std::string_view key, int64_t fallback, bool required,
                  int64_t min = 0) const {
    const Value *v = obj.find(key);
    std::string at =
        path.empty() ? std::string(key) : path + "." + std::string(key);
    if (!v) {
      if (required)
        fail(at, "missing");
      return fallback;
    }
    if (!v->isInteger())
      fail(at, std::string("expected an integer, found ") +
                   json::kindName(v->kind()));
    if (v->asInt() < min)
      fail(at, "must be at least " + std::to_string(min) + ", found " +
                   std::to_string(v->asInt()));
    return v->asInt();
  }

  int smallInt(const Value &obj, const std::string &path, std::string_view key,
               int fallback, bool required, int min = 0) const {
    int64_t v = integer(obj, path, key, fallback, required, min);
    if (v > std::numeric_limits<int>::max())
      fail(path + "." + std::string(key), "too large");
    return int(v);
  }

  std::string string(const Value &obj, const std::string &path,
                     std::string_view key, bool required,
                     std::string fallback = "") const {
    const Value *v = required ? &field(obj, path, key, Value::Kind::String)
                              : optional(obj, path, key, Value::Kind::String);
    return v ? v->asString() : fallback;
  }

  std::vector<std::string> strings(const Value &arr,
                                   const std::string &path) const {
    std::vector<std::string> out;
    for (size_t i = 0; i < arr.items().size(); ++i) {
      std::string at = path + "[" + std::to_string(i) + "]";
      checkKind(arr.items()[i], at, Value::Kind::String);
      out.push_back(arr.items()[i].asString());
    }
    return out;
  }

  ParamInfo param(const Value &v, const std::string &path) const {
    checkKind(v, path, Value::Kind::Object);
    ParamInfo p;
    p.name = string(v, path, "name", true);
    std::string kind = string(v, path, "kind", true);
    if (kind == "tensor")
      p.kind = ParamKind::Tensor;
    else if (kind == "scalar")
      p.kind = ParamKind::Scalar;
    else
      fail(path + ".kind",
           "unknown kind '" + kind + "' (expected tensor or scalar)");
    std::string dtype = string(v, path, "dtype", true);
    auto parsed = parseDType(dtype);
    if (!parsed)
      fail(path + ".dtype", "unknown dtype '" + dtype + "'");
    p.dtype = *parsed;
    if (p.kind == ParamKind::Tensor) {
      p.align = integer(v, path, "align", 1, false, 1);
      if ((p.align & (p.align - 1)) != 0)
        fail(path + ".align",
             "must be a power of two, found " + std::to_string(p.align));
      p.shape =
          strings(field(v, path, "shape", Value::Kind::Array), path + ".shape");
    } else {
      if (!isScalarDType(p.dtype))
        fail(path + ".dtype",
             "dtype '" + dtype + "' cannot be passed by value");
      p.multipleOf = integer(v, path, "multiple_of", 1, false, 1);
    }
    return p;
  }

  AccessBoundInfo bound(const Value &v, const std::string &path) const {
    checkKind(v, path, Value::Kind::Object);
    AccessBoundInfo b;
    b.param = string(v, path, "param", true);
    b.access = string(v, path, "access", true);
    b.at = string(v, path, "at", false);
    b.when = string(v, path, "when", false);
    b.min = string(v, path, "min", true);
    b.max = string(v, path, "max", true);
    b.minAccess = string(v, path, "min_access", false);
    b.minAt = string(v, path, "min_at", false);
    if (const Value *masked = optional(v, path, "masked", Value::Kind::Bool))
      b.masked = masked->asBool();
    return b;
  }

  VariantInfo variant(const Value &v, const std::string &path) const {
    checkKind(v, path, Value::Kind::Object);
    VariantInfo out;
    out.name = string(v, path, "name", true);
    out.symbol = string(v, path, "symbol", true);
    out.maxnreg = smallInt(v, path, "maxnreg", 0, false);
    out.minCtasPerSm = smallInt(v, path, "min_ctas_per_sm", 0, false);
    out.when = string(v, path, "when", false);
    out.numWarps = smallInt(v, path, "num_warps", 0, false);
    if (out.numWarps > 32)
      fail(path + ".num_warps",
           "at most 32 (1024 threads), found " + std::to_string(out.numWarps));
    if (const Value *early = optional(v, path, "early_launch", Value::Kind::Bool))
      out.earlyLaunch = early->asBool();
    if (const Value *grid = optional(v, path, "grid", Value::Kind::Array)) {
      out.grid = strings(*grid, path + ".grid");
      if (out.grid.size() != 3)
        fail(path + ".grid",
             "expected 3 expressions, found " + std::to_string(out.grid.size()));
    }
    if (const Value *bounds = optional(v, path, "bounds", Value::Kind::Array))
      for (size_t i = 0; i < bounds->items().size(); ++i)
        out.bounds.push_back(
            bound(bounds->items()[i], path + ".bounds[" + std::to_string(i) + "]"));
    return out;
  }

  KernelInfo kernel(const Value &v, const std::string &path) const {
    checkKind(v, path, Value::Kind::Object);
    KernelInfo k;
    k.name = string(v, path, "name", true);
    k.numWarps = smallInt(v, path, "num_warps", 4, false, 1);
    if (k.numWarps > 32)
      fail(path + ".num_warps",
           "at most 32 (1024 threads), found " + std::to_string(k.numWarps));
    k.sharedBytes = integer(v, path, "shared_bytes", 0, false);
    std::vector<std::string> grid =
        strings(field(v, path, "grid", Value::Kind::Array), path + ".grid");
    if (grid.size() != 3)
      fail(path + ".grid",
           "expected 3 expressions, found " + std::to_string(grid.size()));
    k.grid = {grid[0], grid[1], grid[2]};
    const Value &params = field(v, path, "params", Value::Kind::Array);
    for (size_t i = 0; i < params.items().size(); ++i)
      k.params.push_back(param(params.items()[i],
                               path + ".params[" + std::to_string(i) + "]"));
    if (const Value *variants =
            optional(v, path, "variants", Value::Kind::Array)) {
      for (size_t i = 0; i < variants->items().size(); ++i)
        k.variants.push_back(
            variant(variants->items()[i],
                    path + ".variants[" + std::to_string(i) + "]"));
    }
    if (const Value *early = optional(v, path, "early_launch", Value::Kind::Bool))
      k.earlyLaunch = early->asBool();
    if (const Value *wide = optional(v, path, "offsets64", Value::Kind::Bool))
      k.offsets64 = wide->asBool();
    // A kernel without declared variants is its own single variant.
    if (k.variants.empty())
      k.variants.push_back({"default", k.name, 0, 0, "", 0, {}, {}, {}});
    return k;
  }

  ImageInfo image(const Value &v, const std::string &path) const {
    checkKind(v, path, Value::Kind::Object);
    ImageInfo img;
    img.target = string(v, path, "target", true);
    std::string kind = string(v, path, "kind", true);
    if (kind == "ptx")
      img.kind = ImageKind::Ptx;
    else if (kind == "cubin")
      img.kind = ImageKind::Cubin;
    else
      fail(path + ".kind",
           "unknown image kind '" + kind + "' (expected ptx or cubin)");
    img.section = smallInt(v, path, "section", 0, true, 1);
    if (const Value *res =
            optional(v, path, "resources", Value::Kind::Object)) {
      for (const auto &[symbol, r] : res->members()) {
        std::string at = path + ".resources." + symbol;
        checkKind(r, at, Value::Kind::Object);
        ResourceUsage u;
        u.registers = smallInt(r, at, "registers", 0, false);
        u.spills = smallInt(r, at, "spills", 0, false);
        u.stack = smallInt(r, at, "stack", 0, false);
        u.shared = smallInt(r, at, "shared", 0, false);
        img.resources[symbol] = u;
      }
    }
    return img;
  }

  Manifest manifest(const Value &root) const {
    checkKind(root, "(root)", Value::Kind::Object);
    Manifest m;
    m.formatVersion = smallInt(root, "", "format_version", 0, true);
    if (m.formatVersion != kManifestFormatVersion)
      fail("format_version",
           "version " + std::to_string(m.formatVersion) +
               " is not supported (this runtime reads version " +
               std::to_string(kManifestFormatVersion) + ")");
    m.compilerVersion = string(root, "", "compiler_version", false);
    m.module = string(root, "", "module", true);
    m.sourceHash = string(root, "", "source_hash", false);
    const Value &kernels = field(root, "", "kernels", Value::Kind::Array);
    for (size_t i = 0; i < kernels.items().size(); ++i)
      m.kernels.push_back(
          kernel(kernels.items()[i], "kernels[" + std::to_string(i) + "]"));
    const Value &images = field(root, "", "images", Value::Kind::Array);
    for (size_t i = 0; i < images.items().size(); ++i)
      m.images.push_back(
          image(images.items()[i], "images[" + std::to_string(i) + "]"));
    return m;
  }

private:
  std::string_view source_;
};

Value stringArray(const std::vector<std::string> &items) {
  Value arr = Value::array();
  for (const std::string &s : items)
    arr.push(Value::string(s));
  return arr;
}

Value paramToJson(const ParamInfo &p) {
  Value v = Value::object();
  v.set("name", Value::string(p.name));
  bool tensor = p.kind == ParamKind::Tensor;
  v.set("kind", Value::string(tensor ? "tensor" : "scalar"));
  v.set("dtype", Value::string(std::string(dtypeName(p.dtype))));
  if (tensor) {
    v.set("align", Value::integer(p.align));
    v.set("shape", stringArray(p.shape));
  } else {
    v.set("multiple_of", Value::integer(p.multipleOf));
  }
  return v;
}

Value variantToJson(const VariantInfo &var) {
  Value v = Value::object();
  v.set("name", Value::string(var.name));
  v.set("symbol", Value::string(var.symbol));
  v.set("maxnreg", Value::integer(var.maxnreg));
  v.set("min_ctas_per_sm", Value::integer(var.minCtasPerSm));
  v.set("when", Value::string(var.when));
  if (var.numWarps)
    v.set("num_warps", Value::integer(var.numWarps));
  if (!var.grid.empty())
    v.set("grid", stringArray(var.grid));
  if (var.earlyLaunch)
    v.set("early_launch", Value::boolean(*var.earlyLaunch));
  if (!var.bounds.empty()) {
    Value bounds = Value::array();
    for (const AccessBoundInfo &b : var.bounds) {
      Value e = Value::object();
      e.set("param", Value::string(b.param));
      e.set("access", Value::string(b.access));
      e.set("at", Value::string(b.at));
      if (!b.when.empty())
        e.set("when", Value::string(b.when));
      e.set("min", Value::string(b.min));
      e.set("max", Value::string(b.max));
      if (!b.minAccess.empty())
        e.set("min_access", Value::string(b.minAccess));
      if (!b.minAt.empty())
        e.set("min_at", Value::string(b.minAt));
      if (b.masked)
        e.set("masked", Value::boolean(true));
      bounds.push(std::move(e));
    }
    v.set("bounds", std::move(bounds));
  }
  return v;
}

Value kernelToJson(const KernelInfo &k) {
  Value v = Value::object();
  v.set("name", Value::string(k.name));
  v.set("num_warps", Value::integer(k.numWarps));
  v.set("shared_bytes", Value::integer(k.sharedBytes));
  v.set("grid", stringArray({k.grid[0], k.grid[1], k.grid[2]}));
  Value params = Value::array();
  for (const ParamInfo &p : k.params)
    params.push(paramToJson(p));
  v.set("params", std::move(params));
  Value variants = Value::array();
  for (const VariantInfo &var : k.variants)
    variants.push(variantToJson(var));
  v.set("variants", std::move(variants));
  if (k.earlyLaunch) // absent means false: other kernels' manifests keep their bytes
    v.set("early_launch", Value::boolean(true));
  if (k.offsets64) // likewise
    v.set("offsets64", Value::boolean(true));
  return v;
}

Value imageToJson(const ImageInfo &img) {
  Value v = Value::object();
  v.set("target", Value::string(img.target));
  v.set("kind", Value::string(std::string(imageKindName(img.kind))));
  v.set("section", Value::integer(img.section));
  if (!img.resources.empty()) {
    Value res = Value::object();
    for (const auto &[symbol, u] : img.resources) {
      Value r = Value::object();
      r.set("registers", Value::integer(u.registers));
      r.set("spills", Value::integer(u.spills));
      r.set("stack", Value::integer(u.stack));
      r.set("shared", Value::integer(u.shared));
      res.set(symbol, std::move(r));
    }
    v.set("resources", std::move(res));
  }
  return v;
}

} // namespace

const KernelInfo *Manifest::findKernel(std::string_view name) const {
  for (const KernelInfo &k : kernels)
    if (k.name == name)
      return &k;
  return nullptr;
}

Manifest parseManifest(std::string_view text, std::string_view source) {
  Reader reader(source);
  return reader.manifest(json::parse(text, source));
}

std::string manifestToJson(const Manifest &m) {
  Value root = Value::object();
  root.set("format_version", Value::integer(m.formatVersion));
  root.set("compiler_version", Value::string(m.compilerVersion));
  root.set("module", Value::string(m.module));
  root.set("source_hash", Value::string(m.sourceHash));
  Value kernels = Value::array();
  for (const KernelInfo &k : m.kernels)
    kernels.push(kernelToJson(k));
  root.set("kernels", std::move(kernels));
  Value images = Value::array();
  for (const ImageInfo &img : m.images)
    images.push(imageToJson(img));
  root.set("images", std::move(images));
  return json::write(root);
}

std::string_view imageKindName(ImageKind kind) {
  return kind == ImageKind::Ptx ? "ptx" : "cubin";
}

bool operator==(const ParamInfo &a, const ParamInfo &b) {
  return std::tie(a.name, a.kind, a.dtype, a.align, a.shape, a.multipleOf) ==
         std::tie(b.name, b.kind, b.dtype, b.align, b.shape, b.multipleOf);
}

bool operator==(const AccessBoundInfo &a, const AccessBoundInfo &b) {
  return std::tie(a.param, a.access, a.at, a.when, a.min, a.max, a.minAccess, a.minAt, a.masked) ==
         std::tie(b.param, b.access, b.at, b.when, b.min, b.max, b.minAccess, b.minAt, b.masked);
}

bool operator==(const VariantInfo &a, const VariantInfo &b) {
  return std::tie(a.name, a.symbol, a.maxnreg, a.minCtasPerSm, a.when, a.numWarps, a.grid,
                  a.earlyLaunch, a.bounds) == std::tie(b.name, b.symbol, b.maxnreg, b.minCtasPerSm,
                                                       b.when, b.numWarps, b.grid, b.earlyLaunch,
                                                       b.bounds);
}

bool launchesEarly(const KernelInfo &kernel, size_t variant) {
  return variant < kernel.variants.size()
             ? kernel.variants[variant].earlyLaunch.value_or(kernel.earlyLaunch)
             : kernel.earlyLaunch;
}

bool operator==(const KernelInfo &a, const KernelInfo &b) {
  return std::tie(a.name, a.numWarps, a.sharedBytes, a.grid, a.params, a.variants,
                  a.earlyLaunch, a.offsets64) == std::tie(b.name, b.numWarps, b.sharedBytes, b.grid,
                                                          b.params, b.variants, b.earlyLaunch,
                                                          b.offsets64);
}

bool operator==(const ResourceUsage &a, const ResourceUsage &b) {
  return std::tie(a.registers, a.spills, a.stack, a.shared) ==
         std::tie(b.registers, b.spills, b.stack, b.shared);
}

bool operator==(const ImageInfo &a, const ImageInfo &b) {
  return std::tie(a.target, a.kind, a.section, a.resources) ==
         std::tie(b.target, b.kind, b.section, b.resources);
}

bool operator==(const Manifest &a, const Manifest &b) {
  return std::tie(a.formatVersion, a.compilerVersion, a.module, a.sourceHash,
                  a.kernels, a.images) ==
         std::tie(b.formatVersion, b.compilerVersion, b.module, b.sourceHash,
                  b.kernels, b.images);
}

} // namespace megac::rt
