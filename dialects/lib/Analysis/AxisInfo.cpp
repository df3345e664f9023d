#include "Tile/Analysis/AxisInfo.h"
#include "Tile/IR/TileDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include <numeric>

using namespace mlir;
using namespace mlir::tile;

namespace {

// Stands for "divisible by anything" (the value zero, or an unbounded run).
constexpr int64_t kHuge = int64_t(1) << 30;

int64_t pow2Factor(int64_t v) {
  if (v == 0)
    return kHuge;
  return std::min<int64_t>(kHuge, v & -v);
}

int64_t gcd(int64_t a, int64_t b) { return std::gcd(a, b); }

AxisInfo unknown(Type type) {
  AxisInfo info;
  size_t rank = getShapeOrEmpty(type).size();
  info.contiguity.assign(rank, 1);
  info.divisibility.assign(rank, 1);
  info.constancy.assign(rank, 1);
  info.scalarDivisibility = 1;
  return info;
}

// Every dimension divisible as the scalar; a uniform tile.
AxisInfo uniform(Type type, int64_t divisibility) {
  AxisInfo info = unknown(type);
  auto shape = getShapeOrEmpty(type);
  for (size_t d = 0; d < shape.size(); ++d) {
    info.divisibility[d] = divisibility;
    info.constancy[d] = shape[d];
  }
  info.scalarDivisibility = divisibility;
  return info;
}

// The divisibility shared by every element of a tile.
int64_t allElementsDivisibility(const AxisInfo &info) {
  if (info.divisibility.empty())
    return info.scalarDivisibility;
  int64_t div = kHuge;
  for (size_t d = 0; d < info.divisibility.size(); ++d)
    div = gcd(div, info.contiguity[d] > 1 ? 1 : info.divisibility[d]);
  return div;
}

std::optional<int64_t> constantInt(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantOp>()) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getInt();
    if (auto s = dyn_cast<SplatElementsAttr>(c.getValue()))
      if (isa<IntegerType>(s.getElementType()))
        return s.getSplatValue<APInt>().getSExtValue();
  }
  if (auto s = v.getDefiningOp<SplatOp>())
    return constantInt(s.getSrc());
  return std::nullopt;
}

int64_t elementBytes(Type pointee) {
  if (isa<Float4E2M1FNType>(pointee))
    return 1;
  return std::max<int64_t>(1, pointee.getIntOrFloatBitWidth() / 8);
}

} // namespace

const AxisInfo &AxisInfoAnalysis::get(Value value) {
  auto it = cache.find(value);
  if (it != cache.end())
    return it->second;
  AxisInfo info = compute(value);
  return cache[value] = std::move(info);
}

// A scalar carried around a loop is a multiple of what both its initial
// value and the value each iteration yields are multiples of. The yielded
// value may depend on the scalar itself: assume the initial value's
// divisibility, compute the yield's, and lower the assumption until it holds
// (what was computed under a refuted assumption is forgotten).
AxisInfo AxisInfoAnalysis::carriedScalar(scf::ForOp loop, BlockArgument arg) {
  Value yielded = loop.getTiedLoopYieldedValue(arg)->get();
  int64_t assumed = get(loop.getTiedLoopInit(arg)->get()).scalarDivisibility;
  for (;;) {
    cache[arg] = uniform(arg.getType(), assumed);
    llvm::DenseSet<Value> known;
    for (auto &entry : cache)
      known.insert(entry.first);
    int64_t held = gcd(assumed, get(yielded).scalarDivisibility);
    if (held == assumed || assumed == 1)
      return uniform(arg.getType(), held);
    SmallVector<Value> stale;
    for (auto &entry : cache)
      if (!known.contains(entry.first))
        stale.push_back(entry.first);
    for (Value v : stale)
      cache.erase(v);
    assumed = held;
  }
}

AxisInfo AxisInfoAnalysis::compute(Value value) {
  Type type = value.getType();
  auto shape = getShapeOrEmpty(type);
  size_t rank = shape.size();

  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (auto func = dyn_cast<func::FuncOp>(owner)) {
      if (auto a = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                      attr::kDivisibility))
        return uniform(type, a.getInt());
      if (auto a = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                      attr::kAlignment))
        return uniform(type, a.getInt());
      return uniform(type, 1);
    }
    if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      if (arg == loop.getInductionVar())
        return uniform(type, gcd(get(loop.getLowerBound()).scalarDivisibility,
                                 get(loop.getStep()).scalarDivisibility));
      if (rank == 0)
        return carriedScalar(loop, arg);
    }
    return unknown(type);
  }

  Operation *op = value.getDefiningOp();
  if (auto c = constantInt(value))
    return uniform(type, pow2Factor(*c));
  if (isa<ProgramIdOp, NumProgramsOp>(op))
    return uniform(type, 1);
  if (auto range = dyn_cast<ArangeOp>(op)) {
    AxisInfo info = unknown(type);
    info.contiguity[0] = shape[0];
    info.divisibility[0] = pow2Factor(range.getStart());
    return info;
  }
  if (auto splat = dyn_cast<SplatOp>(op)) {
    const AxisInfo &src = get(splat.getSrc());
    return uniform(type, src.scalarDivisibility);
  }
  if (auto conv = dyn_cast<ConvertLayoutOp>(op))
    return get(conv.getSrc());
  if (auto cast = dyn_cast<PtrCastOp>(op)) // the address, in bytes, is kept
    return get(cast.getSrc());
  if (auto trans = dyn_cast<TransOp>(op)) {
    AxisInfo info = get(trans.getSrc());
    std::swap(info.contiguity[0], info.contiguity[1]);
    std::swap(info.divisibility[0], info.divisibility[1]);
    std::swap(info.constancy[0], info.constancy[1]);
    return info;
  }
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(
          op))
    return get(op->getOperand(0));
  if (auto bc = dyn_cast<BroadcastOp>(op)) {
    AxisInfo info = get(bc.getSrc());
    auto srcShape = bc.getSrc().getType().getShape();
    for (size_t d = 0; d < rank; ++d)
      if (srcShape[d] == 1 && shape[d] != 1) {
        info.contiguity[d] = 1;
        info.constancy[d] = shape[d];
      }
    return info;
  }
  if (auto ex = dyn_cast<ExpandDimsOp>(op)) {
    const AxisInfo &src = get(ex.getSrc());
    AxisInfo info = src;
    unsigned axis = ex.getAxis();
    info.contiguity.insert(info.contiguity.begin() + axis, 1);
    info.divisibility.insert(info.divisibility.begin() + axis,
                             allElementsDivisibility(src));
    info.constancy.insert(info.constancy.begin() + axis, 1);
    return info;
  }

  auto binary = [&](auto combine) {
    const AxisInfo a = get(op->getOperand(0)), b = get(op->getOperand(1));
    AxisInfo info = unknown(type);
    combine(a, b, info);
    return info;
  };

  if (isa<arith::AddIOp, AddPtrOp>(op)) {
    int64_t scale = 1;
    if (auto add = dyn_cast<AddPtrOp>(op))
      scale = elementBytes(
          cast<PtrType>(getElementTypeOrSelf(add.getPtr().getType()))
              .getPointeeType());
    return binary([&](const AxisInfo &a, const AxisInfo &b, AxisInfo &out) {
      out.scalarDivisibility =
          gcd(a.scalarDivisibility, b.scalarDivisibility * scale);
      for (size_t d = 0; d < rank; ++d) {
        out.contiguity[d] = std::max(gcd(a.contiguity[d], b.constancy[d]),
                                     gcd(b.contiguity[d], a.constancy[d]));
        out.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d] * scale);
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
      }
    });
  }
  if (isa<arith::SubIOp>(op))
    return binary([&](const AxisInfo &a, const AxisInfo &b, AxisInfo &out) {
      out.scalarDivisibility = gcd(a.scalarDivisibility, b.scalarDivisibility);
      for (size_t d = 0; d < rank; ++d) {
        out.contiguity[d] = gcd(a.contiguity[d], b.constancy[d]);
        out.divisibility[d] = gcd(a.divisibility[d], b.divisibility[d]);
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
      }
    });
  if (isa<arith::MulIOp>(op))
    return binary([&](const AxisInfo &a, const AxisInfo &b, AxisInfo &out) {
      out.scalarDivisibility =
          std::min(kHuge, a.scalarDivisibility * b.scalarDivisibility);
      for (size_t d = 0; d < rank; ++d) {
        out.divisibility[d] =
            std::min(kHuge, a.divisibility[d] * b.divisibility[d]);
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
      }
    });
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(
          op)) {
    const AxisInfo a = get(op->getOperand(0)), bInfo = get(op->getOperand(1));
    AxisInfo info = unknown(type);
    bool isDiv = isa<arith::DivSIOp, arith::DivUIOp>(op);
    bool uniform = true;
    for (size_t d = 0; d < rank; ++d)
      uniform &= bInfo.constancy[d] == shape[d];
    if (!uniform)
      return info;
    // The divisor is one value, a multiple of `db`. A contiguous run of `g`
    // values starting at a multiple of `g`, with g dividing db, never
    // crosses a multiple of the divisor: the quotient is constant on it and
    // the remainder contiguous.
    auto c = constantInt(op->getOperand(1));
    int64_t db = c && *c > 0 ? *c : bInfo.scalarDivisibility;
    for (size_t d = 0; d < rank; ++d) {
      int64_t g = gcd(gcd(a.contiguity[d], a.divisibility[d]), db);
      if (c && *c > 0 && a.divisibility[d] % *c == 0)
        g = std::max(g, gcd(a.contiguity[d], *c));
      if (isDiv) {
        info.constancy[d] = std::max(a.constancy[d], g);
        info.divisibility[d] =
            c && *c > 0 && a.divisibility[d] % *c == 0 ? a.divisibility[d] / *c : 1;
      } else {
        info.contiguity[d] = g;
        info.divisibility[d] = gcd(a.divisibility[d], db);
        info.constancy[d] = a.constancy[d];
      }
    }
    if (isDiv && c && *c > 0 && a.scalarDivisibility % *c == 0)
      info.scalarDivisibility = a.scalarDivisibility / *c;
    return info;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    // An aligned run of g consecutive integers [k g, k g + g) against a
    // uniform bound B that g divides: x < B (and x >= B) is the same for the
    // whole run. Not so for x <= B, x > B (the first element may equal B) or
    // x == B, x != B: those keep the operands' own constancy.
    using P = arith::CmpIPredicate;
    P p = cmp.getPredicate();
    bool runLeft = p == P::slt || p == P::ult || p == P::sge || p == P::uge;
    bool runRight = p == P::sgt || p == P::ugt || p == P::sle || p == P::ule;
    return binary([&](const AxisInfo &a, const AxisInfo &b, AxisInfo &out) {
      for (size_t d = 0; d < rank; ++d) {
        int64_t c = gcd(a.constancy[d], b.constancy[d]);
        if (runLeft && b.constancy[d] == shape[d])
          c = std::max(c, gcd(gcd(a.contiguity[d], a.divisibility[d]),
                              b.divisibility[d]));
        if (runRight && a.constancy[d] == shape[d])
          c = std::max(c, gcd(gcd(b.contiguity[d], b.divisibility[d]),
                              a.divisibility[d]));
        out.constancy[d] = c;
      }
    });
  }
  if (isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
    return binary([&](const AxisInfo &a, const AxisInfo &b, AxisInfo &out) {
      for (size_t d = 0; d < rank; ++d)
        out.constancy[d] = gcd(a.constancy[d], b.constancy[d]);
    });
  return unknown(type);
}

int64_t AxisInfoAnalysis::vectorWidth(Value ptr, Value mask, unsigned dim,
                                      int64_t perThread, int64_t elemBytes) {
  const AxisInfo &info = get(ptr);
  if (info.contiguity.empty())
    return 1;
  int64_t width = std::min<int64_t>(perThread, info.contiguity[dim]);
  width = std::min<int64_t>(width, std::max<int64_t>(1, 16 / elemBytes));
  while (width > 1 && info.divisibility[dim] % (width * elemBytes) != 0)
    width /= 2;
  if (mask) {
    int64_t c = get(mask).constancy[dim];
    while (width > 1 && c % width != 0)
      width /= 2;
  }
  while (width & (width - 1)) // keep a power of two
    width &= width - 1;
  return std::max<int64_t>(1, width);
}

int64_t AxisInfoAnalysis::exactPowerOfTwoDivisor(Operation *div) {
  if (!isa<arith::DivSIOp, arith::DivUIOp>(div))
    return 0;
  std::optional<int64_t> c = constantInt(div->getOperand(1));
  if (!c || *c < 2 || (*c & (*c - 1)))
    return 0;
  return allElementsDivisibility(get(div->getOperand(0))) % *c == 0 ? *c : 0;
}
