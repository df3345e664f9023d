//===- pipeline_fuzzer.cpp - libFuzzer harness over the whole megac pipeline =//
//
// Feeds arbitrary bytes as a .mega source to megac::compile: frontend, tile
// IR generation, the tile passes, lowering to LLVM/NVVM and PTX emission
// (ptxas is not run). Any crash, abort, assertion, LLVM fatal error or
// sanitizer report is a finding, and so is an "internal:" error (megac's
// own consistency checks, such as the runtime refusing the manifest megac
// wrote): the harness aborts on one.
//
// The first input line may be "//D NAME=VALUE" to set a define (as in the
// frontend fuzzer). The last byte of the input chooses whether sm_100a is
// compiled in addition to sm_90a.
//
//===----------------------------------------------------------------------===//
#include "driver/Compiler.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

// Our code is instrumented, libMLIR/libLLVM are not. LLVM's BumpPtrAllocator
// poisons a new slab in header code inlined into our objects (ASan build),
// while the uninstrumented copies in libMLIR hand out pieces of that slab
// without unpoisoning them: every valid kernel then reports a bogus
// use-after-poison. Ignore manual poisoning; real heap errors still report.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  megac::CompileOptions opts;
  opts.path = "fuzz.mega";
  opts.targets = {"sm_90a"};
  if (size > 0 && (data[size - 1] & 0x80))
    opts.targets.push_back("sm_100a");
  opts.runPtxas = false;
  if (text.rfind("//D ", 0) == 0) {
    size_t eol = text.find('\n');
    std::string def = text.substr(4, eol == std::string::npos ? eol : eol - 4);
    size_t eq = def.find('=');
    if (eq != std::string::npos)
      opts.defines[def.substr(0, eq)] = def.substr(eq + 1);
  }
  opts.text = std::move(text);
  megac::CompileResult result = megac::compile(opts);
  if (result.internalError) {
    std::fprintf(stderr, "pipeline_fuzzer: %s\n", result.diagnostics.c_str());
    std::abort();
  }
  return 0;
}
