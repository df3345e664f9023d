#include "StructuredToCF.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace megac {
namespace {

// The loop's blocks: the code before it branches to the condition block
// (the body's first block, whose arguments are the induction variable and
// the carried values), which compares the induction variable with the upper
// bound and branches to the rest of the body or past the loop; the body's
// last block steps the induction variable and branches back.
void lowerFor(IRRewriter &rewriter, scf::ForOp loop) {
  Location loc = loop.getLoc();
  Block *initBlock = loop->getBlock();
  Block *endBlock = rewriter.splitBlock(initBlock, Block::iterator(loop));
  Block *conditionBlock = &loop.getRegion().front();
  Block *firstBodyBlock = rewriter.splitBlock(conditionBlock, conditionBlock->begin());
  Block *lastBodyBlock = &loop.getRegion().back();
  rewriter.inlineRegionBefore(loop.getRegion(), endBlock);
  Value iv = conditionBlock->getArgument(0);

  Operation *yield = lastBodyBlock->getTerminator();
  rewriter.setInsertionPointToEnd(lastBodyBlock);
  Value stepped = arith::AddIOp::create(rewriter, loc, iv, loop.getStep());
  SmallVector<Value, 8> carried{stepped};
  carried.append(yield->operand_begin(), yield->operand_end());
  cf::BranchOp::create(rewriter, loc, conditionBlock, carried);
  rewriter.eraseOp(yield);

  rewriter.setInsertionPointToEnd(initBlock);
  SmallVector<Value, 8> initial{loop.getLowerBound()};
  llvm::append_range(initial, loop.getInitArgs());
  cf::BranchOp::create(rewriter, loc, conditionBlock, initial);

  rewriter.setInsertionPointToEnd(conditionBlock);
  auto predicate = loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt;
  Value inRange = arith::CmpIOp::create(rewriter, loc, predicate, iv, loop.getUpperBound());
  cf::CondBranchOp::create(rewriter, loc, inRange, firstBodyBlock, ValueRange(), endBlock,
                           ValueRange());
  rewriter.replaceOp(loop, conditionBlock->getArguments().drop_front());
}

// The branch's blocks: the code before it branches to the then blocks or the
// else blocks (or past them), each ends with a branch to the continuation,
// which takes the results as its arguments (a block of its own, before the
// rest of the code, when there are results).
void lowerIf(IRRewriter &rewriter, scf::IfOp branch) {
  Location loc = branch.getLoc();
  Block *condBlock = branch->getBlock();
  Block *remainingOpsBlock = rewriter.splitBlock(condBlock, Block::iterator(branch));
  Block *continueBlock = remainingOpsBlock;
  if (branch.getNumResults() != 0) {
    continueBlock = rewriter.createBlock(remainingOpsBlock, branch.getResultTypes(),
                                         SmallVector<Location>(branch.getNumResults(), loc));
    cf::BranchOp::create(rewriter, loc, remainingOpsBlock);
  }
  // Each region's last block branches to the continuation instead of
  // yielding; the region's blocks go before the continuation.
  auto inlineRegion = [&](Region &region) {
    Block *first = &region.front();
    Operation *yield = region.back().getTerminator();
    rewriter.setInsertionPointToEnd(&region.back());
    cf::BranchOp::create(rewriter, loc, continueBlock, yield->getOperands());
    rewriter.eraseOp(yield);
    rewriter.inlineRegionBefore(region, continueBlock);
    return first;
  };
  Block *thenBlock = inlineRegion(branch.getThenRegion());
  Block *elseBlock = continueBlock;
  if (!branch.getElseRegion().empty())
    elseBlock = inlineRegion(branch.getElseRegion());

  rewriter.setInsertionPointToEnd(condBlock);
  cf::CondBranchOp::create(rewriter, loc, branch.getCondition(), thenBlock, ValueRange(),
                           elseBlock, ValueRange());
  rewriter.replaceOp(branch, continueBlock->getArguments());
}

} // namespace

bool lowerStructuredControlFlow(ModuleOp module) {
  // Outer ops first, as they were before any rewrite: a nested loop or
  // branch keeps its place in the blocks its parent's rewrite inlines.
  SmallVector<Operation *> ops;
  bool other = false;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isa<scf::ForOp, scf::IfOp>(op))
      ops.push_back(op);
    else if (isa<scf::SCFDialect>(op->getDialect()) && !isa<scf::YieldOp>(op))
      other = true;
  });
  if (other)
    return false;
  IRRewriter rewriter(module.getContext());
  for (Operation *op : ops) {
    if (auto loop = dyn_cast<scf::ForOp>(op))
      lowerFor(rewriter, loop);
    else
      lowerIf(rewriter, cast<scf::IfOp>(op));
  }
  return true;
}

} // namespace megac
