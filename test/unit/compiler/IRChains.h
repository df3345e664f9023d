#pragma once
// Test IR of a known size: the pass gates that look at a function's
// instruction count (the pass skips on large functions and SLSR's).
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace megac::test {

// A function `name` with `adds` dependent additions and a return.
inline llvm::Function *addChain(llvm::Module &m, llvm::StringRef name, unsigned adds) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *i32 = llvm::Type::getInt32Ty(ctx);
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(i32, {i32}, false),
                                    llvm::Function::ExternalLinkage, name, m);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Value *v = fn->getArg(0);
  for (unsigned i = 0; i < adds; ++i)
    v = b.CreateAdd(v, fn->getArg(0));
  b.CreateRet(v);
  return fn;
}

} // namespace megac::test
