//===- BoundExpr.h - Integers of the runtime's expression grammar -*- C++ -*-===//
//
// The access bounds (AccessBounds.h) are written as runtime expressions
// (runtime/include/megac/runtime/expr.h) over the integer scalars and the
// grid: Sym builds them as text with a literal addend kept apart, folding
// literals, and tracks the value where only the grid's constant dimensions
// enter it (for compile-time errors) and whether a literal overflowed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>

namespace megac::bounds {

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
inline bool addOv(int64_t a, int64_t b, int64_t *r) { return __builtin_add_overflow(a, b, r); }
inline bool subOv(int64_t a, int64_t b, int64_t *r) { return __builtin_sub_overflow(a, b, r); }
inline bool mulOv(int64_t a, int64_t b, int64_t *r) { return __builtin_mul_overflow(a, b, r); }

/// A value computed from `text` alone (no addend of its own).
inline Sym opaque(std::string text, int prec, std::optional<int64_t> known, bool overflow) {
  return Sym{std::move(text), prec, 0, known, overflow};
}

inline Sym add(const Sym &a, const Sym &b) {
  Sym r;
  r.text = a.text.empty() ? b.text : b.text.empty() ? a.text : a.text + " + " + b.text;
  r.prec = a.text.empty() ? b.prec : b.text.empty() ? a.prec : 2;
  r.overflow = a.overflow || b.overflow || addOv(a.addend, b.addend, &r.addend);
  r.known = both(a.known, b.known, addOv);
  return r;
}

/// -a: a's text negated ("-n", "-(n + m)"), its addend likewise.
inline Sym neg(const Sym &a) {
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

inline Sym sub(const Sym &a, const Sym &b) {
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
inline Sym scaledBy(const Sym &a, int64_t k) {
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

inline Sym mul(const Sym &a, const Sym &b) {
  if (b.literal())
    return scaledBy(a, *b.literal());
  if (a.literal())
    return scaledBy(b, *a.literal());
  return opaque(a.wrapped(1) + " * " + b.wrapped(0), 1, both(a.known, b.known, mulOv),
                a.overflow || b.overflow);
}

/// a / b or a % b, truncating (as arith.divsi and remsi, and the runtime).
inline Sym divide(const Sym &a, const Sym &b, bool remainder) {
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

inline Sym call(const char *fn, const Sym &a, const Sym &b, std::optional<int64_t> known) {
  return opaque(std::string(fn) + "(" + a.full() + ", " + b.full() + ")", 0, known, a.overflow || b.overflow);
}

inline Sym minOf(const Sym &a, const Sym &b) {
  auto f = [](int64_t x, int64_t y, int64_t *r) { return *r = std::min(x, y), false; };
  if (a.literal() && b.literal())
    return Sym::lit(std::min(a.addend, b.addend));
  return call("min", a, b, both(a.known, b.known, f));
}

inline Sym maxOf(const Sym &a, const Sym &b) {
  auto f = [](int64_t x, int64_t y, int64_t *r) { return *r = std::max(x, y), false; };
  if (a.literal() && b.literal())
    return Sym::lit(std::max(a.addend, b.addend));
  return call("max", a, b, both(a.known, b.known, f));
}

/// ceil(a / b) for a > 0 and a literal b > 0.
inline Sym cdiv(const Sym &a, int64_t b) {
  auto f = [](int64_t x, int64_t y, int64_t *r) { return *r = x / y + (x % y > 0), false; };
  if (b == 1)
    return a;
  if (a.literal())
    return Sym::lit(a.addend / b + (a.addend % b > 0));
  return call("cdiv", a, Sym::lit(b), both(a.known, std::optional<int64_t>(b), f));
}

} // namespace megac::bounds
