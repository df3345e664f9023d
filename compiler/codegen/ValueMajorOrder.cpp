#include "ValueMajorOrder.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

namespace megac {
namespace {

// Instructions whose relative order is kept: memory, side effects,
// convergence (shuffles), inline asm (megac's predicated loads and stores).
bool isAnchor(const llvm::Instruction &inst) {
  if (inst.isTerminator() || llvm::isa<llvm::PHINode, llvm::AllocaInst>(inst) || inst.isEHPad())
    return true;
  if (inst.mayReadOrWriteMemory() || inst.mayHaveSideEffects())
    return true;
  if (const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst))
    return call->isInlineAsm() || call->isConvergent() || !call->doesNotAccessMemory();
  return false;
}

// Used after the block: by another block, or by a phi (whose value from this
// block is read when the block is left, even a phi of this block).
bool usedAfter(const llvm::Instruction &inst) {
  for (const llvm::User *user : inst.users()) {
    const auto *other = llvm::cast<llvm::Instruction>(user);
    if (other->getParent() != inst.getParent() || llvm::isa<llvm::PHINode>(other))
      return true;
  }
  return false;
}

class BlockOrder {
public:
  explicit BlockOrder(llvm::BasicBlock &block) : block(block) {}

  void run() {
    for (llvm::Instruction &inst : block)
      if (isAnchor(inst) && !inst.isTerminator())
        place(&inst);
    for (llvm::Instruction &inst : block)
      if (!isAnchor(inst) && (usedAfter(inst) || inst.use_empty()))
        place(&inst);
    llvm::Instruction *terminator = block.getTerminator();
    place(terminator);
    for (llvm::Instruction *inst : order)
      if (inst != terminator && !llvm::isa<llvm::PHINode>(inst))
        inst->moveBefore(terminator->getIterator());
  }

private:
  // Depth first: an instruction after the operands it needs from this block.
  // A phi needs none here (its operands are read on the edges into the
  // block): following them would pull a loop's next values, and the loads
  // they need, above the anchors before them.
  void place(llvm::Instruction *inst) {
    if (!placed.insert(inst).second || llvm::isa<llvm::PHINode>(inst))
      return;
    for (llvm::Value *operand : inst->operands())
      if (auto *def = llvm::dyn_cast<llvm::Instruction>(operand))
        if (def->getParent() == &block && !llvm::isa<llvm::PHINode>(def))
          place(def);
    order.push_back(inst);
  }

  llvm::BasicBlock &block;
  llvm::DenseSet<llvm::Instruction *> placed;
  llvm::SmallVector<llvm::Instruction *> order;
};

} // namespace

void orderValueMajor(llvm::BasicBlock &block) {
  if (block.getTerminator())
    BlockOrder(block).run();
}

void orderValueMajor(llvm::Function &function) {
  for (llvm::BasicBlock &block : function)
    orderValueMajor(block);
}

} // namespace megac
