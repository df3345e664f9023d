//===- runtime_fuzzer.cpp - libFuzzer harness for the runtime's inputs ----===//
//
// What the runtime reads from outside: bundle files, their manifests, the
// expressions in them, MEGAC_SLOTS, and the arguments of a launch. The first
// byte picks one; the rest is the input:
//   0  bundle bytes               readBundle, then every kernel's signature
//   1  manifest JSON              parseManifest, then every kernel's signature
//                                 (both: and a few seeded launches of each
//                                 kernel, checked as below)
//   2  an expression              Expr::parse over names a..d, eval on bytes
//   3  a MEGAC_SLOTS value        parsePlanRequest, every known slot registered
//   4+ a launch                   the bytes draw the arguments of one of the
//                                 kernels (test/unit/runtime/TestManifests.h,
//                                 and every manifest *.json in
//                                 $MEGAC_FUZZ_MANIFESTS), SignatureProperty.h
//                                 checks prepare() against the model
// Anything but a megac::rt::Error escaping, a sanitizer report, or the model
// and the runtime disagreeing is a finding. Build and run: fuzz/README.md.
//
//===----------------------------------------------------------------------===//
#include "ManifestDir.h"
#include "SignatureProperty.h"
#include "TestManifests.h"

#include "megac/runtime/bundle.h"
#include "megac/runtime/slots.h"

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>

using namespace megac::rt;

namespace {

struct Kernel {
  KernelSignature signature;
  model::Model model;
  explicit Kernel(const KernelInfo &info) : signature(info), model(signature.info()) {}
};

std::vector<std::unique_ptr<Kernel>> &kernels() {
  static std::vector<std::unique_ptr<Kernel>> all;
  return all;
}

void checkLaunch(const KernelSignature &sig, const model::Model &m, model::Launch &l) {
  bool accepted = false;
  std::string error = model::check(sig, m, l, accepted);
  if (!error.empty()) {
    std::fprintf(stderr, "runtime_fuzzer: %s\n", error.c_str());
    std::abort();
  }
}

/// Every kernel's signature, what loading a module builds, and for each that
/// builds, a few launches drawn from a generator seeded by the input: the
/// model must agree on kernels no compiler wrote.
void compileSignatures(const Manifest &m, const uint8_t *data, size_t size) {
  std::mt19937_64 rng(std::hash<std::string_view>()(
      std::string_view(reinterpret_cast<const char *>(data), size)));
  model::Draw draw = [&](uint64_t n) { return n ? rng() % n : 0; };
  for (const KernelInfo &k : m.kernels) {
    std::optional<KernelSignature> sig;
    try {
      sig.emplace(k);
    } catch (const ManifestError &) {
      continue;
    }
    model::Model model(sig->info());
    for (int i = 0; i < 4; ++i) {
      model::Launch l = model::drawLaunch(model, draw);
      if (i % 2)
        model::breakLaunch(l, draw);
      checkLaunch(*sig, model, l);
    }
  }
}

/// Draws from the input's bytes, then zeros once they run out.
struct ByteDraw {
  const uint8_t *data;
  size_t size;
  uint64_t operator()(uint64_t n) {
    if (n <= 1)
      return 0;
    uint64_t v = 0;
    for (uint64_t range = n - 1; range; range >>= 8) {
      v = v << 8 | (size ? *data : 0);
      if (size)
        ++data, --size;
    }
    return v % n;
  }
};

void fuzzLaunch(const uint8_t *data, size_t size) {
  ByteDraw bytes{data, size};
  model::Draw draw = [&](uint64_t n) { return bytes(n); };
  const Kernel &k = *kernels()[draw(kernels().size())];
  model::Launch l = model::drawLaunch(k.model, draw);
  for (uint64_t mistakes = draw(3); mistakes--;)
    model::breakLaunch(l, draw);
  checkLaunch(k.signature, k.model, l);
}

void fuzzExpression(const uint8_t *data, size_t size) {
  // The text ends at the first zero byte; what follows are the names' values.
  size_t len = 0;
  while (len < size && data[len])
    ++len;
  ByteDraw rest{data + len, size - len};
  int64_t env[4];
  for (int64_t &v : env)
    v = int64_t(rest(uint64_t(1) << 32)) - (int64_t(1) << 31);
  try {
    Expr e = Expr::parse(std::string_view(reinterpret_cast<const char *>(data), len), {"a", "b", "", "d"});
    e.eval(env);
  } catch (const ExprError &) {
  }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  kernels().push_back(std::make_unique<Kernel>(test::vectorAddKernel()));
  kernels().push_back(std::make_unique<Kernel>(test::gdnCoreKernel()));
  if (const char *dir = std::getenv("MEGAC_FUZZ_MANIFESTS"))
    for (const KernelInfo &k : test::manifestKernels(dir))
      kernels().push_back(std::make_unique<Kernel>(k));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  const uint8_t mode = data[0];
  ++data, --size;
  std::string_view text(reinterpret_cast<const char *>(data), size);
  try {
    switch (mode) {
    case 0:
      compileSignatures(readBundle(data, size, "fuzz.mgb").manifest, data, size);
      break;
    case 1:
      compileSignatures(parseManifest(text, "fuzz.json"), data, size);
      break;
    case 2:
      fuzzExpression(data, size);
      break;
    case 3: {
      static SlotRegistry registry = [] {
        SlotRegistry r;
        for (const std::string &name : knownSlotNames())
          r.add({name, [](const SlotCall &) {}, [](const SlotCall &) {}, {}, {}, {}});
        return r;
      }();
      parsePlanRequest(text, registry, "TP8");
      break;
    }
    default:
      fuzzLaunch(data, size);
    }
  } catch (const Error &) {
    // A refusal with a message: what the runtime should do with bad input.
  }
  return 0;
}
