// @fused_reductions: the sums (maxima, minima) of a block that combine
// across the same lanes, in the same order, share one reduce-scatter
// butterfly (Tile/Layout/ReduceScatter.h) instead of a butterfly each: five
// 32-lane sums take 13 shuffles instead of 25. Each result is bit for bit the
// one its own butterfly gives. docs/dialect.md, Reductions.
#include "KernelLowering.h"
#include "NVVMBuilders.h"
#include "TileToLLVM.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace megac::lowering {

namespace {

// What must match for two reductions to share a butterfly: the combining
// operation, the element type and the lanes' xor masks in order.
struct GroupKey {
  std::string kind;
  Type elem;
  std::vector<unsigned> masks;
  bool operator==(const GroupKey &o) const {
    return kind == o.kind && elem == o.elem && masks == o.masks;
  }
};

// A reduction that may join a group: its key and the partials a thread
// holds of it.
struct Candidate {
  GroupKey key;
  int64_t partials;
};

std::optional<Candidate> candidateOf(ReduceOp op) {
  StringRef kind = op.getKind();
  if (kind != "sum" && kind != "max" && kind != "min")
    return std::nullopt;
  auto srcType = op.getSrc().getType();
  Type elem = srcType.getElementType();
  if (!elem.isF32() && !elem.isInteger(32))
    return std::nullopt; // lowerReduce reports it
  if (!isa_and_nonnull<BlockedEncodingAttr, SliceEncodingAttr>(srcType.getEncoding()))
    return std::nullopt;
  auto src = distOf(op, srcType);
  if (failed(src) || (src->sliceDim >= 0 && isa<RankedTensorType>(op.getType())))
    return std::nullopt;
  unsigned axis = src->parentDim(op.getAxis());
  std::vector<unsigned> masks = src->blocked.laneXorMasks(src->parentShape, axis);
  if (masks.empty())
    return std::nullopt;
  int64_t partials = int64_t(registerGroupsOffAxis(*src, axis).order.size());
  return Candidate{GroupKey{kind.str(), elem, std::move(masks)}, partials};
}

// A max (min) after an argmax (argmin) of the same tile reuses its values
// (lowerReduce): leave it to that.
bool followsItsArgReduction(ReduceOp op) {
  for (Operation *o = op->getPrevNode(); o; o = o->getPrevNode())
    if (auto r = dyn_cast<ReduceOp>(o))
      if (r.getSrc() == op.getSrc() && r.getAxis() == op.getAxis() &&
          r.getKind() == (op.getKind() == "max" ? "argmax" : "argmin"))
        return true;
  return false;
}

// The ops after `first` in its block that `v` is computed from, when all can
// move above `first`: side-effect free, without regions, no reduction (a
// group's members are lowered where its first is), no dot or trans (their
// operands' copies to shared memory are planned where they are). False
// otherwise (`slice` then holds what was found before the refusal).
bool operandSliceAfter(Operation *first, Value v, SmallVector<Operation *> &slice) {
  SmallVector<Value> work{v};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != first->getBlock() || def->isBeforeInBlock(first) ||
        !seen.insert(def).second)
      continue;
    if (def == first || !isPure(def) || def->getNumRegions() != 0 ||
        isa<ReduceOp, DotOp, TransOp>(def))
      return false;
    slice.push_back(def);
    work.append(def->operand_begin(), def->operand_end());
  }
  return true;
}

} // namespace

std::vector<ReductionGroup> groupReductions(func::FuncOp func, bool moveOperands) {
  std::vector<ReductionGroup> groups;
  SmallVector<Block *> blocks;
  func.walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    // The block's groups as they grow. A group stays open to later
    // reductions of its key until one of them cannot join it (its operand
    // needs something that cannot move above the group's first); that one
    // starts a group of its own.
    struct Growing {
      GroupKey key;
      SmallVector<ReduceOp> members;
      int64_t partials;
      llvm::SetVector<Operation *> toMove; // what the members' operands need after the first
      bool open = true;
    };
    std::vector<Growing> growing;
    for (Operation &o : *block) {
      auto op = dyn_cast<ReduceOp>(&o);
      if (!op || followsItsArgReduction(op))
        continue;
      std::optional<Candidate> c = candidateOf(op);
      if (!c)
        continue;
      auto it = llvm::find_if(growing, [&](Growing &g) { return g.open && g.key == c->key; });
      SmallVector<Operation *> slice;
      if (it != growing.end() && operandSliceAfter(it->members.front(), op.getSrc(), slice)) {
        it->toMove.insert(slice.begin(), slice.end());
        it->members.push_back(op);
        it->partials += c->partials;
        continue;
      }
      if (it != growing.end())
        it->open = false;
      growing.push_back({c->key, {op}, c->partials, {}, true});
    }
    for (Growing &g : growing) {
      ReductionGroup group{g.members, layout::planReduceScatter(int(g.partials), g.key.masks)};
      if (moveOperands && group.plan.worthIt()) {
        // In block order, and only ever up: an op another group moved above
        // its own first already stays there.
        Operation *first = g.members.front();
        SmallVector<Operation *> ops(g.toMove.begin(), g.toMove.end());
        llvm::sort(ops, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
        for (Operation *s : ops)
          if (first->isBeforeInBlock(s))
            s->moveBefore(first);
      }
      groups.push_back(std::move(group));
    }
  }
  return groups;
}

void KernelLowering::findReductionGroups() {
  if (!func->hasAttr(tile::attr::kFusedReductions))
    return;
  // Only the groups worth a shared butterfly: the others' reductions are
  // lowered one by one, as without the attribute.
  for (ReductionGroup &group : groupReductions(func, /*moveOperands=*/true))
    if (group.plan.worthIt()) {
      Operation *first = group.members.front();
      reductionGroups[first] = std::move(group);
    }
}

LogicalResult KernelLowering::lowerReductionGroup(const ReductionGroup &group) {
  struct Member {
    ReduceOp op;
    Dist src;
    unsigned axis;
    ThreadReduction t;
  };
  std::vector<Member> members;
  SmallVector<Value> slots;
  for (ReduceOp op : group.members) {
    loc = op.getLoc();
    auto src = distOf(op, op.getSrc().getType());
    if (failed(src))
      return failure();
    unsigned axis = src->parentDim(op.getAxis());
    ThreadReduction t = reduceWithinThread(op, *src, axis);
    for (ReducePartial &p : t.partials)
      slots.push_back(p.value);
    members.push_back({op, *src, axis, std::move(t)});
  }
  const layout::ReduceScatterPlan &plan = group.plan;
  ReduceOp first = group.members.front();
  loc = first.getLoc();
  if (slots.size() != plan.slotOf.size())
    return first.emitError("internal: a reduction group's partials differ from its plan's");
  StringRef kind = first.getKind();
  for (const layout::ReduceScatterPlan::Step &step : plan.steps) {
    if (step.halves.empty()) {
      slots[0] = combine(kind, slots[0], nvvm::shuffleXor(b, loc, slots[0], step.mask));
      slots.truncate(1);
      continue;
    }
    // Lanes with the mask's bit set keep the high half and send the low.
    Value bit = arith::AndIOp::create(b, loc, lane, i32(step.mask));
    Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit, i32(0));
    SmallVector<Value> next;
    for (const layout::ReduceScatterPlan::Half &h : step.halves) {
      Value kept = slots[h.low], sent = slots[h.low];
      if (h.high >= 0) {
        sent = arith::SelectOp::create(b, loc, high, slots[h.low], slots[h.high]);
        kept = arith::SelectOp::create(b, loc, high, slots[h.high], slots[h.low]);
      }
      next.push_back(combine(kind, kept, nvvm::shuffleXor(b, loc, sent, step.mask)));
    }
    slots = std::move(next);
  }
  // Each result from a lane that holds it: the lane's own bits but the
  // scattering ones, which name the result's holders.
  SmallVector<Value> results;
  Value others = arith::AndIOp::create(b, loc, lane, i32(~plan.scatterBits & 31u));
  for (size_t j = 0; j < plan.slotOf.size(); ++j) {
    Value from = arith::OrIOp::create(b, loc, others, i32(plan.codeOf[j]));
    results.push_back(nvvm::shuffleIdx(b, loc, slots[plan.slotOf[j]], from));
  }

  size_t next = 0;
  for (Member &m : members) {
    loc = m.op.getLoc();
    for (ReducePartial &p : m.t.partials)
      p.value = results[next++];
    reduceAcrossWarps(kind, m.src, m.axis, m.t.partials);
    if (failed(handOutPartials(m.op, m.src, m.axis, m.t)))
      return failure();
  }
  return success();
}

} // namespace megac::lowering

namespace megac {

std::vector<ReductionGroupInfo> describeReductionGroups(mlir::func::FuncOp func) {
  std::vector<ReductionGroupInfo> out;
  if (!func->hasAttr(mlir::tile::attr::kFusedReductions))
    return out;
  for (lowering::ReductionGroup &g : lowering::groupReductions(func, /*moveOperands=*/false)) {
    int64_t partials = int64_t(g.plan.slotOf.size());
    if (g.members.size() < 2 && partials < 2)
      continue; // one value a thread: the plain butterfly, nothing to tell
    ReductionGroupInfo info;
    info.members.assign(g.members.begin(), g.members.end());
    info.kind = g.members.front().getKind().str();
    info.partials = partials;
    info.fused = g.plan.worthIt();
    info.shuffles = g.plan.numShuffles();
    info.selects = g.plan.numSelects();
    info.plainShuffles = g.plan.numPlainShuffles();
    out.push_back(std::move(info));
  }
  return out;
}

} // namespace megac
