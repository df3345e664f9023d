#pragma once
// PTX of a kernel's register-cap variants, made from the kernel's own PTX.
//
// A variant that differs from its kernel only in `.maxnreg` / `.minnctapersm`
// (`@variant(cap168, maxnreg = 168, min_ctas_per_sm = 3, ...)`) is the same
// function under another name: the emitter optimizes it once (PTXEmitter.cpp)
// and, rather than running NVPTX's code generator on a copy (10 of gdn_core's
// 51 ms), copies the kernel's PTX text: renamed, with the variant's
// directives, at the place LLVM would have put it, and with every function's
// branch labels ($L__BB<function>_<block>) numbered as LLVM numbers them (the
// functions in order). The result is the PTX LLVM emits for the copied
// function, byte for byte.

#include <string>
#include <vector>

namespace megac {

struct PtxCopy {
  std::string name;   // the variant's entry
  std::string of;     // the kernel whose PTX it copies
  std::string before; // the entry it goes before; empty: right after `of`
  unsigned minCtasPerSm = 0, maxnreg = 0; // 0: no directive
};

// `ptx` (NVPTX's output for a module) with the copies added, in order (a
// copy's `before` must be an entry of `ptx` or an earlier copy), and labels
// renumbered. Returns an empty string when an entry it needs is not there.
std::string addPtxCopies(const std::string &ptx, const std::vector<PtxCopy> &copies);

} // namespace megac
