#include "Tile/Layout/SharedLayout.h"

#include <algorithm>
#include <map>
#include <sstream>

namespace megac::layout {
namespace {

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int64_t product(const Shape &shape) {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

// The element linearized along `order`: (row, col), col along order[0].
std::pair<int64_t, int64_t> rowCol(const std::vector<unsigned> &order, const Shape &shape,
                                   const Index &index) {
  int64_t row = 0;
  for (size_t k = order.size(); k-- > 1;)
    row = row * shape[order[k]] + index[order[k]];
  return {row, index[order[0]]};
}

// The order of a layout's dimensions as the tile sees them (a slice drops
// the parent's sliced dimension).
std::vector<unsigned> tileOrder(const TileLayout &l) {
  std::vector<unsigned> order;
  for (unsigned d : l.blocked.order) {
    if (int(d) == l.sliceDim)
      continue;
    order.push_back(l.sliceDim >= 0 && int(d) > l.sliceDim ? d - 1 : d);
  }
  return order;
}

// The accesses of one side, as the element each lane's access starts at:
// instructions[i][lane]. `warps` limits the warps looked at (the search
// samples; the final count looks at all).
struct Accesses {
  unsigned width = 1;
  std::vector<std::vector<Index>> instructions;
};

Accesses collectAccesses(const TileLayout &l, const Shape &shape,
                         const std::vector<unsigned> &warps, unsigned width, int64_t maxPerWarp) {
  Accesses a;
  a.width = width;
  int64_t groups = l.numRegisters(shape) / width;
  for (unsigned warp : warps)
    for (int64_t g = 0; g < std::min(groups, maxPerWarp); ++g) {
      std::vector<Index> lanes;
      for (unsigned lane = 0; lane < 32; ++lane)
        lanes.push_back(l.elementOf(shape, lane, warp, g * width));
      a.instructions.push_back(std::move(lanes));
    }
  return a;
}

BankConflicts countConflicts(const Accesses &a, const Shape &shape, const SharedLayout &s,
                             unsigned elemBytes) {
  BankConflicts c;
  int64_t bytes = int64_t(a.width) * elemBytes;
  unsigned lanesPerPhase = bytes <= 4 ? 32 : unsigned(128 / bytes);
  std::vector<std::pair<int64_t, int64_t>> bankWords; // (bank, word)
  for (const auto &lanes : a.instructions) {
    ++c.instructions;
    for (unsigned first = 0; first < 32; first += lanesPerPhase) {
      bankWords.clear();
      for (unsigned lane = first; lane < first + lanesPerPhase; ++lane) {
        int64_t start = s.offsetOf(shape, lanes[lane]) * elemBytes;
        for (int64_t w = start / 4; w <= (start + bytes - 1) / 4; ++w)
          bankWords.push_back({w % 32, w});
      }
      std::sort(bankWords.begin(), bankWords.end());
      bankWords.erase(std::unique(bankWords.begin(), bankWords.end()), bankWords.end());
      int64_t worst = 0;
      for (size_t i = 0, j; i < bankWords.size(); i = j) {
        for (j = i; j < bankWords.size() && bankWords[j].first == bankWords[i].first;)
          ++j;
        worst = std::max<int64_t>(worst, int64_t(j - i));
      }
      c.ways = std::max(c.ways, worst);
      c.wavefronts += worst;
    }
  }
  return c;
}

std::vector<unsigned> allWarps(unsigned numWarps) {
  std::vector<unsigned> w(numWarps);
  for (unsigned i = 0; i < numWarps; ++i)
    w[i] = i;
  return w;
}

} // namespace

SharedLayout SharedLayout::swizzled(unsigned vec, unsigned perPhase, unsigned maxPhase,
                                    std::vector<unsigned> order) {
  SharedLayout s;
  s.vec = vec;
  s.perPhase = perPhase;
  s.maxPhase = maxPhase;
  s.order = std::move(order);
  return s;
}

SharedLayout SharedLayout::padded(unsigned interval, unsigned padding,
                                  std::vector<unsigned> order) {
  SharedLayout s;
  s.kind = Kind::Padded;
  s.interval = interval;
  s.padding = padding;
  s.order = std::move(order);
  return s;
}

SharedLayout SharedLayout::rowMajor(unsigned rank) {
  std::vector<unsigned> order;
  for (unsigned k = 0; k < rank; ++k)
    order.push_back(rank - 1 - k);
  return swizzled(1, 1, 1, order);
}

int64_t SharedLayout::offsetOf(const Shape &shape, const Index &index) const {
  auto [row, col] = rowCol(order, shape, index);
  int64_t cols = shape[order[0]];
  if (kind == Kind::Padded) {
    int64_t linear = row * cols + col;
    return linear + linear / interval * padding;
  }
  int64_t phase = (row / perPhase) % phaseCount(shape);
  return row * cols + ((col / vec) ^ phase) * vec + col % vec;
}

// A phase may not flip column bits the row does not have.
int64_t SharedLayout::phaseCount(const Shape &shape) const {
  if (kind == Kind::Padded)
    return 1;
  int64_t cols = shape[order[0]];
  return std::max<int64_t>(1, std::min<int64_t>(maxPhase, cols / vec));
}

int64_t SharedLayout::allocationElems(const Shape &shape) const {
  int64_t n = product(shape);
  if (kind == Kind::Padded)
    return n + (n - 1) / interval * padding;
  return n;
}

int64_t SharedLayout::contiguousElems(const Shape &shape) const {
  int64_t cols = shape[order[0]];
  if (kind == Kind::Padded) {
    int64_t padAlign = padding == 0 ? interval : (padding & -padding);
    return std::min<int64_t>({interval, padAlign, cols});
  }
  return phaseCount(shape) == 1 ? cols : std::min<int64_t>(vec, cols);
}

std::string SharedLayout::validate() const {
  if (order.empty())
    return "order must not be empty";
  std::vector<unsigned> sorted(order);
  std::sort(sorted.begin(), sorted.end());
  for (unsigned d = 0; d < sorted.size(); ++d)
    if (sorted[d] != d)
      return "order must be a permutation of the dimensions";
  if (kind == Kind::Padded) {
    if (!isPow2(interval))
      return "interval must be a power of two";
    if (padding == 0)
      return "padding must be at least 1";
    return "";
  }
  if (!isPow2(vec) || !isPow2(perPhase) || !isPow2(maxPhase))
    return "vec, perPhase and maxPhase must be powers of two";
  return "";
}

std::string SharedLayout::str() const {
  std::ostringstream os;
  if (kind == Kind::Padded)
    os << "#tile.padded_shared<interval = " << interval << ", padding = " << padding;
  else
    os << "#tile.swizzled_shared<vec = " << vec << ", perPhase = " << perPhase
       << ", maxPhase = " << maxPhase;
  os << ", order = [";
  for (size_t i = 0; i < order.size(); ++i)
    os << (i ? ", " : "") << order[i];
  os << "]>";
  return os.str();
}

bool SharedLayout::operator==(const SharedLayout &o) const { return str() == o.str(); }

unsigned sharedAccessWidth(const TileLayout &layout, const Shape &shape, const SharedLayout &shared,
                           unsigned elemBytes) {
  // Consecutive registers are consecutive elements only along the fastest
  // dimension of a blocked layout (a slice's registers skip).
  const Blocked &l = layout.blocked;
  unsigned fast = shared.order[0];
  if (layout.sliceDim >= 0 || l.order[0] != fast)
    return 1;
  int64_t w = std::min<int64_t>(l.sizePerThread[fast], shape[fast]);
  w = std::min<int64_t>(w, std::max(1u, 16 / elemBytes));
  w = std::min(w, shared.contiguousElems(shape));
  return unsigned(std::max<int64_t>(1, w));
}

BankConflicts bankConflicts(const TileLayout &layout, const Shape &shape, unsigned numWarps,
                            const SharedLayout &shared, unsigned elemBytes) {
  unsigned width = sharedAccessWidth(layout, shape, shared, elemBytes);
  Accesses a =
      collectAccesses(layout, shape, allWarps(numWarps), width, layout.numRegisters(shape));
  return countConflicts(a, shape, shared, elemBytes);
}

ConversionKind classifyConversion(const TileLayout &src, const TileLayout &dst, const Shape &shape,
                                  unsigned numWarps) {
  if (equivalent(src, dst, shape, numWarps))
    return ConversionKind::NoOp;
  // Shuffles need no shared memory and no barrier, unless they take more
  // instructions than the shared-memory path has accesses.
  if (auto plan = planWarpShuffles(src, dst, shape, numWarps))
    if (plan->numShuffles <= src.numRegisters(shape) + dst.numRegisters(shape))
      return ConversionKind::WarpShuffles;
  return ConversionKind::SharedMemory;
}

SharedPlan planSharedConversion(const TileLayout &src, const TileLayout &dst, const Shape &shape,
                                unsigned numWarps, const SharedLayout &shared, unsigned elemBytes) {
  return {shared, bankConflicts(src, shape, numWarps, shared, elemBytes),
          bankConflicts(dst, shape, numWarps, shared, elemBytes)};
}

namespace {

// Candidate layouts, simplest first: row-major along each order, then XOR
// swizzles (vectors as wide as either side can access), then paddings
// (least padding, then fewest pads, first).
std::vector<SharedLayout> candidates(const TileLayout &src, const TileLayout &dst,
                                     const Shape &shape, unsigned elemBytes) {
  std::vector<std::vector<unsigned>> orders;
  for (auto order : {SharedLayout::rowMajor(shape.size()).order, tileOrder(src), tileOrder(dst)})
    if (std::find(orders.begin(), orders.end(), order) == orders.end())
      orders.push_back(order);
  int64_t count = product(shape);
  std::vector<SharedLayout> out;
  for (auto &order : orders)
    out.push_back(SharedLayout::swizzled(1, 1, 1, order));
  for (auto &order : orders) {
    int64_t cols = shape[order[0]], rows = count / cols;
    SharedLayout plain = SharedLayout::swizzled(1, 1, 1, order);
    std::vector<unsigned> vecs = {1};
    for (const TileLayout *side : {&src, &dst}) {
      unsigned w = sharedAccessWidth(*side, shape, plain, elemBytes);
      if (std::find(vecs.begin(), vecs.end(), w) == vecs.end())
        vecs.push_back(w);
    }
    for (unsigned vec : vecs)
      for (int64_t perPhase = 1; perPhase <= std::min<int64_t>(rows, 32); perPhase *= 2)
        for (int64_t maxPhase = 2; maxPhase <= std::min<int64_t>(cols / vec, 32); maxPhase *= 2)
          out.push_back(SharedLayout::swizzled(vec, unsigned(perPhase), unsigned(maxPhase), order));
  }
  for (unsigned pad = 1; pad <= std::max(1u, 16 / elemBytes); pad *= 2)
    for (auto &order : orders)
      for (int64_t interval = std::min<int64_t>(count / 2, 4096); interval >= 4; interval /= 2)
        out.push_back(SharedLayout::padded(unsigned(interval), pad, order));
  return out;
}

} // namespace

SharedPlan chooseSharedLayout(const TileLayout &src, const TileLayout &dst, const Shape &shape,
                              unsigned numWarps, unsigned elemBytes) {
  // The search looks at the first and the last warp and at most 64 accesses
  // of each (warps repeat each other's patterns at other rows or columns);
  // the chosen layout's counts cover every access. Which elements the
  // accesses start at depends only on the side and the access width:
  // collected once per pair.
  std::vector<unsigned> warps = {0};
  if (numWarps > 1)
    warps.push_back(numWarps - 1);
  constexpr int64_t kSampledPerWarp = 64;
  std::map<std::pair<const TileLayout *, unsigned>, Accesses> sampled;
  auto accesses = [&](const TileLayout &side, unsigned width) -> const Accesses & {
    auto [it, fresh] = sampled.try_emplace({&side, width});
    if (fresh)
      it->second = collectAccesses(side, shape, warps, width, kSampledPerWarp);
    return it->second;
  };
  auto cost = [&](const SharedLayout &s) {
    int64_t total = 0;
    for (const TileLayout *side : {&src, &dst}) {
      unsigned w = sharedAccessWidth(*side, shape, s, elemBytes);
      BankConflicts c = countConflicts(accesses(*side, w), shape, s, elemBytes);
      total += c.wavefronts + c.instructions;
    }
    return total;
  };
  // No layout does better than each side at its widest, one wavefront per
  // phase: a candidate that reaches it ends the search.
  int64_t bound = 0;
  for (const TileLayout *side : {&src, &dst}) {
    SharedLayout own = SharedLayout::swizzled(1, 1, 1, tileOrder(*side));
    unsigned w = sharedAccessWidth(*side, shape, own, elemBytes);
    int64_t bytes = int64_t(w) * elemBytes;
    int64_t phases = bytes <= 4 ? 1 : bytes / 4;
    bound += int64_t(accesses(*side, w).instructions.size()) * (1 + phases);
  }
  std::vector<SharedLayout> all = candidates(src, dst, shape, elemBytes);
  size_t best = 0;
  int64_t bestCost = cost(all[0]);
  for (size_t i = 1; i < all.size() && bestCost > bound; ++i) {
    int64_t c = cost(all[i]);
    if (c < bestCost) {
      best = i;
      bestCost = c;
    }
  }
  return planSharedConversion(src, dst, shape, numWarps, all[best], elemBytes);
}

} // namespace megac::layout
