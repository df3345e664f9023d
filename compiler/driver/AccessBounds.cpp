//===- AccessBounds.cpp - Which elements a kernel's accesses reach --------===//
#include "AccessBounds.h"
#include "AccessBoundsAnalysis.h"

#include "frontend/ASTPrinter.h"
#include "megac/runtime/manifest.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace megac {
namespace bounds {

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
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    // On a constant (a variant's `where(FLAG == 1, a, b)`): the value it picks.
    auto cond = select.getCondition().getDefiningOp<arith::ConstantOp>();
    auto flag = cond ? dyn_cast<IntegerAttr>(cond.getValue()) : IntegerAttr();
    if (!flag)
      return std::nullopt;
    return affine(flag.getValue().isZero() ? select.getFalseValue() : select.getTrueValue());
  }
  if (isa<arith::DivSIOp, arith::RemSIOp>(def)) {
    std::optional<Affine> l = affine(def->getOperand(0)), r = affine(def->getOperand(1));
    if (!l || !r || !r->scalar())
      return std::nullopt;
    bool remainder = isa<arith::RemSIOp>(def);
    if (l->scalar())
      return Affine{divide(l->base, r->base, remainder), {}};
    // A program id itself by a scalar, or the quotient of its remainder: a
    // term of its own. Of anything else varying, a quotient is not affine.
    if (l->terms.size() != 1 || l->base.literal() != 0 || l->terms[0].second.literal() != 1 ||
        r->base.overflow)
      return std::nullopt;
    const Atom &of = l->terms[0].first;
    Affine a;
    if (of.kind == Atom::ProgramId)
      a.addTerm(Atom{remainder ? Atom::Remainder : Atom::Quotient, of.index, nullptr, r->base}, Sym::lit(1));
    else if (of.kind == Atom::Remainder && !remainder)
      a.addTerm(Atom{Atom::RemainderQuotient, of.index, nullptr, of.divisor, r->base}, Sym::lit(1));
    else
      return std::nullopt;
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
  case Atom::RemainderQuotient: // 0 to (min(divisor, programs) - 1) / subDivisor, every one
    return add(divide(sub(extent(Atom{Atom::Remainder, atom.index, nullptr, atom.divisor}, shape), Sym::lit(1)),
                      atom.subDivisor, false),
               Sym::lit(1));
  case Atom::Trip:
    return loops[atom.loop]->trips;
  }
  return Sym::lit(1);
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
  static const std::vector<Constraint> unmasked;
  if (!gridTermsApart(rest, cs ? *cs : unmasked, when, runs)) // no copy of the constraints
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

} // namespace bounds

using namespace bounds;

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
