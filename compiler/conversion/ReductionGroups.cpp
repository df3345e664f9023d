// @fused_reductions: the sums (maxima, minima) of a block that combine
// across the same lanes, in the same order, share one reduce-scatter
// butterfly (Tile/Layout/ReduceScatter.h) instead of a butterfly each: five
// 32-lane sums take 13 shuffles instead of 25. Each result is bit for bit the
// one its own butterfly gives. docs/dialect.md, Reductions.
#include "KernelLowering.h"
#include "NVVMBuilders.h"
#include "TileToLLVM.h"

#include "Tile/Layout/ReduceScatter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <set>

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

std::optional<GroupKey> groupKeyOf(ReduceOp op) {
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
  return GroupKey{kind.str(), elem, std::move(masks)};
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

// The partials a thread holds of a reduction: one per distinct offset of
// its registers off the axis (reduceWithinThread's groups).
int64_t numThreadPartials(const Dist &src, unsigned axis) {
  std::set<layout::Index> offsets;
  for (int64_t r = 0; r < src.numRegs(); ++r) {
    layout::Index off = src.offset(r);
    off[axis] = 0;
    offsets.insert(off);
  }
  return int64_t(offsets.size());
}

} // namespace

std::vector<SmallVector<ReduceOp>> groupReductions(func::FuncOp func, bool moveOperands) {
  std::vector<SmallVector<ReduceOp>> groups;
  SmallVector<Block *> blocks;
  func.walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks) {
    // The open group of each key (an index into `groups`): a later reduction
    // joins it when its operand can be computed above the group's first.
    std::vector<std::pair<GroupKey, size_t>> open;
    for (Operation &o : llvm::make_early_inc_range(*block)) {
      auto op = dyn_cast<ReduceOp>(&o);
      if (!op || followsItsArgReduction(op))
        continue;
      std::optional<GroupKey> key = groupKeyOf(op);
      if (!key)
        continue;
      auto it = llvm::find_if(open, [&](auto &g) { return g.first == *key; });
      SmallVector<Operation *> slice;
      if (it != open.end() && operandSliceAfter(groups[it->second].front(), op.getSrc(), slice)) {
        if (moveOperands) {
          llvm::sort(slice, [](Operation *x, Operation *y) { return x->isBeforeInBlock(y); });
          for (Operation *s : slice)
            s->moveBefore(groups[it->second].front());
        }
        groups[it->second].push_back(op);
        continue;
      }
      if (it != open.end())
        open.erase(it);
      open.emplace_back(*key, groups.size());
      groups.push_back({op});
    }
  }
  return groups;
}

void KernelLowering::findReductionGroups() {
  if (!func->hasAttr(tile::attr::kFusedReductions))
    return;
  for (SmallVector<ReduceOp> &group : groupReductions(func, /*moveOperands=*/true)) {
    Operation *first = group.front();
    reductionGroups[first] = std::move(group);
  }
}

LogicalResult KernelLowering::lowerReductionGroup(ArrayRef<ReduceOp> group) {
  struct Member {
    ReduceOp op;
    Dist src;
    unsigned axis;
    ThreadReduction t;
  };
  std::vector<Member> members;
  for (ReduceOp op : group) {
    loc = op.getLoc();
    auto src = distOf(op, op.getSrc().getType());
    if (failed(src))
      return failure();
    unsigned axis = src->parentDim(op.getAxis());
    ThreadReduction t = reduceWithinThread(op, *src, axis);
    members.push_back({op, *src, axis, std::move(t)});
  }
  ReduceOp first = group.front();
  loc = first.getLoc();
  StringRef kind = first.getKind();
  std::vector<unsigned> masks =
      members.front().src.blocked.laneXorMasks(members.front().src.parentShape,
                                               members.front().axis);
  SmallVector<Value> slots;
  for (Member &m : members)
    for (ReducePartial &p : m.t.partials)
      slots.push_back(p.value);
  layout::ReduceScatterPlan plan = layout::planReduceScatter(int(slots.size()), masks);

  SmallVector<Value> results;
  if (!plan.worthIt()) {
    // Little or nothing to gain (a single partial, few lanes, many partials
    // over few masks): plain butterflies.
    for (unsigned mask : masks)
      for (Value &v : slots)
        v = combine(kind, v, nvvm::shuffleXor(b, loc, v, mask));
    results = slots;
  } else {
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
    Value others = arith::AndIOp::create(b, loc, lane, i32(~plan.scatterBits & 31u));
    for (size_t j = 0; j < plan.slotOf.size(); ++j) {
      Value from = arith::OrIOp::create(b, loc, others, i32(plan.codeOf[j]));
      results.push_back(nvvm::shuffleIdx(b, loc, slots[plan.slotOf[j]], from));
    }
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
  using namespace lowering;
  std::vector<ReductionGroupInfo> out;
  if (!func->hasAttr(tile::attr::kFusedReductions))
    return out;
  for (SmallVector<ReduceOp> &group : groupReductions(func, /*moveOperands=*/false)) {
    ReductionGroupInfo info;
    info.kind = group.front().getKind().str();
    std::vector<unsigned> masks;
    for (ReduceOp op : group) {
      auto src = distOf(op, op.getSrc().getType());
      if (failed(src))
        return {};
      unsigned axis = src->parentDim(op.getAxis());
      masks = src->blocked.laneXorMasks(src->parentShape, axis);
      info.partials += numThreadPartials(*src, axis);
      info.members.push_back(op);
    }
    if (info.members.size() < 2 && info.partials < 2)
      continue; // one value a thread: the plain butterfly, nothing to tell
    layout::ReduceScatterPlan plan = layout::planReduceScatter(int(info.partials), masks);
    info.fused = plan.worthIt();
    info.shuffles = plan.numShuffles();
    info.selects = plan.numSelects();
    info.plainShuffles = plan.numPlainShuffles();
    out.push_back(std::move(info));
  }
  return out;
}

} // namespace megac
