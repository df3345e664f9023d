//===- AccessBoundsAnalysis.h - The analysis behind AccessBounds.h -*- C++ -*-===//
//
// Offsets as affine forms over atoms (tile dimensions, program ids, their
// quotients and remainders, loop trips), masks as constraints on them, and
// the analysis that turns one access into the elements it reaches. Shared by
// AccessBounds.cpp (offsets, loops, pointers, the module) and
// AccessBoundsMasks.cpp (masks, a program id's quotient and remainder).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "BoundExpr.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <array>
#include <vector>

namespace megac::bounds {

using namespace mlir;

/// What an offset term varies with: an index along a dimension of the
/// access's tile, a program id, the quotient or remainder of a program id by
/// a scalar (`program_id(0) / H`, `program_id(0) % H`: a grid of B * H
/// programs read as B rows of H), that remainder's quotient by another scalar
/// (`program_id(0) % HV / (HV / HK)`: a key head shared by value heads), or
/// the trip of a loop.
struct Atom {
  enum Kind { Dim, ProgramId, Quotient, Remainder, RemainderQuotient, Trip } kind;
  int64_t index = 0;            // the dimension or the grid axis
  Operation *loop = nullptr;    // Trip: the scf.for
  Sym divisor = Sym::lit(0);    // Quotient, Remainder, RemainderQuotient: the program id's divisor
  Sym subDivisor = Sym::lit(1); // RemainderQuotient: the remainder's divisor
  bool operator==(const Atom &o) const {
    return kind == o.kind && index == o.index && loop == o.loop && divisor.full() == o.divisor.full() &&
           subDivisor.full() == o.subDivisor.full();
  }
  /// Reads the program id along `axis`: itself, its quotient or remainder.
  bool readsGrid(int64_t axis) const {
    return index == axis &&
           (kind == ProgramId || kind == Quotient || kind == Remainder || kind == RemainderQuotient);
  }
  /// A remainder of a program id, or a quotient of one.
  bool remainderLike() const { return kind == Remainder || kind == RemainderQuotient; }
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

inline Affine plus(const Affine &a, const Affine &b, bool minus) {
  Affine r = a;
  r.base = minus ? sub(a.base, b.base) : add(a.base, b.base);
  for (const auto &[atom, c] : b.terms)
    r.addTerm(atom, minus ? mul(Sym::lit(-1), c) : c);
  return r;
}

inline Affine scaled(const Affine &a, const Sym &k) {
  Affine r;
  r.base = mul(a.base, k);
  for (const auto &[atom, c] : a.terms)
    r.terms.push_back({atom, mul(c, k)});
  return r;
}

/// `a` with a dimension of size 1 inserted at `axis`.
inline Affine expanded(Affine a, int64_t axis) {
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

inline bool sameTerms(const std::vector<std::pair<Atom, Sym>> &a, const std::vector<std::pair<Atom, Sym>> &b) {
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
inline int64_t elementBytes(Type ptr) {
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

} // namespace megac::bounds
