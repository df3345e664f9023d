//===- SemaTileOps.cpp - Typing bitcast, trans, dot, with_layout ----------===//
//
// The builtins that reinterpret or rearrange a tile rather than compute on
// its elements.
//
//===----------------------------------------------------------------------===//
#include "frontend/Builtins.h"
#include "frontend/Diagnostics.h"
#include "frontend/Sema.h"

#include <algorithm>

namespace megac::fe {

// bitcast(x, T): the bits of x (a scalar or tile of numbers) read as T, an
// arithmetic type of the same width (e.g. f32 <-> i32 to build powers of two);
// or a scalar pointer read as a pointer to another type (the same address).
void Sema::checkBitcast(CallExpr &c) {
  if (!bindArgs(c, {"x", "dtype"}, 2))
    return;
  ExprPtr &x = c.args[0].value;
  auto *dtype = dyn_cast<TypeArgExpr>(c.args[1].value.get());
  if (!dtype) {
    error(c.args[1].value->range, "bitcast expects a type as its 2nd argument",
          "bitcast(x, i32)");
    return;
  }
  if (!resolveTypeRef(dtype->typeRef))
    return;
  checkExpr(x);
  if (x->type.isInvalid())
    return;
  if (x->type.isUntyped()) {
    error(x->range, "bitcast needs a typed value, got " + x->type.str(),
          "give the literal a type first, e.g. (1.0 as f32)");
    return;
  }
  if (!dtype->typeRef.tileDims.empty()) {
    error(c.args[1].value->range, "bitcast takes an element type, got a tile type",
          "x keeps its shape: bitcast(x, i32)");
    return;
  }
  ElementType to = dtype->typeRef.elem;
  const ElementType &from = x->type.elem;
  if (from.isPointer || to.isPointer) {
    checkPointerBitcast(c, to);
    return;
  }
  bool arithmetic = [](const ElementType &e) {
    return !e.isPointer && (isInteger(e.scalar) || isFloat(e.scalar));
  }(from) && !to.isPointer && (isInteger(to.scalar) || isFloat(to.scalar));
  if (!arithmetic || bitWidth(from.scalar) != bitWidth(to.scalar)) {
    error(c.range,
          "cannot bitcast " + x->type.str() + " to " + to.str(),
          "bitcast keeps the bits: both types must be integers or floats of one width");
    return;
  }
  c.args.resize(1);
  c.type = x->type.withElem(to);
}

// bitcast(p, *T): p's address as a pointer to T, whose offsets then count in
// T's elements (e.g. three bf16 values a channel read as one 8-byte word per
// four channels). Only a scalar pointer: offsets are added after the cast.
void Sema::checkPointerBitcast(CallExpr &c, const ElementType &to) {
  ExprPtr &x = c.args[0].value;
  if (!x->type.elem.isPointer || !to.isPointer) {
    error(c.range, "cannot bitcast " + x->type.str() + " to " + to.str(),
          "bitcast reads a pointer as another pointer, or a number as a number of one width");
    return;
  }
  if (x->type.isTile()) {
    error(x->range, "bitcast reads a scalar pointer as another pointer type, got " + x->type.str(),
          "bitcast the base pointer, then add the offsets: bitcast(p, " + to.str() + ") + offs");
    return;
  }
  c.args.resize(1);
  c.type = x->type.withElem(to);
}

} // namespace megac::fe

namespace megac::fe {

// trans(x): a 2-D tile with its dimensions swapped.
void Sema::checkTrans(CallExpr &c) {
  if (!bindAndCheck(c, {"x"}, 1))
    return;
  ExprPtr &x = c.args[0].value;
  if (!x->type.isTile() || x->type.rank() != 2) {
    error(x->range, "trans swaps the dimensions of a 2-D tile, got " + x->type.str(),
          "reshape it to 2-D first");
    return;
  }
  c.type = x->type.withShape({x->type.shape[1], x->type.shape[0]});
}

// dot(a, b, acc?): the shapes and types mma.sync m16n8k16 takes (whether the
// kernel's warps can tile the result is checked by tile-assign-layouts, which
// sees every dot of the kernel).
void Sema::checkDot(CallExpr &c) {
  if (!bindAndCheck(c, {"a", "b", "acc"}, 2))
    return;
  ExprPtr &a = c.args[0].value;
  ExprPtr &b = c.args[1].value;
  ExprPtr &acc = c.args[2].value;
  for (ExprPtr *x : {&a, &b}) {
    const Type &t = (*x)->type;
    if (!t.isTile() || t.rank() != 2) {
      error((*x)->range, "dot multiplies 2-D tiles, got " + t.str(),
            "a row is [1, K]: x[None, :], or reshape");
      return;
    }
    if (t.elem.isPointer ||
        (t.elem.scalar != ScalarKind::BF16 && t.elem.scalar != ScalarKind::F16)) {
      error((*x)->range, "dot takes bf16 or f16 operands, got " + t.str(),
            "cast it: (x as bf16); the products are summed in f32");
      return;
    }
  }
  if (a->type.elem != b->type.elem) {
    error(c.range, "dot operands differ in type: " + a->type.str() + " and " + b->type.str(),
          "cast one of them");
    return;
  }
  int64_t M = a->type.shape[0], K = a->type.shape[1], N = b->type.shape[1];
  if (b->type.shape[0] != K) {
    error(c.range,
          "dot needs a [M, K] and b [K, N], got a " + shapeStr(a->type.shape) + " and b " +
              shapeStr(b->type.shape),
          b->type.shape[1] == K ? "b holds [N, K]: write dot(a, trans(b))"
                                : "a's columns and b's rows are the summed dimension");
    return;
  }
  if (M % 16 != 0 || N % 8 != 0 || K % 16 != 0) {
    error(c.range,
          "dot works on 16 x 8 x 16 blocks: M = " + std::to_string(M) +
              " must be a multiple of 16, N = " + std::to_string(N) + " of 8, K = " +
              std::to_string(K) + " of 16",
          "pad the tiles (load rows past the end with a mask and other = 0.0)");
    return;
  }
  Type result = Type::value({ScalarKind::F32, false}, {M, N});
  if (acc && (!acc->type.isTile() || acc->type.elem != result.elem ||
              acc->type.shape != result.shape)) {
    error(acc->range, "dot's accumulator must be " + result.str() + ", got " + acc->type.str(),
          "accumulate in f32 (zeros(M, N, f32)), or leave it out");
    return;
  }
  c.type = result;
}

// with_layout(x, spt0 = .., tpw0 = .., wpc0 = .., [order0 = ..], ...): x placed
// in an explicit blocked layout, one entry per dimension of x for each of
// spt, tpw and wpc; order defaults to the last dimension fastest. Each entry
// is checked here, where the caret can point at it, and so are the lanes (all
// tpw multiply to 32), which no variant changes: also in an `if` branch on a
// compile-time constant that this variant does not take, which never reaches
// the IR. The kernel's warps, which a variant may change, are checked with
// the IR.
void Sema::checkWithLayout(CallExpr &c) {
  static const char *kFields[] = {"spt", "tpw", "wpc", "order"};
  static const char *kOrderHint = "order lists the dimensions fastest first: order0 = 1, "
                                  "order1 = 0 (the default) walks a row before the next";
  std::vector<std::string> names{"x"};
  for (const char *f : kFields)
    for (int d = 0; d < 3; ++d)
      names.push_back(std::string(f) + std::to_string(d));
  std::vector<const char *> cnames;
  for (const std::string &n : names)
    cnames.push_back(n.c_str());
  if (!bindArgs(c, cnames, 1))
    return;
  ExprPtr &x = c.args[0].value;
  checkExpr(x);
  if (x->type.isInvalid())
    return;
  if (!x->type.isTile()) {
    error(x->range, "with_layout places a tile, got " + x->type.str());
    return;
  }
  size_t rank = x->type.rank();
  std::vector<int64_t> layout;
  for (size_t f = 0; f < 4; ++f)
    for (size_t d = 0; d < 3; ++d) {
      ExprPtr &v = c.args[1 + f * 3 + d].value;
      std::string name = names[1 + f * 3 + d];
      if (d >= rank) {
        if (v) {
          error(v->range, "'" + name + "' names a dimension " + x->type.str() + " does not have");
          return;
        }
        continue;
      }
      if (!v) {
        if (f == 3) { // order: the last dimension fastest
          layout.push_back(int64_t(rank - 1 - d));
          continue;
        }
        error(c.range, "with_layout of " + x->type.str() + " needs '" + name + "'",
              "give spt, tpw and wpc for every dimension, e.g. with_layout(x, spt0 = 1, "
              "spt1 = 4, tpw0 = 4, tpw1 = 8, wpc0 = 4, wpc1 = 1)");
        return;
      }
      std::optional<int64_t> value = constInt(v, name.c_str());
      if (!value)
        return;
      if (f < 3 && (*value < 1 || *value > 4096 || (*value & (*value - 1)) != 0)) {
        static const char *kMeaning[] = {"elements a thread holds",
                                         "lanes (all tpw multiply to 32)",
                                         "warps (all wpc multiply to the kernel's num_warps)"};
        error(v->range,
              "'" + name + "' must be a power of two from 1 to 4096, got " + std::to_string(*value),
              "'" + name + "' counts the " + kMeaning[f] + " along dimension " + std::to_string(d));
        return;
      }
      if (f == 3 && (*value < 0 || *value >= int64_t(rank))) {
        error(v->range,
              "'" + name + "' must name a dimension of " + x->type.str() + ", 0 to " +
                  std::to_string(rank - 1) + ", got " + std::to_string(*value),
              kOrderHint);
        return;
      }
      if (f == 3 && std::find(layout.begin() + 3 * rank, layout.end(), *value) != layout.end()) {
        error(v->range,
              "'" + name + "' repeats dimension " + std::to_string(*value) +
                  ": order lists each once",
              kOrderHint);
        return;
      }
      layout.push_back(*value);
    }
  int64_t lanes = 1;
  for (size_t d = 0; d < rank; ++d)
    lanes *= layout[rank + d];
  if (lanes != 32) {
    error(c.range, "invalid layout: tpw must multiply to 32 (lanes in a warp), got " + std::to_string(lanes),
          "tpw0, tpw1, ... spread a warp's 32 lanes over the dimensions: tpw0 = 32 for one, "
                "e.g. tpw0 = 4, tpw1 = 8 for two");
    return;
  }
  c.layout = layout;
  c.type = x->type;
  c.args.resize(1);
}

} // namespace megac::fe
