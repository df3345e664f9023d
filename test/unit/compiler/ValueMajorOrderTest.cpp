// The value-major order of @value_major kernels (codegen/ValueMajorOrder.h)
// on small LLVM functions: pure chains come together, the instructions that
// touch memory keep their order, values used by later blocks come before the
// branch in their order, and the function still verifies.
#include "codegen/ValueMajorOrder.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

struct Fixture {
  llvm::LLVMContext ctx;
  llvm::Module module{"m", ctx};
  llvm::Type *f32 = llvm::Type::getFloatTy(ctx);
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);

  llvm::Function *function(const char *name) {
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr}, false);
    return llvm::Function::Create(type, llvm::Function::ExternalLinkage, name, module);
  }
};

// The names of a block's instructions, in order.
std::vector<std::string> names(const llvm::BasicBlock &block) {
  std::vector<std::string> out;
  for (const llvm::Instruction &inst : block)
    out.push_back(inst.hasName() ? inst.getName().str() : inst.getOpcodeName());
  return out;
}

TEST(ValueMajorOrder, ChainsComeTogetherAndMemoryKeepsItsOrder) {
  Fixture f;
  llvm::Function *fn = f.function("k");
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(f.ctx, "entry", fn));
  llvm::Value *p = fn->getArg(0);
  llvm::Value *q = b.CreateConstGEP1_32(f.f32, p, 1, "q");
  llvm::Value *x0 = b.CreateLoad(f.f32, p, "x0");
  llvm::Value *x1 = b.CreateLoad(f.f32, q, "x1");
  // Op-major, as the lowering emits it: both additions, then both products.
  llvm::Value *a0 = b.CreateFAdd(x0, x0, "a0");
  llvm::Value *a1 = b.CreateFAdd(x1, x1, "a1");
  llvm::Value *m0 = b.CreateFMul(a0, x0, "m0");
  llvm::Value *m1 = b.CreateFMul(a1, x1, "m1");
  b.CreateStore(m0, p);
  b.CreateStore(m1, q);
  b.CreateRetVoid();

  megac::orderValueMajor(*fn);
  EXPECT_EQ(names(fn->getEntryBlock()),
            (std::vector<std::string>{"x0", "q", "x1", "a0", "m0", "store", "a1", "m1", "store", "ret"}));
  EXPECT_FALSE(llvm::verifyFunction(*fn, &llvm::errs()));
}

TEST(ValueMajorOrder, ValuesUsedByLaterBlocksComeBeforeTheBranchInTheirOrder) {
  Fixture f;
  llvm::Function *fn = f.function("k");
  auto *entry = llvm::BasicBlock::Create(f.ctx, "entry", fn);
  auto *next = llvm::BasicBlock::Create(f.ctx, "next", fn);
  auto *done = llvm::BasicBlock::Create(f.ctx, "done", fn);
  llvm::IRBuilder<> b(entry);
  llvm::Value *p = fn->getArg(0);
  llvm::Value *x = b.CreateLoad(f.f32, p, "x");
  llvm::Value *a0 = b.CreateFAdd(x, x, "a0");
  llvm::Value *a1 = b.CreateFSub(x, x, "a1");
  llvm::Value *m0 = b.CreateFMul(a0, a0, "m0");
  llvm::Value *m1 = b.CreateFMul(a1, a1, "m1");
  llvm::Value *dead = b.CreateFNeg(x, "dead");
  (void)dead;
  llvm::Value *cond = b.CreateFCmpOLT(x, x, "cond");
  b.CreateCondBr(cond, next, done);
  b.SetInsertPoint(next);
  llvm::PHINode *phi = b.CreatePHI(f.f32, 1, "phi");
  phi->addIncoming(m1, entry);
  b.CreateStore(b.CreateFAdd(phi, m0, "sum"), p);
  b.CreateRetVoid();
  b.SetInsertPoint(done);
  b.CreateRetVoid();

  megac::orderValueMajor(*fn);
  EXPECT_EQ(names(*entry), (std::vector<std::string>{"x", "a0", "m0", "a1", "m1", "dead", "cond", "br"}));
  EXPECT_EQ(names(*next), (std::vector<std::string>{"phi", "sum", "store", "ret"}));
  EXPECT_FALSE(llvm::verifyFunction(*fn, &llvm::errs()));
}

// A loop of one block: x loaded before it, a phi `acc` (x, then the body's
// value), the body's instructions from `body` (given the builder, acc, x and
// the pointer; returns the value carried and the loop condition).
struct OneBlockLoop {
  Fixture f;
  llvm::Function *fn = f.function("k");
  llvm::BasicBlock *loop = nullptr;

  template <class Body> explicit OneBlockLoop(Body body) {
    auto *entry = llvm::BasicBlock::Create(f.ctx, "entry", fn);
    loop = llvm::BasicBlock::Create(f.ctx, "loop", fn);
    auto *exit = llvm::BasicBlock::Create(f.ctx, "exit", fn);
    llvm::IRBuilder<> b(entry);
    llvm::Value *p = fn->getArg(0);
    llvm::Value *x = b.CreateLoad(f.f32, p, "x");
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode *acc = b.CreatePHI(f.f32, 2, "acc");
    auto [next, more] = body(b, acc, x, p);
    b.CreateCondBr(more, loop, exit);
    acc->addIncoming(x, entry);
    acc->addIncoming(next, loop);
    b.SetInsertPoint(exit);
    b.CreateRetVoid();
  }
};

// The value the phi carries to the next iteration is used by nothing else in
// the block, and must still come after its operands.
TEST(ValueMajorOrder, ValuesCarriedByAPhiOfTheSameBlockStayAfterTheirOperands) {
  OneBlockLoop l([](llvm::IRBuilder<> &b, llvm::PHINode *acc, llvm::Value *x, llvm::Value *p) {
    llvm::Value *y = b.CreateLoad(b.getFloatTy(), p, "y");
    llvm::Value *sq = b.CreateFMul(y, y, "sq");
    llvm::Value *next = b.CreateFAdd(acc, sq, "next");
    return std::pair{next, b.CreateFCmpOLT(x, x, "more")};
  });
  megac::orderValueMajor(*l.fn);
  EXPECT_EQ(names(*l.loop), (std::vector<std::string>{"acc", "y", "sq", "next", "more", "br"}));
  EXPECT_FALSE(llvm::verifyFunction(*l.fn, &llvm::errs()));
}

// A phi's value from the back edge is read at the end of the block: it must
// not pull the load it depends on above the store before it.
TEST(ValueMajorOrder, APhiDoesNotPullMemoryAccessesUp) {
  OneBlockLoop l([](llvm::IRBuilder<> &b, llvm::PHINode *acc, llvm::Value *x, llvm::Value *p) {
    b.CreateStore(acc, p);
    llvm::Value *y = b.CreateLoad(b.getFloatTy(), p, "y");
    llvm::Value *next = b.CreateFAdd(acc, y, "next");
    return std::pair{next, b.CreateFCmpOLT(next, x, "more")};
  });
  megac::orderValueMajor(*l.fn);
  EXPECT_EQ(names(*l.loop), (std::vector<std::string>{"acc", "store", "y", "next", "more", "br"}));
  EXPECT_FALSE(llvm::verifyFunction(*l.fn, &llvm::errs()));
}

} // namespace
