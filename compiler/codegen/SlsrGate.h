#pragma once
// NVPTX's straight-line strength reduction (SLSR) searches every earlier
// candidate of a function for a basis, so its cost grows with the square of
// the function's size. On the attention split kernels (1000-2500 LLVM
// instructions after O3) it took half of the codegen time (47 of 92 ms for
// attn_split_verify's three variants) and rewrote nothing: their PTX is
// byte-identical without it on every target. Functions this large skip it
// (ptxas strength-reduces addresses itself); smaller kernels keep it, since
// it changes the PTX of some of them (hop, softmax, route, ...), and off
// for them too it made every compile 3-10% faster but hop at M = 1 2% slower
// (results/tuning_no_slsr_bd57f2c.md).

#include "llvm/ADT/StringSet.h"
#include "llvm/IR/OptBisect.h"

namespace llvm {
class Module;
}

namespace megac {

inline constexpr unsigned kSlsrMaxInstructions = 900;

// An LLVM pass gate (LLVMContext::setOptPassGate) that skips SLSR on the
// functions it names and runs every other pass; counts what it skipped.
class SlsrGate : public llvm::OptPassGate {
public:
  explicit SlsrGate(llvm::StringSet<> functions) : functions(std::move(functions)) {}
  // The functions of `module` with more than kSlsrMaxInstructions
  // instructions.
  static SlsrGate forLargeFunctions(const llvm::Module &module);

  bool isEnabled() const override { return !functions.empty(); }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef unit) const override;
  unsigned skipped() const { return numSkipped; }

private:
  llvm::StringSet<> functions;
  mutable unsigned numSkipped = 0;
};

} // namespace megac
