#include "SlsrGate.h"

#include "llvm/IR/Module.h"

namespace megac {

SlsrGate SlsrGate::forLargeFunctions(const llvm::Module &module) {
  llvm::StringSet<> large;
  for (const llvm::Function &f : module)
    if (!f.isDeclaration() && f.getInstructionCount() > kSlsrMaxInstructions)
      large.insert(f.getName());
  return SlsrGate(std::move(large));
}

bool SlsrGate::shouldRunPass(llvm::StringRef pass, llvm::StringRef unit) const {
  if (pass != "slsr")
    return true;
  // A function pass's unit reads "function (NAME)".
  unit.consume_front("function (");
  unit.consume_back(")");
  if (!functions.contains(unit))
    return true;
  ++numSkipped;
  return false;
}

} // namespace megac
