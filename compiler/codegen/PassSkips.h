#pragma once
// LLVM's O3 pipeline and NVPTX's code generator, less the pass runs that
// change no kernel's PTX.
//
// A pass run is named by a key, "phase:pass:n": phase `opt` (the O3 pipeline,
// pass names as the new pass manager spells them) or `cg` (the legacy code
// generation pipeline, pass arguments), and n counts the pass's earlier runs
// on the same function (module, call-graph SCC): "opt:InstCombinePass:3" is
// O3's fourth InstCombine on every function. Only optional passes are asked,
// and of those two always run, whatever a list says: LoopSimplify and LCSSA
// put loops in the form the loop passes after them assume (preheaders,
// dedicated exits; values used outside a loop through phis at its exits:
// LICM sinks into exits only so). LLVM lets them be skipped, but a loop pass
// then runs on a loop out of form, which LLVM checks only in builds with
// assertions: on a kernel outside the lists' corpus that could be wrong code,
// not slower code (until the fifty-second session the lists skipped nine of
// their runs, which changed no PTX of the corpus). Skipping any other run
// never makes the code wrong, at worst slower.
//
// The built-in list (PassSkipList.inc) holds the runs whose removal leaves the
// PTX of every kernel in kernels-dsl/ and test/gpu/ byte-identical on every
// target, found one run at a time by scripts/find_pass_skips.py; the test
// `pass_skips_identity` compiles all of them with and without the list and
// fails if any PTX differs (a new kernel, or another LLVM), which is when
// the script is run again (`--prune`, after a new kernel: minutes).
//
// A second list (PassSkipListLarge.inc) holds runs skipped on large
// functions only: those of more than kLargeFunctionInstructions LLVM
// instructions when O3 begins (attention's 32- and 64-row variants,
// draft_fin_residual), and the variants cloned from them. Their compiles are the
// longest, and more runs change nothing there than on every kernel
// (InstCombine's third and sixth runs, LICM's first, ...): the same script
// finds them (`--large`), comparing the PTX of every kernel of each source
// that has a large function.
//
// A third list (PassSkipListCostly.inc, written by hand) holds runs skipped
// on large functions for their compile time although they change the PTX:
// InstCombine's second and eighth runs, IndVarSimplify, EarlyCSE's second,
// Reassociate, CorrelatedValuePropagation's first, code generation's third
// early CSE and machine CSE. ptxas makes code as fast without them (measured
// on the H200 at the benchmark's shapes: the file names the results), and they
// are a sixth of the instructions executed for attn_split_verify's 32-row
// variant (callgrind). The two lists above are found and checked without
// them (MEGAC_COSTLY_PASS_SKIPS=none): which runs change nothing depends on
// which others run, and with these skipped a few of theirs would change a
// large function's PTX.
//
// One pass is skipped for its cost where it does change the PTX:
// NVPTX's straight-line strength reduction (SLSR) searches every earlier
// candidate of a function for a basis, so its cost grows with the square of
// the function's size. On the attention split kernels (1000-2500 LLVM
// instructions after O3) it took half of the codegen time (47 of 92 ms for
// attn_split_verify's three variants) and rewrote nothing. Functions of more
// than kSlsrMaxInstructions after O3 skip it (ptxas strength-reduces
// addresses itself; draft_fin_residual's PTX changes); smaller kernels keep
// it, since it changes the PTX of some of them (hop, softmax, route, ...),
// and off for them too it made every compile 3-10% faster but hop at M = 1 2%
// slower (results/tuning_no_slsr_bd57f2c.md). The limit is 700 since
// `2398486` (900 before): the attention merges (about 770 instructions) skip
// it, their PTX unchanged and their compiles 7-11% faster; nvfp4_quant's
// `two_blocks` ran about 1% faster, draft_fin about 1% slower at M <= 128
// (results/tuning_slsr_limit_49ed307.md, results/tuning_codegen_none_2398486.md).
//
// The skip lists hold for the pipelines as megac runs them: the kernels that
// code generation takes at CodeGenOptLevel::None (kMachineOptMaxInstructions)
// are compared at None, where the codegen lists do not apply (they name runs
// of the Default pipeline).
// Environment, for scripts/find_pass_skips.py:
//   MEGAC_PASS_SKIPS        "none": the full pipelines; else a comma-separated
//                           list of keys instead of the built-in one
//   MEGAC_LARGE_PASS_SKIPS  the same for the large functions' list
//   MEGAC_COSTLY_PASS_SKIPS the same for the costly runs' list (none: every
//                           run of the large functions' pipelines that the
//                           two lists above leave)
//   MEGAC_PASS_LOG          a file that every pass run's key is appended to
//                           (a run on a large function: "KEY\tlarge")

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/OptBisect.h"

#include <string>

namespace llvm {
class Module;
class PassInstrumentationCallbacks;
}

namespace megac {

inline constexpr unsigned kLargeFunctionInstructions = 1500;
inline constexpr unsigned kSlsrMaxInstructions = 700;
// Kernels of more than this many LLVM instructions after O3 (attention's
// 32-row variant) are generated at CodeGenOptLevel::None (PTXEmitter.cpp):
// NVPTX's machine-level passes (register coalescing, machine CSE, LICM and
// sinking, peephole) and its IR-level ones (loop strength reduction,
// CodeGenPrepare, ...) are an eighth of that variant's compile, and ptxas
// redoes that work: the variant ran as fast at every benchmark shape
// (results/tuning_codegen_none_2398486.md). Smaller kernels keep Default: at
// None draft_fin_residual's register-capped variant spills. $MEGAC_MACHINE_OPT_MAX
// sets another limit (probes, lit codegen/machine-opt-level.mega).
inline constexpr unsigned kMachineOptMaxInstructions = 2000;

// The functions of `module` with more than `instructions` instructions
// (declarations aside).
llvm::StringSet<> functionsOver(const llvm::Module &module, unsigned instructions);
// Those with more than kLargeFunctionInstructions.
llvm::StringSet<> largeFunctions(const llvm::Module &module);

class PassSkips {
public:
  // The keys to skip: the built-in list unless $MEGAC_PASS_SKIPS says.
  static llvm::StringSet<> keysFromEnvironment();
  // The built-in list.
  static const llvm::StringSet<> &builtinKeys();
  // The keys to skip on large functions as well: the built-in list unless
  // $MEGAC_LARGE_PASS_SKIPS says.
  static llvm::StringSet<> largeKeysFromEnvironment();
  static const llvm::StringSet<> &builtinLargeKeys();
  // The keys skipped on large functions for their cost: the built-in list
  // unless $MEGAC_COSTLY_PASS_SKIPS says.
  static llvm::StringSet<> costlyKeysFromEnvironment();
  static const llvm::StringSet<> &builtinCostlyKeys();

  PassSkips(std::string phase, llvm::StringSet<> keys);
  PassSkips(const PassSkips &) = delete;
  ~PassSkips();  // appends the log to $MEGAC_PASS_LOG, when set

  // On the functions named in `functions` (a pass's unit naming one), the
  // runs `keys` names are skipped too.
  void alsoOnLarge(llvm::StringSet<> keys, llvm::StringSet<> functions);
  // Every run of `pass` (as the pass manager names it: "slsr") on the
  // functions named in `functions` is skipped too, whatever its key: a pass
  // skipped for its cost, not for leaving the PTX alone.
  void alsoSkipPass(llvm::StringRef pass, llvm::StringSet<> functions);

  // Counts the run of `pass` on `unit` and says whether it happens
  // (always for keepsLoopForm's passes, which are neither counted nor logged).
  bool shouldRun(llvm::StringRef pass, llvm::StringRef unit);
  // LoopSimplify and LCSSA (the new pass manager's names): never skipped.
  static bool keepsLoopForm(llvm::StringRef pass);
  // Asked by the new pass manager's optional passes.
  void registerOn(llvm::PassInstrumentationCallbacks &pic);
  unsigned skipped() const { return numSkipped; }

private:
  std::string phase;
  llvm::StringSet<> keys;
  llvm::StringSet<> largeKeys, large;
  llvm::StringMap<llvm::StringSet<>> passSkippedOn;  // pass -> functions
  llvm::StringMap<unsigned> runs;  // "pass\0unit" -> runs so far
  std::string log;
  bool logging = false;
  unsigned numSkipped = 0;
};

// A legacy pass manager's gate (LLVMContext::setOptPassGate): a pass runs if
// `skips` lets it.
class LegacyPassGate : public llvm::OptPassGate {
public:
  explicit LegacyPassGate(PassSkips &skips) : skips(skips) {}
  bool isEnabled() const override { return true; }
  bool shouldRunPass(llvm::StringRef pass, llvm::StringRef unit) const override {
    return skips.shouldRun(pass, unit);
  }

private:
  PassSkips &skips;
};

} // namespace megac
