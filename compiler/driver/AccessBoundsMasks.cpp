//===- AccessBoundsMasks.cpp - Masks and quotients of program ids ---------===//
//
// The parts of the access-bounds analysis (AccessBoundsAnalysis.h) that read
// a mask as intervals of its indices, and a program id's quotient and
// remainder by a scalar as the rows of programs they make.
//
//===----------------------------------------------------------------------===//
#include "AccessBoundsAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"

namespace megac::bounds {

std::optional<std::vector<Constraint>> Analysis::constraints(Value mask) {
  Operation *def = mask.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (isa<tile::SplatOp, tile::BroadcastOp, tile::ConvertLayoutOp>(def))
    return constraints(def->getOperand(0));
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
    std::optional<std::vector<Constraint>> cs = constraints(expand.getSrc());
    if (cs)
      for (Constraint &c : *cs)
        c.terms = expanded(Affine{Sym::lit(0), c.terms}, expand.getAxis()).terms;
    return cs;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    // All true: no constraint. A false mask never accesses anything.
    auto i = dyn_cast<IntegerAttr>(c.getValue());
    auto s = dyn_cast<SplatElementsAttr>(c.getValue());
    if ((i && i.getValue().isAllOnes()) || (s && s.getSplatValue<APInt>().isAllOnes()))
      return std::vector<Constraint>{};
    return std::nullopt;
  }
  if (isa<arith::AndIOp>(def)) {
    std::optional<std::vector<Constraint>> l = constraints(def->getOperand(0)),
                                           r = constraints(def->getOperand(1));
    if (!l || !r)
      return std::nullopt;
    l->insert(l->end(), r->begin(), r->end());
    return l;
  }
  auto cmp = dyn_cast<arith::CmpIOp>(def);
  if (!cmp)
    return std::nullopt; // a mask loaded, selected or combined otherwise
  std::optional<Affine> l = affine(cmp.getLhs()), r = affine(cmp.getRhs());
  if (!l || !r)
    return std::nullopt;
  // l PRED r as terms + base PRED 0, that is terms PRED -base.
  Affine d = plus(*l, *r, true);
  Sym at = neg(d.base);
  Constraint c{d.terms, std::nullopt, std::nullopt};
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt:
    c.hi = sub(at, Sym::lit(1));
    break;
  case arith::CmpIPredicate::sle:
    c.hi = at;
    break;
  case arith::CmpIPredicate::sgt:
    c.lo = add(at, Sym::lit(1));
    break;
  case arith::CmpIPredicate::sge:
    c.lo = at;
    break;
  case arith::CmpIPredicate::eq:
    c.lo = c.hi = at;
    break;
  default:
    return std::nullopt; // unsigned or != : not an interval of the signed index
  }
  return std::vector<Constraint>{c};
}

namespace {

/// Condition `cond`, which says a <= b (`lessEqual`) or a >= b: false where
/// the numbers decide against it; else true, and `cond` joins `when` (once: a
/// quotient and remainder share their divisor's) unless the numbers decide for
/// it. `runs` stays true only where the grid's constant dimensions decide it.
bool require(std::string &when, bool &runs, const std::string &cond, const Sym &a, const Sym &b,
             bool lessEqual) {
  if (a.literal() && b.literal())
    return lessEqual ? *a.literal() <= *b.literal() : *a.literal() >= *b.literal();
  if ((" && " + when + " && ").find(" && " + cond + " && ") == std::string::npos)
    when = when.empty() ? cond : when + " && " + cond;
  runs = runs && a.known && b.known && (lessEqual ? *a.known <= *b.known : *a.known >= *b.known);
  return true;
}

} // namespace

/// Folds a mask's constraints into [lo, hi] and `when`, taking from `rest` the
/// terms they bound. Exact only where each constrained index is dense (takes
/// every integer between its lowest and highest value: `program_id(0) * 128 +
/// arange(0, 128)`, a loop's `k + arange(0, K_STEP)`), the indices share no
/// term, and the offset is a multiple of each (`rows * N + cols` under
/// `rows < M && cols < N`); then the masked-in values of each index are an
/// interval and the offset's extremes are at its ends. Otherwise false: the
/// access is left out.
bool Analysis::underMask(std::vector<Constraint> cs, ArrayRef<int64_t> shape, Affine &rest, Sym &lo,
                         Sym &hi, std::string &when, bool &runs) {
  // One interval per index: `i >= 0 && i < n` bound one index twice.
  std::vector<Constraint> groups;
  for (Constraint &c : cs) {
    llvm::erase_if(c.terms, [](const auto &t) { return t.second.literal() == 0; });
    auto same = llvm::find_if(groups, [&](const Constraint &g) { return sameTerms(g.terms, c.terms); });
    if (same == groups.end()) {
      groups.push_back(c);
      continue;
    }
    if (c.lo)
      same->lo = same->lo ? maxOf(*same->lo, *c.lo) : *c.lo;
    if (c.hi)
      same->hi = same->hi ? minOf(*same->hi, *c.hi) : *c.hi;
  }
  std::vector<Atom> seen;
  for (Constraint &g : groups) {
    // A condition on no index: the access runs when it holds.
    if (g.terms.empty()) {
      if ((g.lo && !require(when, runs, g.lo->wrapped(1) + " <= 0", *g.lo, Sym::lit(0), true)) ||
          (g.hi && !require(when, runs, g.hi->wrapped(1) + " >= 0", *g.hi, Sym::lit(0), false)))
        return false;
      continue;
    }
    for (const auto &[atom, c] : g.terms) {
      if (!c.literal() || llvm::is_contained(seen, atom))
        return false; // a symbolic stride, or an index sharing a term with another
      seen.push_back(atom);
    }
    // Dense: by growing |coefficient|, each at most one past what the terms
    // before it span (a span not known counts as none).
    llvm::sort(g.terms, [](const auto &a, const auto &b) {
      return std::abs(*a.second.literal()) < std::abs(*b.second.literal());
    });
    int64_t spans = 0;
    Sym low = Sym::lit(0), high = Sym::lit(0);
    for (const auto &[atom, c] : g.terms) {
      int64_t k = *c.literal();
      if (k == INT64_MIN || std::abs(k) - 1 > spans)
        return false;
      Sym last = sub(extent(atom, shape), Sym::lit(1));
      int64_t span = 0;
      if (last.literal() && (mulOv(std::abs(k), *last.literal(), &span) || addOv(spans, span, &spans)))
        return false;
      (k > 0 ? high : low) = add(k > 0 ? high : low, scaledBy(last, k));
    }
    // The offset as k * index + the rest, k read off the unit term.
    const auto &[unit, unitCoeff] = g.terms.front();
    auto coeffOf = [&](const Atom &atom) {
      auto it = llvm::find_if(rest.terms, [&](const auto &t) { return t.first == atom; });
      return it == rest.terms.end() ? Sym::lit(0) : it->second;
    };
    Sym k = scaledBy(coeffOf(unit), *unitCoeff.literal());
    for (const auto &[atom, c] : g.terms)
      if (scaledBy(k, *c.literal()).full() != coeffOf(atom).full())
        return false;
    llvm::erase_if(rest.terms, [&](const auto &t) { return llvm::is_contained(seen, t.first); });
    // The masked-in values of the index: [first, final], if any.
    Sym first = g.lo ? maxOf(low, *g.lo) : low, final = g.hi ? minOf(high, *g.hi) : high;
    if ((g.hi && !require(when, runs, g.hi->wrapped(1) + " >= " + low.wrapped(1), *g.hi, low, false)) ||
        (g.lo && !require(when, runs, g.lo->wrapped(1) + " <= " + high.wrapped(1), *g.lo, high, true)) ||
        (g.lo && g.hi && !require(when, runs, g.lo->wrapped(1) + " <= " + g.hi->wrapped(1), *g.lo, *g.hi, true)))
      return false;
    if (k.literal()) {
      bool up = *k.literal() >= 0;
      hi = add(hi, mul(k, up ? final : first));
      lo = add(lo, mul(k, up ? first : final));
    } else {
      hi = add(hi, maxOf(mul(k, final), mul(k, first)));
      lo = add(lo, minOf(mul(k, final), mul(k, first)));
    }
  }
  return true;
}

/// The terms that read one program id must be independent of the others: one
/// term an axis (the id, or its quotient, or its remainder), or its quotient
/// and remainder by one divisor, which quotientPairs bounds together (not
/// under a mask). The divisors must be positive: `when` says so.
bool Analysis::gridTermsApart(const Affine &offsets, const std::vector<Constraint> &cs, std::string &when,
                              bool &runs) {
  for (int64_t axis = 0; axis < 3; ++axis) {
    std::vector<Atom> reads;
    bool masked = false;
    auto note = [&](const Atom &atom, bool inMask) {
      if (!atom.readsGrid(axis))
        return;
      masked = masked || inMask;
      if (!llvm::is_contained(reads, atom))
        reads.push_back(atom);
    };
    for (const auto &term : offsets.terms)
      note(term.first, false);
    for (const Constraint &c : cs)
      for (const auto &term : c.terms)
        note(term.first, true);
    bool pair = reads.size() == 2 && reads[0].divisor.full() == reads[1].divisor.full() &&
                ((reads[0].kind == Atom::Quotient && reads[1].remainderLike()) ||
                 (reads[1].kind == Atom::Quotient && reads[0].remainderLike()));
    if (reads.size() > 2 || (reads.size() == 2 && (!pair || masked)))
      return false;
    for (const Atom &atom : reads) {
      if (atom.kind == Atom::ProgramId)
        continue;
      for (const Sym &d : {atom.divisor, atom.subDivisor}) {
        if (!require(when, runs, d.wrapped(1) + " > 0", d, Sym::lit(1), false))
          return false;
      }
    }
  }
  return true;
}

/// A program id's quotient q and remainder r by one divisor d, with
/// coefficients a and b: over the programs 0 to G - 1 they take every pair of
/// the rows before the last, [0, Q - 1] x [0, d - 1], and the last row's
/// [0, R] (Q and R the last program's), so a * q + b * r is highest and lowest
/// in one of those two boxes, each term at an end of its range.
void Analysis::quotientPairs(Affine &rest, ArrayRef<int64_t> shape, Sym &lo, Sym &hi) {
  for (int64_t axis = 0; axis < 3; ++axis) {
    auto quotient = llvm::find_if(rest.terms, [&](const auto &t) {
      return t.first.readsGrid(axis) && t.first.kind == Atom::Quotient;
    });
    auto remainder = llvm::find_if(rest.terms, [&](const auto &t) {
      return t.first.readsGrid(axis) && t.first.remainderLike();
    });
    if (quotient == rest.terms.end() || remainder == rest.terms.end())
      continue;
    const Sym &d = quotient->first.divisor, a = quotient->second, b = remainder->second;
    Sym last = sub(extent(Atom{Atom::ProgramId, axis}, shape), Sym::lit(1));
    Sym q = divide(last, d, false), r = divide(last, d, true);
    // Where there is a row before the last, it is whole; else the last row is
    // all there is, and its corners stand in.
    Sym rowsBefore = maxOf(sub(q, Sym::lit(1)), Sym::lit(0)), width = minOf(sub(d, Sym::lit(1)), last);
    // A quotient of the remainder (r / e, e > 0) rises with it: the same ends.
    if (remainder->first.kind == Atom::RemainderQuotient) {
      width = divide(width, remainder->first.subDivisor, false);
      r = divide(r, remainder->first.subDivisor, false);
    }
    // k * v over v from 0 to `v` (v >= 0), at its highest or lowest.
    auto highest = [](const Sym &k, const Sym &v) {
      return k.literal() ? (*k.literal() >= 0 ? mul(k, v) : Sym::lit(0)) : maxOf(Sym::lit(0), mul(k, v));
    };
    auto lowest = [](const Sym &k, const Sym &v) {
      return k.literal() ? (*k.literal() >= 0 ? Sym::lit(0) : mul(k, v)) : minOf(Sym::lit(0), mul(k, v));
    };
    hi = add(hi, maxOf(add(highest(a, rowsBefore), highest(b, width)), add(mul(a, q), highest(b, r))));
    lo = add(lo, a.literal() >= 0 && b.literal() >= 0
                     ? Sym::lit(0)
                     : minOf(add(lowest(a, rowsBefore), lowest(b, width)), add(mul(a, q), lowest(b, r))));
    Atom qa = quotient->first, ra = remainder->first;
    llvm::erase_if(rest.terms, [&](const auto &t) { return t.first == qa || t.first == ra; });
  }
}

} // namespace megac::bounds
