#include "Tile/Layout/BlockedLayout.h"

#include <string>
#include <unordered_map>
#include <algorithm>
#include <map>
#include <sstream>

namespace megac::layout {
namespace {

bool isPow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

unsigned log2Exact(int64_t v) {
  unsigned n = 0;
  while ((int64_t(1) << n) < v)
    ++n;
  return n;
}

std::vector<int64_t> widen(const std::vector<unsigned> &v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

// `value` with the bits of `masks` (single bits) removed and the bits above
// each moved down.
unsigned compressBits(unsigned value, std::vector<unsigned> masks) {
  std::sort(masks.rbegin(), masks.rend());
  for (unsigned m : masks) {
    unsigned below = value & (m - 1);
    value = below | ((value / m / 2) * m);
  }
  return value;
}

// The mixed-radix number whose digits are digit[d], each of radix radices[d],
// the dimensions taken fastest first, as in `order`.
int64_t undigits(const std::vector<int64_t> &digit,
                 const std::vector<unsigned> &order,
                 const std::vector<int64_t> &radices) {
  int64_t value = 0, scale = 1;
  for (unsigned dim : order) {
    value += digit[dim] * scale;
    scale *= radices[dim];
  }
  return value;
}

} // namespace

unsigned Blocked::numWarps() const {
  unsigned n = 1;
  for (unsigned w : warpsPerCTA)
    n *= w;
  return n;
}

int64_t Blocked::ctaTile(unsigned dim) const {
  return int64_t(sizePerThread[dim]) * threadsPerWarp[dim] * warpsPerCTA[dim];
}

int64_t Blocked::repetitions(const Shape &shape, unsigned dim) const {
  return std::max<int64_t>(1, shape[dim] / ctaTile(dim));
}

int64_t Blocked::numRegisters(const Shape &shape) const {
  int64_t n = 1;
  for (unsigned d = 0; d < rank(); ++d)
    n *= int64_t(sizePerThread[d]) * repetitions(shape, d);
  return n;
}

// threadBase, registerOffset and elementOf walk the mixed-radix digits of
// lane, warp and register in place: the layout checks and the lowering call
// them for every register of every thread, and temporary digit vectors were
// most of their cost.
Index Blocked::threadBase(unsigned lane, unsigned warp) const {
  Index base(rank());
  for (unsigned d : order) {
    int64_t laneDigit = lane % threadsPerWarp[d], warpDigit = warp % warpsPerCTA[d];
    lane /= threadsPerWarp[d];
    warp /= warpsPerCTA[d];
    base[d] = (warpDigit * threadsPerWarp[d] + laneDigit) * sizePerThread[d];
  }
  return base;
}

Index Blocked::registerOffset(const Shape &shape, int64_t reg) const {
  int64_t within = 1;
  for (unsigned s : sizePerThread)
    within *= s;
  int64_t inside = reg % within, rep = reg / within;
  Index off(rank());
  for (unsigned d : order) {
    int64_t reps = repetitions(shape, d);
    off[d] = (rep % reps) * ctaTile(d) + inside % sizePerThread[d];
    inside /= sizePerThread[d];
    rep /= reps;
  }
  return off;
}

Index Blocked::elementOf(const Shape &shape, unsigned lane, unsigned warp,
                         int64_t reg) const {
  Index base = threadBase(lane, warp), off = registerOffset(shape, reg);
  for (unsigned d = 0; d < rank(); ++d)
    base[d] = (base[d] + off[d]) % shape[d];
  return base;
}

bool Blocked::isOwner(const Shape &shape, unsigned lane, unsigned warp,
                      int64_t reg) const {
  Index base = threadBase(lane, warp), off = registerOffset(shape, reg);
  for (unsigned d = 0; d < rank(); ++d)
    if (base[d] + off[d] >= shape[d])
      return false;
  return true;
}

std::vector<unsigned> Blocked::laneXorMasks(const Shape &shape,
                                            unsigned dim) const {
  unsigned shift = 0;
  for (unsigned d : order) {
    if (d == dim)
      break;
    shift += log2Exact(threadsPerWarp[d]);
  }
  // Lanes beyond shape/spt along `dim` hold replicas: leave them out.
  int64_t distinct =
      std::min<int64_t>(threadsPerWarp[dim],
                        std::max<int64_t>(1, shape[dim] / sizePerThread[dim]));
  std::vector<unsigned> masks;
  for (unsigned b = 0; b < log2Exact(distinct); ++b)
    masks.push_back(1u << (shift + b));
  return masks;
}

std::vector<unsigned> Blocked::warpXorMasks(const Shape &shape,
                                            unsigned dim) const {
  unsigned shift = 0;
  for (unsigned d : order) {
    if (d == dim)
      break;
    shift += log2Exact(warpsPerCTA[d]);
  }
  int64_t perWarp = int64_t(sizePerThread[dim]) * threadsPerWarp[dim];
  int64_t distinct = std::min<int64_t>(
      warpsPerCTA[dim], std::max<int64_t>(1, shape[dim] / perWarp));
  std::vector<unsigned> masks;
  for (unsigned b = 0; b < log2Exact(distinct); ++b)
    masks.push_back(1u << (shift + b));
  return masks;
}

int64_t Blocked::numReductionKeys(const Shape &shape, unsigned dim) const {
  return int64_t(32 >> laneXorMasks(shape, dim).size()) *
         (int64_t(numWarps()) >> warpXorMasks(shape, dim).size());
}

unsigned Blocked::reductionKey(const Shape &shape, unsigned dim, unsigned lane,
                               unsigned warp) const {
  auto laneMasks = laneXorMasks(shape, dim);
  unsigned laneKey = compressBits(lane % 32, laneMasks);
  unsigned warpKey = compressBits(warp % numWarps(), warpXorMasks(shape, dim));
  return (warpKey << (5 - laneMasks.size())) | laneKey;
}

void Blocked::locate(const Shape &shape, const Index &index, unsigned &lane,
                     int64_t &reg) const {
  std::vector<int64_t> laneDigit(rank()), within(rank()), rep(rank()),
      reps(rank());
  for (unsigned d = 0; d < rank(); ++d) {
    laneDigit[d] = (index[d] / sizePerThread[d]) % threadsPerWarp[d];
    within[d] = index[d] % sizePerThread[d];
    reps[d] = repetitions(shape, d);
    rep[d] = (index[d] / ctaTile(d)) % reps[d];
  }
  int64_t withinCount = 1;
  for (unsigned s : sizePerThread)
    withinCount *= s;
  lane = unsigned(undigits(laneDigit, order, widen(threadsPerWarp)));
  reg = undigits(within, order, widen(sizePerThread)) +
        withinCount * undigits(rep, order, reps);
}

std::string Blocked::validate() const {
  unsigned r = rank();
  if (r == 0 || threadsPerWarp.size() != r || warpsPerCTA.size() != r ||
      order.size() != r)
    return "spt, tpw, wpc and order must have the same non-zero length";
  unsigned lanes = 1;
  for (unsigned d = 0; d < r; ++d) {
    if (!isPow2(sizePerThread[d]) || !isPow2(threadsPerWarp[d]) ||
        !isPow2(warpsPerCTA[d]))
      return "every spt, tpw and wpc entry must be a power of two";
    lanes *= threadsPerWarp[d];
  }
  if (lanes != 32)
    return "tpw must multiply to 32 (lanes in a warp), got " +
           std::to_string(lanes);
  std::vector<unsigned> sorted(order);
  std::sort(sorted.begin(), sorted.end());
  for (unsigned d = 0; d < r; ++d)
    if (sorted[d] != d)
      return "order must be a permutation of the dimensions";
  return "";
}

std::string Blocked::str() const {
  std::ostringstream os;
  auto list = [&](const std::vector<unsigned> &v) {
    os << '[';
    for (size_t i = 0; i < v.size(); ++i)
      os << (i ? ", " : "") << v[i];
    os << ']';
  };
  os << "spt = ";
  list(sizePerThread);
  os << ", tpw = ";
  list(threadsPerWarp);
  os << ", wpc = ";
  list(warpsPerCTA);
  os << ", order = ";
  list(order);
  return os.str();
}

Blocked Blocked::defaultFor(const Shape &shape, unsigned numWarps,
                            unsigned vectorElems) {
  unsigned r = shape.size();
  Blocked l;
  l.sizePerThread.assign(r, 1);
  l.threadsPerWarp.assign(r, 1);
  l.warpsPerCTA.assign(r, 1);
  for (unsigned k = 0; k < r; ++k)
    l.order.push_back(r - 1 - k);
  unsigned fastest = l.order[0];
  l.sizePerThread[fastest] =
      unsigned(std::min<int64_t>(vectorElems, shape[fastest]));
  unsigned lanes = 32, warps = numWarps;
  for (unsigned d : l.order) {
    int64_t room = std::max<int64_t>(1, shape[d] / l.sizePerThread[d]);
    l.threadsPerWarp[d] = unsigned(std::min<int64_t>(lanes, room));
    lanes /= l.threadsPerWarp[d];
  }
  l.threadsPerWarp[l.order.back()] *= lanes; // leftovers replicate
  for (unsigned d : l.order) {
    int64_t room = std::max<int64_t>(
        1, shape[d] / (int64_t(l.sizePerThread[d]) * l.threadsPerWarp[d]));
    l.warpsPerCTA[d] = unsigned(std::min<int64_t>(warps, room));
    warps /= l.warpsPerCTA[d];
  }
  l.warpsPerCTA[l.order.back()] *= warps;
  return l;
}

Blocked transposed(const Blocked &l) {
  auto swap2 = [](const std::vector<unsigned> &v) {
    return std::vector<unsigned>{v[1], v[0]};
  };
  Blocked t{swap2(l.sizePerThread), swap2(l.threadsPerWarp), swap2(l.warpsPerCTA), {}};
  for (unsigned d : l.order)
    t.order.push_back(1 - d);
  return t;
}

std::optional<Blocked> dotLayout(int64_t M, int64_t N, unsigned numWarps,
                                 std::string *why, unsigned maxAlongN) {
  auto fail = [&](std::string reason) -> std::optional<Blocked> {
    if (why)
      *why = std::move(reason);
    return std::nullopt;
  };
  if (M % 16 != 0 || N % 8 != 0)
    return fail("a dot result is made of 16 x 8 blocks: [" + std::to_string(M) +
                ", " + std::to_string(N) + "] is not");
  // Warps along N first: each warp then needs A's rows only once.
  // At most 8 along N: the lowering's ldmatrix addresses take a warp's
  // column block (w mod W1) as a chunk index below 8.
  unsigned alongN = unsigned(std::min<int64_t>({numWarps, N / 8, maxAlongN, 8}));
  unsigned alongM = numWarps / alongN;
  if (M % (16 * int64_t(alongM)) != 0)
    return fail("[" + std::to_string(M) + ", " + std::to_string(N) +
                "] is too small for " + std::to_string(numWarps) +
                " warps: each warp needs at least one 16 x 8 block");
  return Blocked{{1, 2}, {8, 4}, {alongM, alongN}, {1, 0}};
}

bool isDotLayout(const Blocked &l, int64_t M, int64_t N) {
  return l.rank() == 2 && l.sizePerThread == std::vector<unsigned>{1, 2} &&
         l.threadsPerWarp == std::vector<unsigned>{8, 4} && l.order == std::vector<unsigned>{1, 0} &&
         M % (16 * int64_t(l.warpsPerCTA[0])) == 0 && N % (8 * int64_t(l.warpsPerCTA[1])) == 0;
}

std::vector<int64_t> Slice::parentRegisters(const Shape &parentShape) const {
  std::vector<int64_t> regs;
  for (int64_t r = 0, n = parent.numRegisters(parentShape); r < n; ++r)
    if (parent.registerOffset(parentShape, r)[dim] == 0)
      regs.push_back(r);
  return regs;
}

Shape TileLayout::parentShape(const Shape &shape) const {
  Shape p = shape;
  if (sliceDim >= 0)
    p.insert(p.begin() + sliceDim, 1);
  return p;
}

std::vector<int64_t> TileLayout::parentRegisters(const Shape &shape) const {
  if (sliceDim >= 0)
    return slicedRegisters(shape);
  std::vector<int64_t> regs(blocked.numRegisters(shape));
  for (size_t r = 0; r < regs.size(); ++r)
    regs[r] = int64_t(r);
  return regs;
}

// A slice's parent registers, computed once per (layout, shape) and thread:
// the lowering and the conversion planners ask for one register at a time,
// and recomputing the list each time made them quadratic in the tile size.
const std::vector<int64_t> &TileLayout::slicedRegisters(const Shape &shape) const {
  thread_local std::map<std::vector<int64_t>, std::vector<int64_t>> cache;
  std::vector<int64_t> key = {sliceDim};
  for (const auto *v : {&blocked.sizePerThread, &blocked.threadsPerWarp,
                        &blocked.warpsPerCTA})
    key.insert(key.end(), v->begin(), v->end());
  key.insert(key.end(), blocked.order.begin(), blocked.order.end());
  key.push_back(-1); // the shape follows
  key.insert(key.end(), shape.begin(), shape.end());
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(std::move(key), Slice{unsigned(sliceDim), blocked}
                                           .parentRegisters(parentShape(shape)))
             .first;
  return it->second;
}

int64_t TileLayout::numRegisters(const Shape &shape) const {
  return sliceDim >= 0 ? int64_t(slicedRegisters(shape).size())
                       : blocked.numRegisters(shape);
}

Index TileLayout::elementOf(const Shape &shape, unsigned lane, unsigned warp,
                            int64_t reg) const {
  if (sliceDim < 0)
    return blocked.elementOf(shape, lane, warp, reg);
  Shape ps = parentShape(shape);
  Index e = blocked.elementOf(ps, lane, warp, slicedRegisters(shape)[reg]);
  e.erase(e.begin() + sliceDim);
  return e;
}

void TileLayout::locate(const Shape &shape, const Index &index, unsigned &lane,
                        int64_t &reg) const {
  if (sliceDim < 0)
    return blocked.locate(shape, index, lane, reg);
  Index pi = index;
  pi.insert(pi.begin() + sliceDim, 0);
  int64_t parentReg;
  blocked.locate(parentShape(shape), pi, lane, parentReg);
  const std::vector<int64_t> &regs = slicedRegisters(shape);
  auto it = std::find(regs.begin(), regs.end(), parentReg);
  reg = it == regs.end() ? -1 : int64_t(it - regs.begin());
}

std::string TileLayout::str() const {
  if (sliceDim < 0)
    return "#tile.blocked<" + blocked.str() + ">";
  return "#tile.slice<dim = " + std::to_string(sliceDim) + ", parent = <" +
         blocked.str() + ">>";
}

namespace {

// The element each thread's register holds, as a linear index over `shape`:
// entry (warp * 32 + lane) * registers + reg. A thread's base and a
// register's offset are each computed once, not once per element.
std::vector<int64_t> elementTable(const TileLayout &l, const Shape &shape, unsigned numWarps) {
  // Over the parent's shape a slice's dimension has extent 1: its
  // coordinate is 0 and the linear index is the one over `shape`.
  Shape parent = l.parentShape(shape);
  std::vector<Index> offsets;
  for (int64_t r : l.parentRegisters(shape))
    offsets.push_back(l.blocked.registerOffset(parent, r));
  std::vector<int64_t> table;
  table.reserve(size_t(numWarps) * 32 * offsets.size());
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane) {
      Index base = l.blocked.threadBase(lane, warp);
      for (const Index &off : offsets) {
        int64_t linear = 0;
        for (size_t d = 0; d < parent.size(); ++d)
          linear = linear * parent[d] + (base[d] + off[d]) % parent[d];
        table.push_back(linear);
      }
    }
  return table;
}

bool equivalentUncached(const TileLayout &a, const TileLayout &b, const Shape &shape,
                        unsigned numWarps) {
  return a.numRegisters(shape) == b.numRegisters(shape) &&
         elementTable(a, shape, numWarps) == elementTable(b, shape, numWarps);
}

void appendKey(std::string &key, const TileLayout &l) {
  for (const std::vector<unsigned> *v : {&l.blocked.sizePerThread, &l.blocked.threadsPerWarp,
                                         &l.blocked.warpsPerCTA, &l.blocked.order}) {
    for (unsigned x : *v)
      key += std::to_string(x) + ',';
    key += ';';
  }
  key += std::to_string(l.sliceDim) + '|';
}

} // namespace

bool equivalent(const TileLayout &a, const TileLayout &b, const Shape &shape,
                unsigned numWarps) {
  // The compiler asks about the same few pairs many times per kernel (layout
  // assignment, conversion removal, shared layouts, the register estimate,
  // the lowering), and each answer walks every register of every thread.
  static thread_local std::unordered_map<std::string, bool> answers;
  std::string key;
  appendKey(key, a);
  appendKey(key, b);
  for (int64_t d : shape)
    key += std::to_string(d) + ',';
  key += std::to_string(numWarps);
  auto it = answers.find(key);
  if (it != answers.end())
    return it->second;
  bool same = equivalentUncached(a, b, shape, numWarps);
  if (answers.size() >= 4096) // a long-lived process (Python) compiles many modules
    answers.clear();
  answers.emplace(std::move(key), same);
  return same;
}

std::optional<ShufflePlan> planWarpShuffles(const TileLayout &src,
                                            const TileLayout &dst,
                                            const Shape &shape,
                                            unsigned numWarps) {
  ShufflePlan plan;
  int64_t n = dst.numRegisters(shape);
  plan.sources.resize(n);
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < n; ++r) {
        Index e = dst.elementOf(shape, lane, warp, r);
        unsigned from;
        int64_t reg;
        src.locate(shape, e, from, reg);
        if (reg < 0 || src.elementOf(shape, from, warp, reg) != e)
          return std::nullopt;
        auto &s = plan.sources[r];
        if (std::find(s.begin(), s.end(), reg) == s.end())
          s.push_back(reg);
      }
  for (auto &s : plan.sources) {
    std::sort(s.begin(), s.end());
    plan.numShuffles += int64_t(s.size());
  }
  return plan;
}

std::string describeOwnership(const Blocked &layout, const Shape &shape) {
  return describeOwnership(TileLayout{layout, -1}, shape, layout.numWarps());
}

std::string describeOwnership(const TileLayout &layout, const Shape &shape,
                              unsigned numWarps) {
  std::map<Index, std::vector<std::string>> owners;
  int64_t regs = layout.numRegisters(shape);
  for (unsigned warp = 0; warp < numWarps; ++warp)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (int64_t r = 0; r < regs; ++r) {
        std::ostringstream who;
        who << "t" << (warp * 32 + lane) << "(lane " << lane << ", warp "
            << warp << ") r" << r;
        owners[layout.elementOf(shape, lane, warp, r)].push_back(who.str());
      }
  std::ostringstream os;
  os << "layout " << layout.str() << " of shape [";
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? ", " : "") << shape[i];
  os << "]: " << regs << " registers per thread\n";
  for (auto &[index, who] : owners) {
    os << '[';
    for (size_t i = 0; i < index.size(); ++i)
      os << (i ? ", " : "") << index[i];
    os << "] ->";
    for (size_t i = 0; i < who.size(); ++i)
      os << (i ? "," : "") << ' ' << who[i];
    os << '\n';
  }
  return os.str();
}

} // namespace megac::layout
