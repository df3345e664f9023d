// The SLSR gate (codegen/SlsrGate.h) against LLVM's own legacy SLSR pass: it
// must recognize the pass and the function it runs on, or compile times of
// large kernels silently regress.
#include "codegen/SlsrGate.h"
#include "IRChains.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Pass.h"
#include "llvm/Transforms/Scalar.h"

#include <gtest/gtest.h>

namespace {

using megac::test::addChain;

unsigned runSlsr(llvm::Module &m, megac::SlsrGate &gate) {
  m.getContext().setOptPassGate(gate);
  llvm::legacy::FunctionPassManager fpm(&m);
  fpm.add(llvm::createStraightLineStrengthReducePass());
  fpm.doInitialization();
  for (llvm::Function &f : m)
    fpm.run(f);
  fpm.doFinalization();
  return gate.skipped();
}

TEST(SlsrGate, SkipsSlsrOnTheFunctionsItNames) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addChain(m, "big", 4);
  addChain(m, "small", 4);
  llvm::StringSet<> names;
  names.insert("big");
  megac::SlsrGate gate(std::move(names));
  EXPECT_EQ(runSlsr(m, gate), 1u);
  EXPECT_TRUE(gate.shouldRunPass("instcombine", "function (big)"));
}

TEST(SlsrGate, NamesFunctionsOverTheInstructionLimit) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addChain(m, "large", megac::kSlsrMaxInstructions + 1);
  addChain(m, "limit", megac::kSlsrMaxInstructions - 1); // plus its return
  megac::SlsrGate gate = megac::SlsrGate::forLargeFunctions(m);
  EXPECT_TRUE(gate.isEnabled());
  EXPECT_FALSE(gate.shouldRunPass("slsr", "function (large)"));
  EXPECT_TRUE(gate.shouldRunPass("slsr", "function (limit)"));
}

TEST(SlsrGate, SmallModulesRunEveryPass) {
  llvm::LLVMContext ctx;
  llvm::Module m("m", ctx);
  addChain(m, "f", 10);
  megac::SlsrGate gate = megac::SlsrGate::forLargeFunctions(m);
  EXPECT_FALSE(gate.isEnabled());
  EXPECT_EQ(runSlsr(m, gate), 0u);
}

} // namespace
