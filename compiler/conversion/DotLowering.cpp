// tile.dot: operands in swizzled shared memory (stored from registers, or
// copied by cp.async where their loads stand, or prefetched a loop step ahead
// into a double buffer), fragments by ldmatrix, one mma.sync per block
// (docs/dialect.md, "Matrix products").
#include "KernelLowering.h"
#include "MmaBuilders.h"
#include "NVVMBuilders.h"

namespace megac::lowering {

// a [M, K] times b [K, N] plus acc on tensor cores. a and b are in shared
// memory in rows of 16-byte chunks swizzled by the row (chunk c of row r at
// c xor (r mod 8)), so the eight row addresses of one ldmatrix hit eight bank
// groups: copied operands (copiedOperand) in their own buffers, the others
// stored here into the scratch buffer (a at 0, b after it). b is kept [N][K]
// when its registers run along K (a transposed [N, K] tile) and read by
// ldmatrix, else [K][N] and read by ldmatrix.trans. Each warp then loads its
// fragments and issues one mma.sync m16n8k16 per block of its share of the
// result: in
// layout::dotLayout, warp (w0, w1) holds rows w0 * 8 + 8 W0 m' + (0..7) for
// every m' (an m16 block is m' = 2i and 2i + 1) and columns w1 * 8 + 8 W1 j
// + (0..7) (block j).
LogicalResult KernelLowering::lowerDot(DotOp op) {
  auto aType = op.getA().getType(), bType = op.getB().getType();
  auto a = distOf(op, aType), bd = distOf(op, bType), c = distOf(op, op.getAcc().getType());
  if (failed(a) || failed(bd) || failed(c))
    return failure();
  const int64_t M = aType.getDimSize(0), K = aType.getDimSize(1), N = bType.getDimSize(1);
  const layout::Blocked &cl = c->blocked;
  const int64_t W0 = cl.warpsPerCTA[0], W1 = cl.warpsPerCTA[1];
  const int64_t mBlocks = M / (16 * W0), nBlocks = N / (8 * W1);
  const bool f16 = aType.getElementType().isF16();
  const layout::SharedLayout aAt = dotOperandLayout(*a, true), bAt = dotOperandLayout(*bd, false);
  const bool bAlongK = bAt.order[0] == 0;

  // Operands in registers go to the scratch buffer (a at 0, b after it);
  // copied and pipelined ones are in their own buffers: wait for their
  // groups (all but `pending` of the latest may stay in flight).
  auto ptrType = LLVM::LLVMPointerType::get(ctx, kShared);
  int64_t pending = committedGroups;
  Value aBase = dotOperandBuffer(op.getA(), pending);
  Value bBase = dotOperandBuffer(op.getB(), pending);
  const bool aInRegisters = !aBase, bInRegisters = !bBase;
  const int64_t aBytes = aInRegisters ? (M * K * 2 + 127) / 128 * 128 : 0;
  Type elem = storageType(aType.getElementType());
  if (aInRegisters || bInRegisters) {
    Value scratch = sharedBase();
    if (aInRegisters)
      aBase = scratch;
    if (bInRegisters)
      bBase = LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), scratch, ValueRange{i32(aBytes)});
    smemBytes = std::max(smemBytes, aBytes + (bInRegisters ? K * N * 2 : 0));
    nvvm::barrier(b, loc); // earlier users of the scratch buffer are done
    if (aInRegisters)
      storeToShared(*a, elem, 2, aAt, aBase, [&](int64_t r) { return lookup(op.getA())[r]; });
    if (bInRegisters)
      storeToShared(*bd, elem, 2, bAt, bBase, [&](int64_t r) { return lookup(op.getB())[r]; });
  }
  if (!aInRegisters || !bInRegisters)
    mma::waitAsyncCopies(b, loc, unsigned(pending));
  nvvm::barrier(b, loc);

  // Byte addresses: per lane a fixed part, per block a constant row offset
  // and a chunk index xor-ed with the lane's phase.
  auto add = [&](Value x, Value y) -> Value { return arith::AddIOp::create(b, loc, x, y); };
  auto mul = [&](Value x, int64_t k) -> Value { return arith::MulIOp::create(b, loc, x, i32(k)); };
  auto xorC = [&](Value x, int64_t k) -> Value { return arith::XOrIOp::create(b, loc, x, i32(k)); };
  auto rem = [&](Value x, int64_t k) -> Value { return arith::RemUIOp::create(b, loc, x, i32(k)); };
  auto div = [&](Value x, int64_t k) -> Value { return arith::DivUIOp::create(b, loc, x, i32(k)); };
  Value row8 = rem(lane, 8), matrix = div(lane, 8);
  Value w0 = warpDigit(cl, 0), w1 = warpDigit(cl, 1);
  auto phaseOf = [&](int64_t cols) { return rem(row8, std::min<int64_t>(8, cols / 8)); };
  // One address: laneBytes + constBytes + ((laneChunk + constChunk) xor
  // phase) * 16, with the phase folded into laneChunk (< 8). Chunks past the
  // first 8 of a row add a constant (the xor only changes the low 3 bits),
  // so a lane needs at most 8 distinct address registers, not one per
  // fragment: the rest is an immediate offset of the ldmatrix.
  // Each of those registers is made once (the dot's loads are straight-line
  // code in one block, where the first dominates the rest): made again for
  // every fragment, they were 459 of the 5,291 arithmetic and address ops of
  // attn_split_verify's LLVM dialect, for O3's first EarlyCSE to remove after
  // the rewrite and translation had paid for them; the same PTX.
  llvm::DenseMap<std::tuple<Value, Value, Value, int64_t>, Value> lanePtrs;
  auto load = [&](Value base, Value laneBytes, int64_t constBytes, Value laneChunk,
                  int64_t constChunk, unsigned count, bool trans) {
    Value lanePtr = reuseOrMake(lanePtrs[{base, laneBytes, laneChunk, constChunk % 8}], [&] {
      Value four = i32(4); // (its own statement: argument order is the compiler's)
      Value chunk = arith::ShLIOp::create(b, loc, xorC(laneChunk, constChunk % 8), four);
      return Value(LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                                       ValueRange{add(laneBytes, chunk)}));
    });
    return mma::loadMatrices(b, loc, lanePtr, i32(constBytes + constChunk / 8 * 128), count,
                             trans);
  };

  // a: x4 per (m block i, k step s): matrix q covers rows + 8 (q & 1), k + 8 (q >> 1).
  // (One op a statement where two arguments would build ops: C++ leaves their
  // order open, and the IR must not depend on the compiler megac is built
  // with; this is g++'s order, the one the H200 measured.)
  Value aHigh = mul(rem(matrix, 2), 8 * W0);
  Value aRow = add(add(mul(w0, 8), row8), aHigh);
  Value aLane = mul(aRow, K * 2);
  Value aPhase = phaseOf(K);
  Value aChunk = arith::XOrIOp::create(b, loc, div(matrix, 2), aPhase);
  auto loadA = [&](int64_t i, int64_t s) {
    return load(aBase, aLane, i * 16 * W0 * K * 2, aChunk, 2 * s, 4, false);
  };
  // b: `steps` k steps (1 or 2) of n block j per ldmatrix (x2 or x4).
  const int64_t steps = K % 32 == 0 ? 2 : 1;
  Value bLane, bChunk;
  if (bAlongK) { // [N][K]: rows n, matrix q is k + 8 q
    Value bRow = add(mul(w1, 8), row8);
    bLane = mul(bRow, K * 2);
    Value bPhase = phaseOf(K);
    bChunk = arith::XOrIOp::create(b, loc, rem(matrix, 2 * steps), bPhase);
  } else { // [K][N]: rows k + 8 q, matrix columns are the block's 8
    bLane = mul(add(mul(rem(matrix, 2 * steps), 8), row8), N * 2);
    bChunk = arith::XOrIOp::create(b, loc, w1, phaseOf(N));
  }
  auto loadB = [&](int64_t j, int64_t s) {
    if (bAlongK)
      return load(bBase, bLane, j * 8 * W1 * K * 2, bChunk, 2 * s, 2 * steps, false);
    return load(bBase, bLane, s * 16 * N * 2, bChunk, j * W1, 2 * steps, true);
  };

  // The accumulator's register of (row block m', column block j, column
  // within 0/1), from the layout's register numbering.
  std::map<std::tuple<int64_t, int64_t, int64_t>, int64_t> regOf;
  for (int64_t r = 0; r < c->numRegs(); ++r) {
    layout::Index off = c->offset(r);
    regOf[{off[0] / (8 * W0), off[1] / (8 * W1), off[1] % (8 * W1)}] = r;
  }
  Regs acc = lookup(op.getAcc());
  // Per step of K: b's fragments (an x4 serves two steps), then per row
  // block a's fragment and its mma with every column block (few fragments
  // live at once).
  for (int64_t s = 0; s < K / 16; s += steps) {
    std::vector<SmallVector<Value>> bFrags;
    for (int64_t j = 0; j < nBlocks; ++j)
      bFrags.push_back(loadB(j, s));
    for (int64_t t = 0; t < steps; ++t)
      for (int64_t i = 0; i < mBlocks; ++i) {
        SmallVector<Value> aFrag = loadA(i, s + t);
        for (int64_t j = 0; j < nBlocks; ++j) {
          int64_t regs[4] = {regOf[{2 * i, j, 0}], regOf[{2 * i, j, 1}],
                             regOf[{2 * i + 1, j, 0}], regOf[{2 * i + 1, j, 1}]};
          SmallVector<Value> cIn;
          for (int64_t r : regs)
            cIn.push_back(acc[r]);
          auto d = mma::multiplyAccumulate(b, loc, aFrag, ValueRange(bFrags[j]).slice(2 * t, 2),
                                           cIn, f16);
          for (int k = 0; k < 4; ++k)
            acc[regs[k]] = d[k];
        }
      }
  }
  values[op] = acc;
  return success();
}

// Whether an op from `from` to `last` (of one block, `last` included) stores
// to global memory, itself or in its regions.
static bool writesGlobalMemory(Operation *from, Operation *last) {
  for (Operation *op = from; op; op = op->getNextNode()) {
    bool writes = false;
    op->walk([&](Operation *inner) { writes |= isa<StoreOp, AtomicRMWOp>(inner); });
    if (writes)
      return true;
    if (op == last)
      break;
  }
  return false;
}

std::string KernelLowering::addCopyBuffer(int64_t bytes) {
  std::string name = smemName + "_copy" + std::to_string(copyBuffers.size());
  copyBuffers.push_back({name, bytes});
  return name;
}

LoadOp KernelLowering::copiedOperand(Value operand) {
  Value loaded = operand;
  if (auto trans = operand.getDefiningOp<TransOp>()) {
    if (!trans->hasOneUse())
      return {};
    loaded = trans.getSrc();
  }
  auto load = loaded.getDefiningOp<LoadOp>();
  if (!load || !load->hasOneUse() || !isa<RankedTensorType>(load.getPtr().getType()))
    return {};
  // The load's block holds the dot, or the loop (or branch) around it: a
  // loop-invariant operand is copied once, before the loop.
  Operation *dot = *operand.getUsers().begin();
  Operation *holder = load->getBlock()->findAncestorOpInBlock(*dot);
  if (!holder)
    return {};
  // The dot reads the buffer later than the load would have read memory:
  // nothing may write global memory in between.
  if (writesGlobalMemory(load->getNextNode(), holder))
    return {};
  return copyable(load) ? load : LoadOp();
}

bool KernelLowering::copyable(LoadOp load) {
  auto type = dyn_cast<RankedTensorType>(load.getType());
  if (!type || storageBytes(type.getElementType()) != 2)
    return false;
  if (Value other = load.getOther()) { // masked lanes read +0.0: cp.async's zero fill
    if (auto splat = other.getDefiningOp<SplatOp>())
      other = splat.getSrc();
    auto c = other.getDefiningOp<arith::ConstantOp>();
    Attribute value = c ? c.getValue() : Attribute();
    if (auto dense = dyn_cast_or_null<SplatElementsAttr>(value))
      value = dense.getSplatValue<Attribute>();
    auto f = dyn_cast_or_null<FloatAttr>(value);
    if (!f || !f.getValue().isPosZero())
      return false;
  }
  AccessPlan plan = planAccess(axisInfo, load, load.getPtr(), load.getMask(), load.getType(), 2);
  return plan.width >= 2 && plan.maskUniform;
}

std::optional<std::pair<LoadOp, LoadOp>> KernelLowering::pipelinedLoads(DotOp dot,
                                                                        Value operand) {
  Value carried = operand;
  if (auto trans = operand.getDefiningOp<TransOp>()) {
    if (!trans->hasOneUse())
      return std::nullopt;
    carried = trans.getSrc();
  }
  auto arg = dyn_cast<BlockArgument>(carried);
  auto loop = arg ? dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()) : scf::ForOp();
  if (!loop || arg.getArgNumber() == 0 || !arg.hasOneUse() || dot->getBlock() != loop.getBody() ||
      !loop.getTiedLoopResult(arg).use_empty())
    return std::nullopt;
  auto first = loop.getTiedLoopInit(arg)->get().getDefiningOp<LoadOp>();
  auto next = loop.getTiedLoopYieldedValue(arg)->get().getDefiningOp<LoadOp>();
  if (!first || !next || !first->hasOneUse() || !next->hasOneUse() ||
      first->getBlock() != loop->getBlock() || next->getBlock() != loop.getBody() ||
      first.getType() != next.getType() || !copyable(first) || !copyable(next))
    return std::nullopt;
  // The copies read memory later than the loads would: nothing may write
  // global memory from the first load to the loop's end.
  if (writesGlobalMemory(first, loop))
    return std::nullopt;
  return std::make_pair(first, next);
}

void KernelLowering::findCopiedLoads() {
  func.walk([&](DotOp dot) {
    for (Value operand : {dot.getA(), dot.getB()})
      if (LoadOp load = copiedOperand(operand)) {
        auto type = cast<RankedTensorType>(load.getType());
        copies[load] = Copy{operand, operand == dot.getA(),
                            addCopyBuffer((type.getNumElements() * 2 + 15) / 16 * 16)};
        if (auto trans = operand.getDefiningOp<TransOp>())
          copiedTransposes.insert(trans);
      }
  });
  // Pipelines, once every plain copy is known. Commit groups are counted
  // per thread in program order. A pipelined tile's data is the group of the
  // previous iteration's copy (or of the copy before the loop): at its dot,
  // the groups committed after it (the rest of the previous iteration, then
  // this one up to the dot) may stay in flight. The copy before the loop is
  // followed by as many empty groups as the body commits after its own copy,
  // so that iteration 0 counts alike. That needs every group of the body
  // committed in the body's own block: else its tiles stay in registers.
  struct Candidate {
    DotOp dot;
    Value operand;
    LoadOp first, next;
  };
  SmallVector<Candidate> candidates;
  DenseSet<Operation *> nextLoads;
  func.walk([&](DotOp dot) {
    for (Value operand : {dot.getA(), dot.getB()})
      if (auto loads = pipelinedLoads(dot, operand)) {
        candidates.push_back({dot, operand, loads->first, loads->second});
        nextLoads.insert(loads->second);
      }
  });
  for (Candidate &c : candidates) {
    Block *body = c.dot->getBlock();
    SmallVector<Operation *> committing;
    bool nested = false;
    body->walk([&](Operation *op) {
      if (copies.count(op) || nextLoads.contains(op)) {
        nested |= op->getBlock() != body;
        committing.push_back(op);
      }
    });
    if (nested)
      continue;
    int64_t mine = 0, beforeDot = 0;
    for (size_t i = 0; i < committing.size(); ++i) {
      if (committing[i] == c.next)
        mine = int64_t(i);
      beforeDot += committing[i]->isBeforeInBlock(c.dot);
    }
    auto type = cast<RankedTensorType>(c.first.getType());
    int64_t half = (type.getNumElements() * 2 + 127) / 128 * 128;
    std::string name = addCopyBuffer(2 * half);
    pipelineOfLoad[c.first] = pipelineOfLoad[c.next] = pipelines.size();
    pipelineOfOperand[c.operand] = pipelines.size();
    int64_t pad = int64_t(committing.size()) - mine - 1;
    pipelines.push_back(Pipeline{c.operand, c.operand == c.dot.getA(), name, half, pad,
                                 pad + beforeDot});
    if (auto trans = c.operand.getDefiningOp<TransOp>())
      copiedTransposes.insert(trans);
  }
}

layout::SharedLayout KernelLowering::dotOperandLayout(const Dist &operand, bool isA) {
  // Rows of 16-byte chunks, chunk c of row r at c xor (r mod 8). a is kept
  // [M][K]; b [N][K] when its registers run along K, else [K][N].
  bool alongK = isA || (operand.sliceDim < 0 && operand.blocked.order[0] == 0);
  return layout::SharedLayout::swizzled(
      8, 1, 8, isA || !alongK ? std::vector<unsigned>{1, 0} : std::vector<unsigned>{0, 1});
}

LogicalResult KernelLowering::issueCopy(LoadOp load, Value operand, bool isA, Value at) {
  auto dist = distOf(load, cast<RankedTensorType>(operand.getType()));
  if (failed(dist))
    return failure();
  nvvm::barrier(b, loc); // earlier readers of the buffer (or of this half) are done
  copyToShared(load, *dist, dotOperandLayout(*dist, isA), at);
  mma::commitAsyncCopies(b, loc);
  ++committedGroups;
  return success();
}

LogicalResult KernelLowering::lowerCopiedLoad(LoadOp load) {
  Copy &copy = copies[load];
  Value buffer = LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, kShared),
                                           copy.buffer);
  copy.group = committedGroups;
  return issueCopy(load, copy.operand, copy.isA, buffer);
}

LogicalResult KernelLowering::lowerPipelinedLoad(LoadOp load) {
  Pipeline &p = pipelines[pipelineOfLoad[load]];
  Value half = i32(0);
  auto loop = dyn_cast<scf::ForOp>(load->getParentOp());
  bool inLoop = loop && loop.getBody() == p.operand.getParentBlock();
  if (inLoop) { // the half the carried tile is not in
    Operation *yield = loop.getBody()->getTerminator();
    for (OpOperand &y : yield->getOpOperands())
      if (y.get() == load.getResult())
        half = arith::SubIOp::create(
            b, loc, i32(1), lookup(loop.getRegionIterArgs()[y.getOperandNumber()])[0]);
  }
  Value buffer = LLVM::AddressOfOp::create(b, loc, LLVM::LLVMPointerType::get(ctx, kShared),
                                           p.buffer);
  Value at = LLVM::GEPOp::create(b, loc, buffer.getType(), b.getI8Type(), buffer,
                                 ValueRange{arith::MulIOp::create(b, loc, half, i32(p.half))});
  if (failed(issueCopy(load, p.operand, p.isA, at)))
    return failure();
  if (!inLoop)
    for (int64_t k = 0; k < p.padGroups; ++k, ++committedGroups)
      mma::commitAsyncCopies(b, loc);
  values[load] = Regs{half};
  return success();
}

Value KernelLowering::dotOperandBuffer(Value operand, int64_t &pending) {
  auto ptrType = LLVM::LLVMPointerType::get(ctx, kShared);
  Operation *def = operand.getDefiningOp();
  Operation *loaded = def && copiedTransposes.contains(def) ? def->getOperand(0).getDefiningOp() : def;
  if (auto it = loaded ? copies.find(loaded) : copies.end(); it != copies.end()) {
    pending = std::min(pending, committedGroups - 1 - it->second.group);
    return LLVM::AddressOfOp::create(b, loc, ptrType, it->second.buffer);
  }
  auto it = pipelineOfOperand.find(operand);
  if (it == pipelineOfOperand.end())
    return Value();
  Pipeline &p = pipelines[it->second];
  pending = std::min(pending, p.pendingAtDot);
  Value carried = def && copiedTransposes.contains(def) ? def->getOperand(0) : operand;
  Value buffer = LLVM::AddressOfOp::create(b, loc, ptrType, p.buffer);
  return LLVM::GEPOp::create(b, loc, ptrType, b.getI8Type(), buffer,
                             ValueRange{arith::MulIOp::create(b, loc, lookup(carried)[0],
                                                              i32(p.half))});
}

void KernelLowering::copyToShared(LoadOp load, const Dist &dist, const layout::SharedLayout &at,
                                  Value base) {
  AccessPlan plan = planAccess(axisInfo, load, load.getPtr(), load.getMask(), load.getType(), 2);
  int64_t width = std::min<int64_t>(
      {plan.width, 8,
       layout::sharedAccessWidth(layout::TileLayout{dist.blocked, dist.sliceDim}, dist.shape, at, 2)});
  // Registers whose rows differ by whole swizzle periods (perPhase * phases
  // rows) and columns by whole xor ranges (vec * phases) sit a constant
  // apart: one address register per class, the rest an immediate (LLVM
  // would hoist every address out of a loop, each a live register).
  SmallVector<Value> base0 = threadBase(dist.blocked);
  const bool split = dist.sliceDim < 0 && dist.shape.size() == 2 &&
                     at.kind == layout::SharedLayout::Kind::Swizzled &&
                     dist.blocked.ctaTile(0) <= dist.shape[0] &&
                     dist.blocked.ctaTile(1) <= dist.shape[1];
  const unsigned colDim = at.order[0], rowDim = split ? at.order[1] : 0;
  const int64_t phases = at.phaseCount(dist.shape);
  const int64_t rowPeriod = at.perPhase * phases, colPeriod = at.vec * phases;
  std::map<std::pair<int64_t, int64_t>, Value> classes;
  auto idx = split ? SmallVector<SmallVector<Value>>() : elementIndices(dist);
  for (int64_t r = 0; r < dist.numRegs(); r += width) {
    Value laneOffset;
    int64_t constant = 0;
    if (split) {
      layout::Index off = dist.offset(r);
      int64_t rowLo = off[rowDim] % rowPeriod, colLo = off[colDim] % colPeriod;
      constant = (off[rowDim] - rowLo) * dist.shape[colDim] + off[colDim] - colLo;
      Value &v = classes[{rowLo, colLo}];
      if (!v) {
        SmallVector<Value> at2(2);
        at2[rowDim] = arith::AddIOp::create(b, loc, base0[rowDim], i32(rowLo));
        at2[colDim] = arith::AddIOp::create(b, loc, base0[colDim], i32(colLo));
        v = sharedOffset(at, dist.shape, at2);
      }
      laneOffset = v;
    } else {
      laneOffset = sharedOffset(at, dist.shape, idx[r]);
    }
    Value constantOffset = i32(constant);
    Value at2 = sharedSlot(sharedSlot(base, b.getI16Type(), laneOffset), b.getI16Type(),
                           constantOffset);
    mma::asyncCopy(b, loc, at2, reg(load.getPtr(), r),
                   load.getMask() ? reg(load.getMask(), r) : Value(), unsigned(width * 2));
  }
}

} // namespace megac::lowering
