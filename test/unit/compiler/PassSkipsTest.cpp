// The pass-run skips (codegen/PassSkips.h): keys count a pass's runs per
// function, and both pass managers ask them, or the built-in list silently
// skips the wrong runs (the PTX identity test would then fail, later).
#include "codegen/PassSkips.h"
#include "IRChains.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

llvm::StringSet<> keysOf(std::initializer_list<const char *> keys) {
  llvm::StringSet<> set;
  for (const char *k : keys)
    set.insert(k);
  return set;
}

// A function `name` returning x + 0 + 0: InstCombine leaves `ret x`.
llvm::Function *addZeros(llvm::Module &m, llvm::StringRef name) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(i32, {i32, i32}, false),
                                    llvm::Function::ExternalLinkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *zero = b.CreateSub(fn->getArg(1), fn->getArg(1));
  b.CreateRet(b.CreateAdd(b.CreateAdd(fn->getArg(0), zero), zero));
  return fn;
}

// LLVM's own legacy SLSR pass over every function of `m`, twice, through
// the legacy gate asking `skips`.
void runSlsrTwice(llvm::Module &m, megac::PassSkips &skips) {
  megac::LegacyPassGate gate(skips);
  m.getContext().setOptPassGate(gate);
  llvm::legacy::FunctionPassManager fpm(&m);
  fpm.add(llvm::createStraightLineStrengthReducePass());
  fpm.doInitialization();
  for (int round = 0; round < 2; ++round)
    for (llvm::Function &fn : m)
      fpm.run(fn);
  fpm.doFinalization();
  m.getContext().setOptPassGate(llvm::getGlobalPassGate());
}

TEST(PassSkips, KeysCountAPassesRunsOnEachFunction) {
  megac::PassSkips skips("opt", keysOf({"opt:InstCombinePass:1"}));
  EXPECT_TRUE(skips.shouldRun("InstCombinePass", "f"));   // f's run 0
  EXPECT_TRUE(skips.shouldRun("InstCombinePass", "g"));   // g's run 0
  EXPECT_TRUE(skips.shouldRun("GVNPass", "f"));
  EXPECT_FALSE(skips.shouldRun("InstCombinePass", "f"));  // f's run 1
  EXPECT_FALSE(skips.shouldRun("InstCombinePass", "g"));  // g's run 1
  EXPECT_TRUE(skips.shouldRun("InstCombinePass", "f"));   // f's run 2
  EXPECT_EQ(skips.skipped(), 2u);
}

// LoopSimplify and LCSSA put loops in the form later loop passes assume:
// no list skips them, and their runs are not counted (nor logged), so a key
// naming one skips nothing.
TEST(PassSkips, LoopFormPassesAlwaysRun) {
  megac::PassSkips skips("opt", keysOf({"opt:LCSSAPass:0", "opt:LoopSimplifyPass:0",
                                        "opt:LICMPass:0"}));
  EXPECT_TRUE(skips.shouldRun("LCSSAPass", "f"));
  EXPECT_TRUE(skips.shouldRun("LoopSimplifyPass", "f"));
  EXPECT_FALSE(skips.shouldRun("LICMPass", "f"));
  EXPECT_EQ(skips.skipped(), 1u);
  EXPECT_TRUE(megac::PassSkips::keepsLoopForm("LCSSAPass"));
  EXPECT_FALSE(megac::PassSkips::keepsLoopForm("LICMPass"));
}

TEST(PassSkips, TheNewPassManagerAsksForEveryFunction) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  llvm::Function *f = addZeros(m, "f");
  megac::PassSkips skips("opt", keysOf({"opt:InstCombinePass:0"}));
  llvm::PassInstrumentationCallbacks pic;
  skips.registerOn(pic);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(nullptr, llvm::PipelineTuningOptions(), std::nullopt, &pic);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::FunctionPassManager once;
  once.addPass(llvm::InstCombinePass());
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(once)));
  mpm.run(m, mam);
  EXPECT_EQ(skips.skipped(), 1u);
  EXPECT_EQ(f->getInstructionCount(), 4u);  // untouched: sub, add, add, ret
  mpm.run(m, mam);                          // run 1 is not skipped
  EXPECT_EQ(skips.skipped(), 1u);
  EXPECT_EQ(f->getInstructionCount(), 1u);  // ret x
}

TEST(PassSkips, TheLegacyGateAsksTheSkips) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addZeros(m, "f");
  addZeros(m, "g");
  megac::PassSkips skips("cg", keysOf({"cg:slsr:0"}));
  runSlsrTwice(m, skips);
  EXPECT_EQ(skips.skipped(), 2u);  // f's and g's first runs
}

using megac::test::addChain;

// SLSR skipped for its cost (PassSkips::alsoSkipPass) against LLVM's own
// legacy pass: the gate must recognize the pass and the function it runs on,
// or compile times of large kernels silently regress.
TEST(PassSkips, APassSkippedOnTheFunctionsNamedWhateverItsKey) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addChain(m, "big", 4);
  addChain(m, "small", 4);
  megac::PassSkips skips("cg", {});
  skips.alsoSkipPass("slsr", keysOf({"big"}));
  runSlsrTwice(m, skips);
  EXPECT_EQ(skips.skipped(), 2u);  // both runs on big, not only its first
  EXPECT_TRUE(skips.shouldRun("instcombine", "function (big)"));  // that pass only
  EXPECT_TRUE(skips.shouldRun("slsr", "function (small)"));
  megac::PassSkips none("cg", {});
  none.alsoSkipPass("slsr", {});  // no function over the limit
  EXPECT_TRUE(none.shouldRun("slsr", "function (big)"));
}

TEST(PassSkips, SlsrIsSkippedOnFunctionsOverItsLimit) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addChain(m, "large", megac::kSlsrMaxInstructions);      // plus its return: one over
  addChain(m, "limit", megac::kSlsrMaxInstructions - 1);  // exactly at the limit
  llvm::StringSet<> over = megac::functionsOver(m, megac::kSlsrMaxInstructions);
  EXPECT_EQ(over.size(), 1u);
  EXPECT_TRUE(over.contains("large"));
}

TEST(PassSkips, LargeFunctionsAreThoseOverTheLimit) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addChain(m, "large", megac::kLargeFunctionInstructions);      // plus its return: one over
  addChain(m, "limit", megac::kLargeFunctionInstructions - 1);  // exactly at the limit
  llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                         llvm::Function::ExternalLinkage, "declared", m);
  llvm::StringSet<> large = megac::largeFunctions(m);
  EXPECT_EQ(large.size(), 1u);
  EXPECT_TRUE(large.contains("large"));
}

TEST(PassSkips, TheLargeListSkipsOnLargeFunctionsOnly) {
  megac::PassSkips skips("opt", keysOf({"opt:GVNPass:0"}));
  skips.alsoOnLarge(keysOf({"opt:InstCombinePass:1", "opt:IPSCCPPass:0"}), keysOf({"big"}));
  EXPECT_FALSE(skips.shouldRun("GVNPass", "small"));          // the first list: everywhere
  EXPECT_TRUE(skips.shouldRun("InstCombinePass", "small"));   // small's run 0
  EXPECT_TRUE(skips.shouldRun("InstCombinePass", "small"));   // small's run 1: not large
  EXPECT_TRUE(skips.shouldRun("InstCombinePass", "big"));     // big's run 0
  EXPECT_FALSE(skips.shouldRun("InstCombinePass", "big"));    // big's run 1
  EXPECT_TRUE(skips.shouldRun("InstCombinePass", "(big)"));   // a call-graph SCC of big: its run 0
  EXPECT_FALSE(skips.shouldRun("InstCombinePass", "(big)"));  // its run 1
  EXPECT_TRUE(skips.shouldRun("IPSCCPPass", "module"));       // a module is no large function
  EXPECT_EQ(skips.skipped(), 3u);

  // The legacy pass manager names a function's unit "function (NAME)".
  megac::PassSkips codegen("cg", {});
  codegen.alsoOnLarge(keysOf({"cg:branch-folder:0"}), keysOf({"big"}));
  EXPECT_TRUE(codegen.shouldRun("branch-folder", "function (small)"));
  EXPECT_FALSE(codegen.shouldRun("branch-folder", "function (big)"));
  EXPECT_TRUE(codegen.shouldRun("branch-folder", "function (big)"));  // its run 1
}

TEST(PassSkips, TheLogMarksTheRunsOnLargeFunctions) {
  std::string path = ::testing::TempDir() + "megac_pass_log.txt";
  std::remove(path.c_str());
  setenv("MEGAC_PASS_LOG", path.c_str(), 1);
  {
    megac::PassSkips skips("cg", {});
    skips.alsoOnLarge({}, keysOf({"big"}));
    skips.shouldRun("slsr", "function (small)");
    skips.shouldRun("slsr", "function (big)");
  }
  unsetenv("MEGAC_PASS_LOG");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "cg:slsr:0\ncg:slsr:0\tlarge\n");
  std::remove(path.c_str());
}

TEST(PassSkips, TheEnvironmentReplacesTheBuiltInList) {
  unsetenv("MEGAC_PASS_SKIPS");
  EXPECT_FALSE(megac::PassSkips::keysFromEnvironment().empty());
  EXPECT_EQ(megac::PassSkips::keysFromEnvironment().size(),
            megac::PassSkips::builtinKeys().size());
  setenv("MEGAC_PASS_SKIPS", "none", 1);
  EXPECT_TRUE(megac::PassSkips::keysFromEnvironment().empty());
  setenv("MEGAC_PASS_SKIPS", "opt:GVNPass:0, cg:slsr:0", 1);
  llvm::StringSet<> keys = megac::PassSkips::keysFromEnvironment();
  EXPECT_EQ(keys.size(), 2u);
  EXPECT_TRUE(keys.contains("opt:GVNPass:0"));
  EXPECT_TRUE(keys.contains("cg:slsr:0"));
  unsetenv("MEGAC_PASS_SKIPS");

  unsetenv("MEGAC_LARGE_PASS_SKIPS");
  EXPECT_FALSE(megac::PassSkips::largeKeysFromEnvironment().empty());
  EXPECT_EQ(megac::PassSkips::largeKeysFromEnvironment().size(),
            megac::PassSkips::builtinLargeKeys().size());
  setenv("MEGAC_LARGE_PASS_SKIPS", "none", 1);
  EXPECT_TRUE(megac::PassSkips::largeKeysFromEnvironment().empty());
  setenv("MEGAC_LARGE_PASS_SKIPS", "opt:LICMPass:0", 1);
  EXPECT_TRUE(megac::PassSkips::largeKeysFromEnvironment().contains("opt:LICMPass:0"));
  EXPECT_EQ(megac::PassSkips::keysFromEnvironment().size(),  // the other list stays
            megac::PassSkips::builtinKeys().size());
  unsetenv("MEGAC_LARGE_PASS_SKIPS");

  unsetenv("MEGAC_COSTLY_PASS_SKIPS");
  EXPECT_FALSE(megac::PassSkips::costlyKeysFromEnvironment().empty());
  EXPECT_EQ(megac::PassSkips::costlyKeysFromEnvironment().size(),
            megac::PassSkips::builtinCostlyKeys().size());
  setenv("MEGAC_LARGE_PASS_SKIPS", "none", 1);  // the large functions' list off: the costly one stays
  EXPECT_EQ(megac::PassSkips::costlyKeysFromEnvironment().size(),
            megac::PassSkips::builtinCostlyKeys().size());
  unsetenv("MEGAC_LARGE_PASS_SKIPS");
  setenv("MEGAC_COSTLY_PASS_SKIPS", "none", 1);
  EXPECT_TRUE(megac::PassSkips::costlyKeysFromEnvironment().empty());
  EXPECT_EQ(megac::PassSkips::largeKeysFromEnvironment().size(),
            megac::PassSkips::builtinLargeKeys().size());
  unsetenv("MEGAC_COSTLY_PASS_SKIPS");
}

// A costly run is in neither generated list: one listed twice would mean a
// search that found it neutral, and the costly list is for runs that are not.
TEST(PassSkips, TheCostlyRunsAreInNeitherGeneratedList) {
  for (const auto &key : megac::PassSkips::builtinCostlyKeys()) {
    EXPECT_FALSE(megac::PassSkips::builtinKeys().contains(key.getKey())) << key.getKey().str();
    EXPECT_FALSE(megac::PassSkips::builtinLargeKeys().contains(key.getKey())) << key.getKey().str();
  }
}

} // namespace
