// The pass-run skips (codegen/PassSkips.h): keys count a pass's runs per
// function, and both pass managers ask them, or the built-in list silently
// skips the wrong runs (the PTX identity test would then fail, later).
#include "codegen/PassSkips.h"
#include "codegen/SlsrGate.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/InstCombine/InstCombine.h"
#include "llvm/Transforms/Scalar.h"

#include <gtest/gtest.h>

#include <cstdlib>

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

TEST(PassSkips, TheLegacyGateAsksTheSkipsThenTheNextGate) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addZeros(m, "f");
  addZeros(m, "g");
  megac::PassSkips skips("cg", keysOf({"cg:slsr:0"}));
  llvm::StringSet<> none;
  megac::SlsrGate slsr(std::move(none));  // not enabled: asks nothing
  megac::SkipsThenGate gate(skips, slsr);
  ctx.setOptPassGate(gate);
  llvm::legacy::FunctionPassManager fpm(&m);
  fpm.add(llvm::createStraightLineStrengthReducePass());
  fpm.doInitialization();
  for (int round = 0; round < 2; ++round)
    for (llvm::Function &fn : m)
      fpm.run(fn);
  fpm.doFinalization();
  EXPECT_EQ(skips.skipped(), 2u);  // f's and g's first runs

  llvm::StringSet<> named;
  named.insert("f");
  megac::SlsrGate slsrOnF(std::move(named));
  megac::PassSkips noSkips("cg", {});
  megac::SkipsThenGate then(noSkips, slsrOnF);
  EXPECT_FALSE(then.shouldRunPass("slsr", "function (f)"));
  EXPECT_TRUE(then.shouldRunPass("slsr", "function (g)"));
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
}

} // namespace
