//===- AccessBounds.cpp - Which elements a kernel's accesses reach --------===//
#include "AccessBounds.h"

#include "frontend/ASTPrinter.h"
#include "megac/runtime/manifest.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"


using namespace mlir;

namespace megac {
namespace {

/// An integer as the runtime's expression grammar spells it (runtime/expr.h):
/// `text` plus a literal `addend`, kept apart so that offsets which differ by a
/// constant are told apart by their addends alone (`n + 4` and `n + 8`).
/// `known` is the value when only the grid's constant dimensions enter it.
struct Sym {
  std::string text;  // "" when the value is the literal `addend`
  int prec = 0;      // of text: 0 a name, literal or call, 1 a product, 2 a sum
  int64_t addend = 0;
  std::optional<int64_t> known = 0;
  bool overflow = false; // arithmetic on literals overflowed: the access is left out

  static Sym lit(int64_t v) { return Sym{"", 0, v, v}; }
  static Sym name(std::string n, std::optional<int64_t> known) { return Sym{std::move(n), 0, 0, known}; }

  std::optional<int64_t> literal() const {
    return text.empty() ? std::optional<int64_t>(addend) : std::nullopt;
  }
  /// The whole value's text, and its precedence.
  std::string full() const {
    if (text.empty())
      return std::to_string(addend);
    if (addend == 0)
      return text;
    return text + (addend > 0 ? " + " + std::to_string(addend) : " - " + std::to_string(addend).substr(1));
  }
  int fullPrec() const { return text.empty() ? (addend < 0 ? 2 : 0) : addend ? 2 : prec; }
  std::string wrapped(int maxPrec) const { return fullPrec() > maxPrec ? "(" + full() + ")" : full(); }
};

template <class F> std::optional<int64_t> both(const std::optional<int64_t> &a, const std::optional<int64_t> &b, F f) {
  int64_t r;
  if (!a || !b || f(*a, *b, &r))
    return std::nullopt;
  return r;
}
bool addOv(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
bool subOv(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); }
bool mulOv(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

/// A value computed from `text` alone (no addend of its own).
Sym opaque(std::string text, int prec, std::optional<int64_t> known, bool overflow) {
  return Sym{std::move(text), prec, 0, known, overflow};
}

Sym add(const Sym &a, const Sym &b) {
  Sym r;
  r.text = a.text.empty() ? b.text : b.text.empty() ? a.text : a.text + " + " + b.text;
  r.prec = a.text.empty() ? b.prec : b.text.empty() ? a.prec : 2;
  r.overflow = a.overflow || b.overflow || addOv(a.addend, b.addend, &r.addend);
  r.known = both(a.known, b.known, addOv);
  return r;
}

/// -a: a's text negated ("-n", "-(n + m)"), its addend likewise.
Sym neg(const Sym &a) {
  Sym r = a;
  // A name or product with its sign in front ("-n", "-n * 4": unary minus
  // binds first) loses it; anything else gains one.
  if (a.prec <= 1 && a.text.rfind('-', 0) == 0)
    r = opaque(a.text.substr(1), a.text[1] == '(' && a.text.find(')') == a.text.size() - 1 ? 0 : a.prec,
               std::nullopt, a.overflow);
  else if (!a.text.empty())
    r = opaque("-" + (a.prec > 0 ? "(" + a.text + ")" : a.text), 1, std::nullopt, a.overflow);
  r.overflow = r.overflow || subOv(0, a.addend, &r.addend);
  r.known = both(std::optional<int64_t>(0), a.known, subOv);
  return r;
}

Sym sub(const Sym &a, const Sym &b) {
  Sym r;
  if (b.text.empty())
    r.text = a.text, r.prec = a.prec;
  else if (a.text.empty())
    r.text = neg(opaque(b.text, b.prec, std::nullopt, false)).text, r.prec = 1;
  else
    r.text = a.text + " - " + (b.prec > 1 ? "(" + b.text + ")" : b.text), r.prec = 2;
  r.overflow = a.overflow || b.overflow || subOv(a.addend, b.addend, &r.addend);
  r.known = both(a.known, b.known, subOv);
  return r;
}

/// a * k for a literal k: the text and the addend scaled apart.
Sym scaledBy(const Sym &a, int64_t k) {
  if (k == 0)
    return Sym::lit(0);
  Sym r = a;
  if (k == -1)
    r = neg(a);
  else if (k != 1 && !a.text.empty())
    // k on the right: `n / 8 * 4` is (n / 8) * 4, where `4 * n / 8` would be (4 * n) / 8.
    r.text = (a.prec > 1 ? "(" + a.text + ")" : a.text) + " * " + std::to_string(k), r.prec = 1;
  if (k != -1)
    r.overflow = r.overflow || mulOv(a.addend, k, &r.addend);
  r.known = both(a.known, std::optional<int64_t>(k), mulOv);
  r.overflow = r.overflow || a.overflow;
  return r;
}

Sym mul(const Sym &a, const Sym &b) {
  if (b.literal())
    return scaledBy(a, *b.literal());
  if (a.literal())
    return scaledBy(b, *a.literal());
  return opaque(a.wrapped(1) + " * " + b.wrapped(0), 1, both(a.known, b.known, mulOv),
                a.overflow || b.overflow);
}

/// a / b or a % b, truncating (as arith.divsi and remsi, and the runtime).
Sym divide(const Sym &a, const Sym &b, bool remainder) {
  auto f = [remainder](int64_t x, int64_t y, int64_t *r) {
    if (y == 0 || (x == INT64_MIN && y == -1))
      return true;
    *r = remainder ? x % y : x / y;
    return false;
  };
  if (a.literal() && b.literal()) {
    Sym r = Sym::lit(0);
    r.overflow = f(a.addend, b.addend, &r.addend);
    r.known = r.addend;
    return r;
  }
  if (!remainder && b.literal() == 1)
    return a;
  return opaque(a.wrapped(1) + (remainder ? " % " : " / ") + b.wrapped(0), 1, both(a.known, b.known, f),
                a.overflow || b.overflow || b.literal() == 0);
}

Sym call(const char *fn, const Sym &a, const Sym &b, std::optional<int64_t> known) {
  return opaque(std::string(fn) + "(" + a.full() + ", " + b.full() + ")", 0, known, a.overflow || b.overflow);
}

Sym minOf(const Sym &a, const Sym &b) {
  auto f = [](int64_t x, int64_t y, int64_t *r) { return *r = std::min(x, y), false; };
  if (a.literal() && b.literal())
    return Sym::lit(std::min(a.addend, b.addend));
  return call("min", a, b, both(a.known, b.known, f));
}

Sym maxOf(const Sym &a, const Sym &b) {
  auto f = [](int64_t x, int64_t y, int64_t *r) { return *r = std::max(x, y), false; };
  if (a.literal() && b.literal())
    return Sym::lit(std::max(a.addend, b.addend));
  return call("max", a, b, both(a.known, b.known, f));
}

/// ceil(a / b) for a > 0 and a literal b > 0.
Sym cdiv(const Sym &a, int64_t b) {
  auto f = [](int64_t x, int64_t y, int64_t *r) { return *r = x / y + (x % y > 0), false; };
  if (b == 1)
    return a;
  if (a.literal())
    return Sym::lit(a.addend / b + (a.addend % b > 0));
  return call("cdiv", a, Sym::lit(b), both(a.known, std::optional<int64_t>(b), f));
}

/// What an offset term varies with: an index along a dimension of the
/// access's tile, a program id, the quotient or remainder of a program id by
/// a scalar (`program_id(0) / H`, `program_id(0) % H`: a grid of B * H
/// programs read as B rows of H), or the trip of a loop.
struct Atom {
  enum Kind { Dim, ProgramId, Quotient, Remainder, Trip } kind;
  int64_t index = 0;          // the dimension or the grid axis
  Operation *loop = nullptr; // Trip: the scf.for
  Sym divisor = Sym::lit(0);  // Quotient, Remainder: the program id's divisor
  bool operator==(const Atom &o) const {
    return kind == o.kind && index == o.index && loop == o.loop && divisor.full() == o.divisor.full();
  }
  /// Reads the program id along `axis`: itself, its quotient or remainder.
  bool readsGrid(int64_t axis) const {
    return index == axis && (kind == ProgramId || kind == Quotient || kind == Remainder);
  }
};

/// base + sum of coefficient * atom, each atom from 0 to its extent - 1.
struct Affine {
  Sym base = Sym::lit(0);
  std::vector<std::pair<Atom, Sym>> terms;

  bool scalar() const { return terms.empty(); }
  void addTerm(const Atom &atom, const Sym &coeff) {
    for (auto &[a, c] : terms)
      if (a == atom) {
        c = add(c, coeff);
        return;
      }
    terms.push_back({atom, coeff});
  }
};

Affine plus(const Affine &a, const Affine &b, bool minus) {
  Affine r = a;
  r.base = minus ? sub(a.base, b.base) : add(a.base, b.base);
  for (const auto &[atom, c] : b.terms)
    r.addTerm(atom, minus ? mul(Sym::lit(-1), c) : c);
  return r;
}

Affine scaled(const Affine &a, const Sym &k) {
  Affine r;
  r.base = mul(a.base, k);
  for (const auto &[atom, c] : a.terms)
    r.terms.push_back({atom, mul(c, k)});
  return r;
}

/// `a` with a dimension of size 1 inserted at `axis`.
Affine expanded(Affine a, int64_t axis) {
  for (auto &[atom, c] : a.terms)
    if (atom.kind == Atom::Dim && atom.index >= axis)
      ++atom.index;
  return a;
}

struct Loop {
  Sym lower;
  int64_t step = 1;
  Sym trips;
  std::string when;               // "" when it is known to run
  std::optional<bool> runs;       // known to run, or known not to
};

/// Offsets into a tensor parameter, counted in its elements. Through a cast
/// to a wider element type (`bitcast(p, *i64)` of a bf16 tensor), each offset
/// is the first of `width` elements.
struct PointerOffsets {
  unsigned param = 0;
  Affine offsets;
  int64_t width = 1;
};

/// What a mask asks of one index: lo <= sum of terms <= hi (either side
/// absent when it is not bounded there).
struct Constraint {
  std::vector<std::pair<Atom, Sym>> terms;
  std::optional<Sym> lo, hi;
};

bool sameTerms(const std::vector<std::pair<Atom, Sym>> &a, const std::vector<std::pair<Atom, Sym>> &b) {
  if (a.size() != b.size())
    return false;
  for (const auto &term : a) {
    auto it = llvm::find_if(b, [&](const auto &t) { return t.first == term.first; });
    if (it == b.end() || it->second.full() != term.second.full())
      return false;
  }
  return true;
}

/// The bytes of a pointer's element type, 0 when it has no fixed size.
int64_t elementBytes(Type ptr) {
  auto p = dyn_cast<tile::PtrType>(getElementTypeOrSelf(ptr));
  if (!p || !p.getPointeeType().isIntOrFloat() || p.getPointeeType().getIntOrFloatBitWidth() % 8)
    return 0;
  return p.getPointeeType().getIntOrFloatBitWidth() / 8;
}

/// What one access reaches: offsets lo to hi into tensor `param` whenever
/// `when` holds; `runs`: it is known to run (no loop that may have no trips).
struct Reach {
  unsigned param;
  const char *access, *minAccess;
  Location loc, minLoc;
  std::string when;
  Sym lo, hi;
  bool runs;
  bool masked;
};

class Analysis {
public:
  Analysis(func::FuncOp kernel, const std::vector<std::string> &names,
           const std::array<std::optional<int64_t>, 3> &grid)
      : kernel(kernel), names(names), grid(grid) {}

  std::optional<Reach> reach(Operation *op, Value ptr, Value mask, const char *access);

private:
  std::optional<Affine> affine(Value v);
  std::optional<Affine> compute(Value v);
  std::optional<PointerOffsets> pointer(Value v);
  std::optional<std::vector<Constraint>> constraints(Value mask);
  bool underMask(std::vector<Constraint> cs, ArrayRef<int64_t> shape, Affine &rest, Sym &lo, Sym &hi,
                 std::string &when, bool &runs);
  bool gridTermsApart(const Affine &offsets, const std::vector<Constraint> &cs, std::string &when, bool &runs);
  void quotientPairs(Affine &rest, ArrayRef<int64_t> shape, Sym &lo, Sym &hi);
  std::optional<Loop> loop(scf::ForOp op);
  std::optional<Loop> describe(scf::ForOp op);
  Sym extent(const Atom &atom, ArrayRef<int64_t> shape);

  func::FuncOp kernel;
  const std::vector<std::string> &names;
  std::array<std::optional<int64_t>, 3> grid;
  llvm::DenseMap<Value, std::optional<Affine>> affines;
  llvm::DenseMap<Operation *, std::optional<Loop>> loops;
};

std::optional<Affine> Analysis::affine(Value v) {
  auto it = affines.find(v);
  if (it != affines.end())
    return it->second;
  std::optional<Affine> a = compute(v);
  // A literal that overflowed int64 leaves the offset unknown.
  bool overflow = a && a->base.overflow;
  for (const auto &[atom, coeff] : a ? a->terms : std::vector<std::pair<Atom, Sym>>{})
    overflow = overflow || coeff.overflow;
  if (overflow)
    a.reset();
  affines[v] = a;
  return a;
}

std::optional<Affine> Analysis::compute(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    Operation *owner = arg.getOwner()->getParentOp();
    if (owner == kernel.getOperation()) {
      const std::string &n = names[arg.getArgNumber()];
      if (n.empty())
        return std::nullopt;
      return Affine{Sym::name(n, std::nullopt), {}};
    }
    auto forOp = dyn_cast<scf::ForOp>(owner);
    std::optional<Loop> l = forOp && v == forOp.getInductionVar() ? loop(forOp) : std::nullopt;
    if (!l)
      return std::nullopt; // a value a loop carries, or a loop with bounds not followed
    Affine a{l->lower, {}};
    a.addTerm(Atom{Atom::Trip, 0, forOp}, Sym::lit(l->step));
    return a;
  }
  Operation *def = v.getDefiningOp();
  if (auto c = dyn_cast<arith::ConstantOp>(def)) {
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()); i && i.getType().isSignlessInteger())
      return Affine{Sym::lit(i.getValue().getSExtValue()), {}};
    if (auto s = dyn_cast<SplatElementsAttr>(c.getValue());
        s && s.getElementType().isSignlessInteger())
      return Affine{Sym::lit(s.getSplatValue<APInt>().getSExtValue()), {}};
    return std::nullopt;
  }
  if (auto pid = dyn_cast<tile::ProgramIdOp>(def)) {
    Affine a;
    a.addTerm(Atom{Atom::ProgramId, pid.getAxis(), nullptr}, Sym::lit(1));
    return a;
  }
  if (auto count = dyn_cast<tile::NumProgramsOp>(def))
    return Affine{Sym::name(rt::kBoundGridNames[count.getAxis()], grid[count.getAxis()]), {}};
  if (auto range = dyn_cast<tile::ArangeOp>(def)) {
    Affine a{Sym::lit(range.getStart()), {}};
    if (range.getEnd() - range.getStart() > 1)
      a.addTerm(Atom{Atom::Dim, 0, nullptr}, Sym::lit(1));
    return a;
  }
  if (isa<tile::SplatOp, tile::BroadcastOp, tile::ConvertLayoutOp, arith::ExtSIOp>(def))
    return affine(def->getOperand(0));
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
    std::optional<Affine> a = affine(expand.getSrc());
    return a ? std::optional(expanded(*a, expand.getAxis())) : std::nullopt;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    std::optional<Affine> l = affine(def->getOperand(0)), r = affine(def->getOperand(1));
    if (!l || !r)
      return std::nullopt;
    if (isa<arith::AddIOp>(def))
      return plus(*l, *r, false);
    if (isa<arith::SubIOp>(def))
      return plus(*l, *r, true);
    if (r->scalar())
      return scaled(*l, r->base);
    if (l->scalar())
      return scaled(*r, l->base);
    return std::nullopt; // a product of two varying terms
  }
  if (isa<arith::DivSIOp, arith::RemSIOp>(def)) {
    std::optional<Affine> l = affine(def->getOperand(0)), r = affine(def->getOperand(1));
    if (!l || !r || !r->scalar())
      return std::nullopt;
    bool remainder = isa<arith::RemSIOp>(def);
    if (l->scalar())
      return Affine{divide(l->base, r->base, remainder), {}};
    // A program id itself by a scalar: a term of its own. Of anything else
    // varying, a quotient is not affine.
    if (l->terms.size() != 1 || l->base.literal() != 0 || l->terms[0].first.kind != Atom::ProgramId ||
        l->terms[0].second.literal() != 1 || r->base.overflow)
      return std::nullopt;
    Affine a;
    a.addTerm(Atom{remainder ? Atom::Remainder : Atom::Quotient, l->terms[0].first.index, nullptr, r->base},
              Sym::lit(1));
    return a;
  }
  return std::nullopt;
}

std::optional<Loop> Analysis::loop(scf::ForOp op) {
  auto it = loops.find(op);
  if (it != loops.end())
    return it->second;
  // Found before it is stored: the bounds may ask for an enclosing loop,
  // which inserts into `loops`.
  std::optional<Loop> found = describe(op);
  loops[op] = found;
  return found;
}

std::optional<Loop> Analysis::describe(scf::ForOp op) {
  std::optional<Affine> lb = affine(op.getLowerBound()), ub = affine(op.getUpperBound()),
                        step = affine(op.getStep());
  if (!lb || !ub || !step || !lb->scalar() || !ub->scalar() || !step->scalar() ||
      !step->base.literal() || *step->base.literal() <= 0)
    return std::nullopt;
  Loop info;
  info.lower = lb->base;
  info.step = *step->base.literal();
  Sym span = sub(ub->base, lb->base);
  if (span.overflow)
    return std::nullopt;
  info.trips = cdiv(span, info.step);
  if (span.known)
    info.runs = *span.known > 0;
  if (!span.literal())
    info.when = ub->base.wrapped(1) + " > " + lb->base.wrapped(1);
  return info;
}

std::optional<PointerOffsets> Analysis::pointer(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (arg.getOwner()->getParentOp() != kernel.getOperation())
      return std::nullopt;
    return PointerOffsets{arg.getArgNumber(), Affine{}};
  }
  Operation *def = v.getDefiningOp();
  if (isa<tile::SplatOp, tile::BroadcastOp, tile::ConvertLayoutOp>(def))
    return pointer(def->getOperand(0));
  if (auto expand = dyn_cast<tile::ExpandDimsOp>(def)) {
    std::optional<PointerOffsets> p = pointer(expand.getSrc());
    if (p)
      p->offsets = expanded(p->offsets, expand.getAxis());
    return p;
  }
  if (auto add = dyn_cast<tile::AddPtrOp>(def)) {
    std::optional<PointerOffsets> p = pointer(add.getPtr());
    std::optional<Affine> o = affine(add.getOffset());
    if (!p || !o)
      return std::nullopt;
    p->offsets = plus(p->offsets, scaled(*o, Sym::lit(p->width)), false);
    return p;
  }
  if (auto cast = dyn_cast<tile::PtrCastOp>(def)) {
    std::optional<PointerOffsets> p = pointer(cast.getSrc());
    int64_t from = elementBytes(cast.getSrc().getType()), to = elementBytes(cast.getType());
    if (!p || from == 0 || to == 0 || (to * p->width) % from != 0)
      return std::nullopt; // to a narrower element: offsets that split one
    p->width = to * p->width / from;
    return p;
  }
  return std::nullopt; // selected or loaded
}

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

Sym Analysis::extent(const Atom &atom, ArrayRef<int64_t> shape) {
  switch (atom.kind) {
  case Atom::Dim:
    return Sym::lit(shape[size_t(atom.index)]);
  case Atom::ProgramId:
    return Sym::name(rt::kBoundGridNames[atom.index], grid[size_t(atom.index)]);
  case Atom::Quotient: // 0 to (programs - 1) / divisor, every one
    return add(divide(sub(extent(Atom{Atom::ProgramId, atom.index}, shape), Sym::lit(1)), atom.divisor, false),
               Sym::lit(1));
  case Atom::Remainder: // 0 to min(divisor, programs) - 1, every one
    return minOf(atom.divisor, extent(Atom{Atom::ProgramId, atom.index}, shape));
  case Atom::Trip:
    return loops[atom.loop]->trips;
  }
  return Sym::lit(1);
}

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
  auto require = [&](const std::string &cond, const Sym &a, const Sym &b, bool lessEqual) {
    // a <= b (lessEqual) or a >= b: into `when` unless the numbers decide it.
    if (a.literal() && b.literal())
      return lessEqual ? *a.literal() <= *b.literal() : *a.literal() >= *b.literal();
    when = when.empty() ? cond : when + " && " + cond;
    runs = runs && a.known && b.known && (lessEqual ? *a.known <= *b.known : *a.known >= *b.known);
    return true;
  };
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
      if ((g.lo && !require(g.lo->wrapped(1) + " <= 0", *g.lo, Sym::lit(0), true)) ||
          (g.hi && !require(g.hi->wrapped(1) + " >= 0", *g.hi, Sym::lit(0), false)))
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
    if ((g.hi && !require(g.hi->wrapped(1) + " >= " + low.wrapped(1), *g.hi, low, false)) ||
        (g.lo && !require(g.lo->wrapped(1) + " <= " + high.wrapped(1), *g.lo, high, true)) ||
        (g.lo && g.hi && !require(g.lo->wrapped(1) + " <= " + g.hi->wrapped(1), *g.lo, *g.hi, true)))
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
    bool pair = reads.size() == 2 && reads[0].kind != reads[1].kind && reads[0].kind != Atom::ProgramId &&
                reads[1].kind != Atom::ProgramId && reads[0].divisor.full() == reads[1].divisor.full();
    if (reads.size() > 2 || (reads.size() == 2 && (!pair || masked)))
      return false;
    if (reads.empty() || reads[0].kind == Atom::ProgramId)
      continue;
    const Sym &d = reads[0].divisor;
    if (d.literal()) {
      if (*d.literal() <= 0)
        return false;
      continue;
    }
    std::string cond = d.wrapped(1) + " > 0";
    when = when.empty() ? cond : when + " && " + cond;
    runs = runs && d.known && *d.known > 0;
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
      return t.first.readsGrid(axis) && t.first.kind == Atom::Remainder;
    });
    if (quotient == rest.terms.end() || remainder == rest.terms.end())
      continue;
    const Sym &d = quotient->first.divisor, a = quotient->second, b = remainder->second;
    Sym last = sub(extent(Atom{Atom::ProgramId, axis}, shape), Sym::lit(1));
    Sym q = divide(last, d, false), r = divide(last, d, true);
    // Where there is a row before the last, it is whole; else the last row is
    // all there is, and its corners stand in.
    Sym rowsBefore = maxOf(sub(q, Sym::lit(1)), Sym::lit(0)), width = minOf(sub(d, Sym::lit(1)), last);
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

std::optional<Reach> Analysis::reach(Operation *op, Value ptr, Value mask, const char *access) {
  std::optional<std::vector<Constraint>> cs;
  if (mask && !(cs = constraints(mask)))
    return std::nullopt;
  // Only loops may enclose it: every trip runs it.
  std::string when;
  bool runs = true;
  for (Operation *p = op->getParentOp(); p != kernel.getOperation(); p = p->getParentOp()) {
    // An `if` on a constant (a variant's constant, say) is no condition in
    // the branch it takes; the other never runs.
    if (auto ifOp = dyn_cast<scf::IfOp>(p)) {
      std::optional<Affine> cond = affine(ifOp.getCondition());
      if (!cond || !cond->base.literal())
        return std::nullopt;
      bool inThen = ifOp.getThenRegion().isAncestor(op->getParentRegion());
      if ((*cond->base.literal() != 0) != inThen)
        return std::nullopt;
      continue;
    }
    auto forOp = dyn_cast<scf::ForOp>(p);
    std::optional<Loop> l = forOp ? loop(forOp) : std::nullopt;
    if (!l || l->runs == false)
      return std::nullopt; // bounds not followed, or it never runs
    runs = runs && l->runs.value_or(false);
    if (!l->when.empty())
      when = when.empty() ? l->when : l->when + " && " + when;
  }
  std::optional<PointerOffsets> p = pointer(ptr);
  if (!p)
    return std::nullopt;
  ArrayRef<int64_t> shape;
  if (auto tile = dyn_cast<RankedTensorType>(ptr.getType()))
    shape = tile.getShape();
  Sym lo = p->offsets.base, hi = p->offsets.base;
  Affine rest = p->offsets;
  if (!gridTermsApart(rest, cs ? *cs : std::vector<Constraint>{}, when, runs))
    return std::nullopt;
  if (cs && !underMask(*cs, shape, rest, lo, hi, when, runs))
    return std::nullopt; // not exact, or it never runs
  quotientPairs(rest, shape, lo, hi);
  for (const auto &[atom, coeff] : rest.terms) {
    Sym span = mul(coeff, sub(extent(atom, shape), Sym::lit(1)));
    if (coeff.literal() && *coeff.literal() >= 0) {
      hi = add(hi, span);
    } else if (coeff.literal()) {
      lo = add(lo, span);
    } else {
      lo = add(lo, minOf(Sym::lit(0), span));
      hi = add(hi, maxOf(Sym::lit(0), span));
    }
  }
  hi = add(hi, Sym::lit(p->width - 1));
  if (lo.overflow || hi.overflow)
    return std::nullopt;
  return Reach{p->param, access, access, op->getLoc(), op->getLoc(), when, lo, hi, runs, bool(mask)};
}

/// The lower of two bounds that differ by their addends only; the higher when
/// `higher`.
Sym extreme(const Sym &a, const Sym &b, bool higher) {
  Sym r = (b.addend > a.addend) == higher ? b : a;
  auto f = [higher](int64_t x, int64_t y, int64_t *v) { return *v = higher ? std::max(x, y) : std::min(x, y), false; };
  r.known = both(a.known, b.known, f);
  return r;
}

} // namespace

std::vector<AccessBound> accessBounds(func::FuncOp kernel, const std::vector<std::string> &scalarNames,
                                      const std::array<std::optional<int64_t>, 3> &grid) {
  Analysis analysis(kernel, scalarNames, grid);
  // Accesses of a tensor whose bounds differ by constants only (`p`, `p + 1`,
  // `p + 2`) make one bound, which names the accesses that reach highest and
  // lowest (masked and unmasked apart: a refusal says which).
  std::vector<Reach> reaches;
  kernel.walk([&](Operation *op) {
    std::optional<Reach> r;
    if (auto load = dyn_cast<tile::LoadOp>(op))
      r = analysis.reach(op, load.getPtr(), load.getMask(), "load");
    else if (auto store = dyn_cast<tile::StoreOp>(op))
      r = analysis.reach(op, store.getPtr(), store.getMask(), "store");
    else if (auto atomic = dyn_cast<tile::AtomicRMWOp>(op))
      r = analysis.reach(op, atomic.getPtr(), atomic.getMask(), "atomic");
    if (!r)
      return;
    for (Reach &seen : reaches) {
      if (seen.param != r->param || seen.when != r->when || seen.lo.text != r->lo.text ||
          seen.hi.text != r->hi.text || seen.masked != r->masked)
        continue;
      if (r->hi.addend > seen.hi.addend)
        seen.access = r->access, seen.loc = r->loc;
      if (r->lo.addend < seen.lo.addend)
        seen.minAccess = r->minAccess, seen.minLoc = r->minLoc;
      seen.lo = extreme(seen.lo, r->lo, false);
      seen.hi = extreme(seen.hi, r->hi, true);
      seen.runs = seen.runs && r->runs;
      return;
    }
    reaches.push_back(std::move(*r));
  });
  std::vector<AccessBound> bounds;
  for (const Reach &r : reaches) {
    AccessBound b{r.param, r.access, r.loc, r.minAccess, r.minLoc, r.when, r.lo.full(), r.hi.full(),
                  r.masked, std::nullopt, std::nullopt};
    if (r.runs)
      b.knownMin = r.lo.known, b.knownMax = r.hi.known;
    bounds.push_back(std::move(b));
  }
  return bounds;
}

namespace {

/// The value of a manifest expression that is a plain number.
std::optional<int64_t> number(const std::string &text) {
  int64_t v;
  if (llvm::StringRef(text).getAsInteger(10, v))
    return std::nullopt;
  return v;
}

/// A tensor parameter's elements when its shape is constant.
std::optional<int64_t> constantElements(const fe::ParamDecl &p) {
  int64_t numel = 1;
  for (const fe::ExprPtr &d : p.shape) {
    std::optional<int64_t> n = number(fe::manifestExpr(*d));
    if (!n || __builtin_mul_overflow(numel, *n, &numel))
      return std::nullopt;
  }
  return numel;
}

} // namespace

bool moduleAccessBounds(ModuleOp module, const fe::Module &mod,
                        const std::map<std::string, std::vector<std::string>> &symbols,
                        const VariantBodies &bodies,
                        std::map<std::string, std::vector<AccessBound>> &out) {
  bool ok = true;
  for (const fe::KernelDecl &k : mod.kernels()) {
    std::vector<std::string> names;
    for (const fe::ParamDecl &p : k.params) {
      const fe::Type &t = p.var->type;
      names.push_back(!t.isPointer() && fe::isSigned(t.elem.scalar) ? p.var->name : "");
    }
    for (const std::string &symbol : symbols.at(k.name)) {
      auto func = module.lookupSymbol<func::FuncOp>(symbol);
      if (!func)
        continue;
      // A variant's body holds its constants, and so its grid.
      auto body = bodies.find(symbol);
      const fe::KernelDecl *decl = body != bodies.end() ? body->second : &k;
      std::array<std::optional<int64_t>, 3> grid = {1, 1, 1};
      for (size_t d = 0; d < decl->grid.size() && d < 3; ++d)
        grid[d] = number(fe::manifestExpr(*decl->grid[d]));
      std::vector<AccessBound> bounds = accessBounds(func, names, grid);
      for (const AccessBound &b : bounds) {
        std::optional<int64_t> numel = constantElements(k.params[b.param]);
        if (!numel || !b.knownMin || !b.knownMax || (*b.knownMin >= 0 && *b.knownMax < *numel))
          continue;
        const std::string &name = k.params[b.param].var->name;
        bool before = *b.knownMin < 0;
        Location loc = before ? b.minLoc : b.loc;
        InFlightDiagnostic diag = emitError(loc);
        diag << (before ? b.minAccess : b.access) << " through '" << name << "' reaches element "
             << (before ? *b.knownMin : *b.knownMax) << ", "
             << (before ? "before its first" : "past its " + std::to_string(*numel) + " elements");
        if (b.masked)
          diag.attachNote(loc) << tile::kHintPrefix
                               << "its mask lets it through there: compare the offsets with the "
                                  "tensor's own extents";
        else
          diag.attachNote(loc) << tile::kHintPrefix
                               << "mask the access (load(p, mask, other), store(p, v, mask)) or "
                                  "keep its offsets within the tensor's shape";
        ok = false;
      }
      out[symbol] = std::move(bounds);
    }
  }
  return ok;
}

} // namespace megac
