//===- SemaBuiltins.cpp - Typing builtin calls ----------------------------===//
//
// Each builtin binds its (positional or keyword) arguments into the
// canonical order documented in Builtins.h, checks them, and computes its
// result type. Compile-time operands (axes, shapes, arange bounds) move
// into CallExpr fields.
//
//===----------------------------------------------------------------------===//
#include "frontend/Builtins.h"
#include "frontend/ConstFold.h"
#include "frontend/Diagnostics.h"
#include "frontend/EditDistance.h"
#include "frontend/HabitHints.h"
#include "frontend/Sema.h"

namespace megac::fe {

void Sema::checkCall(ExprPtr &e) {
  auto *c = cast<CallExpr>(e.get());
  if (c->callee == "cast")
    return checkCastCall(e);
  if (auto it = helpers_.find(c->callee); it != helpers_.end())
    return inlineHelper(e, *it->second);
  c->builtin = lookupBuiltin(c->callee);
  if (c->builtin == Builtin::None) {
    std::vector<std::string> names = allBuiltinNames();
    for (const auto &[name, h] : helpers_)
      names.push_back(name);
    std::string hint = hintForUnknownFunction(c->callee);
    if (hint.empty())
      hint = didYouMean(c->callee, names);
    error(c->calleeRange, "unknown function " + quoted(c->callee.substr(0, 64)),
          hint);
    return;
  }
  checkBuiltin(*c);
}

bool Sema::bindArgs(CallExpr &c, const std::vector<const char *> &names,
                    size_t required) {
  std::vector<CallArg> out(names.size());
  size_t positional = 0;
  bool sawKeyword = false;
  for (CallArg &a : c.args) {
    if (a.name.empty()) {
      if (sawKeyword) {
        error(a.value->range, "positional argument after a keyword argument");
        return false;
      }
      if (positional >= names.size()) {
        error(a.value->range, quoted(c.callee) + " takes at most " +
                                  std::to_string(names.size()) + " arguments");
        return false;
      }
      out[positional++].value = std::move(a.value);
      continue;
    }
    sawKeyword = true;
    size_t idx = 0;
    while (idx < names.size() && a.name != names[idx])
      ++idx;
    if (idx == names.size()) {
      error(a.nameRange, quoted(c.callee) + " has no parameter " + quoted(a.name),
            didYouMean(a.name, std::vector<std::string>(names.begin(), names.end())));
      return false;
    }
    if (out[idx].value) {
      error(a.nameRange, "argument " + quoted(a.name) + " is given twice");
      return false;
    }
    out[idx].value = std::move(a.value);
  }
  c.args = std::move(out);
  for (size_t i = 0; i < required; ++i)
    if (!c.args[i].value) {
      error(c.range, quoted(c.callee) + " needs argument " + quoted(names[i]));
      return false;
    }
  return true;
}

/// Binds the arguments (bindArgs) and checks every one given; false if any
/// is missing, invalid or has no value.
bool Sema::bindAndCheck(CallExpr &c, const std::vector<const char *> &names,
                        size_t required) {
  if (!bindArgs(c, names, required))
    return false;
  for (CallArg &a : c.args)
    if (a.value)
      checkExpr(a.value);
  for (CallArg &a : c.args)
    if (a.value && (a.value->type.isInvalid() || a.value->type.isVoid()))
      return false;
  return true;
}

void Sema::checkBuiltin(CallExpr &c) {
  switch (c.builtin) {
  case Builtin::ProgramId:
  case Builtin::NumPrograms: {
    if (!bindArgs(c, {"axis"}, 1))
      return;
    std::optional<int64_t> axis = constInt(c.args[0].value, "the axis");
    if (!axis)
      return;
    if (*axis < 0 || *axis > 2) {
      error(c.args[0].value->range,
            "axis must be 0, 1 or 2, got " + std::to_string(*axis));
      return;
    }
    c.axis = static_cast<int>(*axis);
    c.args.clear();
    c.type = Type::scalar(ScalarKind::I32);
    return;
  }
  case Builtin::Arange: {
    if (!bindArgs(c, {"start", "end"}, 2))
      return;
    std::optional<int64_t> start = constInt(c.args[0].value, "arange start");
    std::optional<int64_t> end = constInt(c.args[1].value, "arange end");
    if (!start || !end)
      return;
    // The tile IR (and the axis analysis) take the range as non-negative:
    // a negative start reached the verifier as a huge unsigned bound.
    if (*end <= *start || *start < 0 || !intFits(*end, ScalarKind::I32)) {
      error(c.range, "arange(" + std::to_string(*start) + ", " +
                         std::to_string(*end) +
                         ") needs 0 <= start < end, in i32 range");
      return;
    }
    std::vector<int64_t> shape{*end - *start};
    if (!checkTileShape(c.range, shape))
      return;
    c.start = *start;
    c.shape = shape;
    c.args.clear();
    c.type = Type::value({ScalarKind::I32, false}, shape);
    return;
  }
  case Builtin::Zeros:
  case Builtin::Full:
    return checkFactory(c);
  case Builtin::Load:
    return checkLoad(c);
  case Builtin::Store:
  case Builtin::AtomicAdd:
  case Builtin::AtomicMax:
    return checkMemoryOp(c);
  case Builtin::Fma:
    return checkElementwise(c, /*floatOnly=*/true);
  case Builtin::Minimum:
  case Builtin::Maximum: {
    bool reduce = c.args.size() == 1;
    for (const CallArg &a : c.args)
      reduce |= a.name == "axis";
    if (reduce) {
      c.builtin = c.builtin == Builtin::Minimum ? Builtin::ReduceMin
                                                : Builtin::ReduceMax;
      return checkReduction(c);
    }
    return checkElementwise(c, /*floatOnly=*/false);
  }
  case Builtin::Where:
    return checkWhere(c);
  case Builtin::Cdiv:
    return checkCdiv(c);
  case Builtin::Sum:
  case Builtin::ReduceMax:
  case Builtin::ReduceMin:
  case Builtin::Argmax:
  case Builtin::Argmin:
    return checkReduction(c);
  case Builtin::Reshape:
  case Builtin::BroadcastTo:
  case Builtin::ExpandDims:
    return checkShapeBuiltin(c);
  case Builtin::QuantizeNvfp4:
  case Builtin::Nvfp4Scales:
  case Builtin::QuantizeMxfp4:
  case Builtin::Mxfp4Scales:
    return checkQuantize(c);
  case Builtin::Bitcast:
    return checkBitcast(c);
  case Builtin::WithLayout:
    return checkWithLayout(c);
  case Builtin::Trans:
    return checkTrans(c);
  case Builtin::Dot:
    return checkDot(c);
  case Builtin::DequantizeNvfp4:
  case Builtin::DequantizeMxfp4:
    return checkDequantize(c);
  case Builtin::QuantizeFp8:
  case Builtin::QuantizeFp8Group:
  case Builtin::Fp8GroupScales:
    return checkQuantizeFp8(c);
  case Builtin::DequantizeFp8:
  case Builtin::DequantizeFp8Group:
    return checkDequantizeFp8(c);
  case Builtin::WaitPriorKernel:
    return checkWaitPriorKernel(c);
  case Builtin::LaunchDependents:
    return checkLaunchDependents(c);
  case Builtin::None:
    return;
  default:
    if (isUnaryMath(c.builtin))
      return checkUnaryMath(c);
  }
}

/// `ptr` must be a pointer (scalar or tile); reports otherwise.
static bool requirePointer(DiagnosticEngine &diags, const CallExpr &c,
                           const Expr &ptr) {
  if (ptr.type.isPointer())
    return true;
  diags.error(ptr.range,
              quoted(c.callee) + " expects a pointer, got " + ptr.type.str(),
              "pointers are kernel params of type *T, offset with +");
  return false;
}

static bool requireMask(DiagnosticEngine &diags, const Expr *mask) {
  if (!mask || mask->type.isBoolLike())
    return true;
  diags.error(mask->range, "mask must be i1, got " + mask->type.str(),
              "compare to make a mask: offs < n");
  return false;
}

void Sema::checkLoad(CallExpr &c) {
  if (!bindAndCheck(c, {"ptr", "mask", "other"}, 1))
    return;
  ExprPtr &ptr = c.args[0].value;
  ExprPtr &mask = c.args[1].value;
  ExprPtr &other = c.args[2].value;
  if (!requirePointer(diags_, c, *ptr) || !requireMask(diags_, mask.get()))
    return;
  ElementType pointee{ptr->type.elem.scalar, false};
  std::vector<int64_t> shape = ptr->type.shape;
  if (mask && !broadcastShapes(ptr->type.shape, mask->type.shape, shape)) {
    error(mask->range, "mask shape " + shapeStr(mask->type.shape) +
                           " does not match pointer shape " +
                           shapeStr(ptr->type.shape));
    return;
  }
  if (other) {
    if (!adapt(other, pointee))
      return;
    std::vector<int64_t> s;
    if (other->type.elem != pointee) {
      error(other->range,
            "'other' is " + other->type.str() + " but the load gives " +
                pointee.str(),
            "cast it: (value as " + pointee.str() + ")");
      return;
    }
    if (!broadcastShapes(other->type.shape, shape, s) || s != shape) {
      error(other->range, "'other' shape " + shapeStr(other->type.shape) +
                              " does not match the load shape " +
                              shapeStr(shape));
      return;
    }
    broadcastTo(other, shape);
  }
  broadcastTo(ptr, shape);
  if (mask)
    broadcastTo(mask, shape);
  c.type = Type::value(pointee, shape);
}

void Sema::checkMemoryOp(CallExpr &c) {
  if (kernel_ && kernel_->earlyLaunch && !kernel_->explicitWait && !firstWrite_)
    firstWrite_ = c.range;
  bool store = c.builtin == Builtin::Store;
  if (!bindAndCheck(c, store ? std::vector<const char *>{"ptr", "value", "mask", "streaming"}
                             : std::vector<const char *>{"ptr", "value", "mask"},
                    2))
    return;
  if (store) {
    if (ExprPtr &streaming = c.args[3].value) {
      const Expr &e = *streaming;
      if (!e.constValue || !e.constValue->isInt() || !e.type.isIntLike() ||
          (e.constValue->i != 0 && e.constValue->i != 1)) {
        error(e.range, "'streaming' must be the compile-time integer 0 or 1",
              "streaming = 1 stores with st.global.cs (evict first): for data that no kernel "
              "reads back soon");
        return;
      }
      c.streaming = e.constValue->i == 1;
    }
    c.args.resize(3);
  }
  ExprPtr &ptr = c.args[0].value;
  ExprPtr &value = c.args[1].value;
  ExprPtr &mask = c.args[2].value;
  if (!requirePointer(diags_, c, *ptr) || !requireMask(diags_, mask.get()))
    return;
  ElementType pointee{ptr->type.elem.scalar, false};
  if (!adapt(value, pointee))
    return;
  if (value->type.elem != pointee) {
    error(value->range,
          quoted(c.callee) + " of " + value->type.str() + " through " +
              ptr->type.str(),
          "cast the value: (value as " + pointee.str() + ")");
    return;
  }
  if (c.builtin != Builtin::Store &&
      (isStorageOnly(pointee.scalar) || isBool(pointee.scalar))) {
    error(ptr->range, quoted(c.callee) + " does not support " + pointee.str());
    return;
  }
  // The atomics that lower to one PTX instruction: red/atom.add on f32 and
  // i32, atom.max on i32 (a float max has no single instruction).
  bool i32 = pointee.scalar == ScalarKind::I32;
  if ((c.builtin == Builtin::AtomicAdd && !i32 && pointee.scalar != ScalarKind::F32) ||
      (c.builtin == Builtin::AtomicMax && !i32)) {
    error(c.range,
          quoted(c.callee) + " supports " +
              (c.builtin == Builtin::AtomicAdd ? "f32 and i32" : "i32") +
              " values, got " + value->type.str(),
          c.builtin == Builtin::AtomicMax && pointee.scalar == ScalarKind::F32
              ? "for a float max, reduce in the kernel and store, or atomic_max the bits of "
                "non-negative floats as i32"
              : "");
    return;
  }
  std::vector<int64_t> shape;
  if (!broadcastShapes(ptr->type.shape, value->type.shape, shape) ||
      (mask && !broadcastShapes(shape, mask->type.shape,
                                shape))) {
    error(c.range, "shapes of pointer " + shapeStr(ptr->type.shape) +
                       ", value " + shapeStr(value->type.shape) +
                       (mask ? ", mask " + shapeStr(mask->type.shape) : "") +
                       " do not broadcast together");
    return;
  }
  if (c.builtin == Builtin::Store && !checkStoreTargets(c, *ptr, *value, mask.get()))
    return;
  broadcastTo(ptr, shape);
  broadcastTo(value, shape);
  if (mask)
    broadcastTo(mask, shape);
  c.type = c.builtin == Builtin::Store ? Type::voidTy()
                                       : Type::value(pointee, shape);
}

// A store whose value varies along a dim its pointer does not (`store(out, t)`
// with a scalar `out`, the offsets forgotten) writes different values to one
// address: one of them lands, which one is not defined. Refused unless a mask
// that varies along that dim may leave one element there (`store(p, t, i ==
// 0)`); a value replicated along it (`v[:, None]` broadcast) writes the same
// value each time, which is fine. Atomics combine such elements: not checked.
bool Sema::checkStoreTargets(const CallExpr &c, const Expr &ptr, const Expr &value,
                             const Expr *mask) {
  auto extent = [](const std::vector<int64_t> &shape, size_t fromRight) -> int64_t {
    return fromRight < shape.size() ? shape[shape.size() - 1 - fromRight] : 1;
  };
  const auto &vs = value.type.shape;
  int64_t perAddress = 1;
  for (size_t d = 0; d < vs.size(); ++d)
    if (extent(ptr.type.shape, d) == 1 && extent(vs, d) > 1 &&
        !(mask && extent(mask->type.shape, d) > 1))
      perAddress *= extent(vs, d);
  if (perAddress == 1)
    return true;
  error(c.range,
        "store writes " + std::to_string(perAddress) + " elements of " + value.type.str() +
            " to each address of " +
            (ptr.type.shape.empty() ? "its scalar pointer" : ptr.type.str()) +
            ": one of them lands, which one is not defined",
        "offset the pointer along every dim of the value (ptr + offs), reduce the value "
        "first (sum(v, axis = 0)), or mask all but one element");
  return false;
}

// A statement of an @early_launch kernel's own body, run once by every thread
// that goes on: outside for, helpers and `if`s on runtime values. An `if` on
// a compile-time constant is decided here (a variant may move the call by a
// constant): in the branch not taken the call is no call.
bool Sema::checkKernelLevelStatement(CallExpr &c, const char *name) {
  if (!bindArgs(c, {}, 0))
    return false;
  c.type = Type::voidTy();
  std::string call = std::string(name) + "()";
  if (!kernel_->earlyLaunch) {
    error(c.range, call + " in a kernel without @early_launch",
          "add @early_launch to the kernel (it is launched before the prior kernel ends and "
          "waits for it), or remove the call");
    return false;
  }
  bool allowed = !fn_.inHelper, runs = true;
  for (const Region &r : fn_.regions) {
    allowed = allowed && r.taken.has_value();
    runs = runs && r.taken.value_or(false);
  }
  if (!allowed) {
    error(c.range, call + " must be a statement of the kernel's body, outside for, "
                   "helpers and if on a runtime value",
          "every thread must run it exactly once: move it to the kernel's top level (an if on a "
          "compile-time constant may hold it)");
    return false;
  }
  return runs;
}

// A kernel-level statement (above) that a kernel makes at most once: sets
// `called` when this call runs; a second running call is an error.
bool Sema::checkOnceAtKernelLevel(CallExpr &c, const char *name, bool &called) {
  if (!checkKernelLevelStatement(c, name))
    return false;
  if (called) {
    error(c.range, std::string(name) + "() is called twice", "keep the first call");
    return false;
  }
  called = true;
  return true;
}

// wait_prior_kernel(): where an @early_launch kernel waits for the kernel
// launched before it (griddepcontrol.wait). Loads above it overlap that
// kernel; so it must run exactly once in every thread that goes on (a
// statement of the kernel's own body, outside for, helpers and `if`s on
// runtime values), and no store or atomic may come before it (the prior
// kernel may still read or write that memory). Without a call that runs, the
// kernel waits at entry.
void Sema::checkWaitPriorKernel(CallExpr &c) {
  if (!checkOnceAtKernelLevel(c, "wait_prior_kernel", kernel_->explicitWait))
    return;
  if (firstWrite_)
    error(*firstWrite_, "store or atomic before wait_prior_kernel() in an @early_launch kernel",
          "the prior kernel may still read or write this memory: move the store after the "
          "wait (loads may stay above it)");
  firstWrite_.reset();
}

// launch_dependents(): from here on the next kernel on the stream, if it is
// launched early, may start (griddepcontrol.launch_dependents), instead of
// once this kernel's wait has passed. Above the wait it lets that kernel start
// while the kernel before this one still runs: the next kernel's loads above
// its own wait must then read nothing either of the two writes.
void Sema::checkLaunchDependents(CallExpr &c) {
  checkOnceAtKernelLevel(c, "launch_dependents", kernel_->explicitTrigger);
}

void Sema::checkUnaryMath(CallExpr &c) {
  if (!bindAndCheck(c, {"x"}, 1))
    return;
  ExprPtr &x = c.args[0].value;
  if (x->type.isUntyped())
    adapt(x, {ScalarKind::F32, false});
  if (!x->type.isFloatLike()) {
    error(x->range,
          c.callee + " expects a floating-point value, got " + x->type.str(),
          "cast first: (x as f32)");
    return;
  }
  // These are libdevice's f32 and f64 functions (silu, sigmoid and softplus
  // through exp); sqrt and abs also take f16 and bf16. (A literal is f32 by
  // now: adapted above.)
  bool wide = x->type.elem.scalar == ScalarKind::F32 || x->type.elem.scalar == ScalarKind::F64;
  if (!wide && c.builtin != Builtin::Sqrt && c.builtin != Builtin::Abs) {
    error(x->range, c.callee + " needs f32 or f64, got " + x->type.str(),
          "compute in f32: " + c.callee + "(x as f32)");
    return;
  }
  c.type = x->type;
}

void Sema::checkElementwise(CallExpr &c, bool floatOnly) {
  bool isFma = c.builtin == Builtin::Fma;
  if (!(isFma ? bindAndCheck(c, {"a", "b", "c"}, 3) : bindAndCheck(c, {"a", "b"}, 2)))
    return;
  ExprPtr &a = c.args[0].value;
  ExprPtr &b = c.args[1].value;
  // min/max of two constants folds (handy in constant expressions); the
  // untyped result becomes a literal when its context adapts it.
  if (!isFma && a->type.isUntyped() && b->type.isUntyped()) {
    FoldResult lt = foldBinary(BinaryOp::Lt, *a->constValue, *b->constValue);
    bool aLess = lt.value && lt.value->b;
    bool pickA = c.builtin == Builtin::Minimum ? aLess : !aLess;
    bool anyFloat = a->type.kind == Type::Kind::UntypedFloat ||
                    b->type.kind == Type::Kind::UntypedFloat;
    ConstValue v = pickA ? *a->constValue : *b->constValue;
    c.type = anyFloat ? Type::untypedFloat() : Type::untypedInt();
    c.constValue = anyFloat ? ConstValue::ofFloat(v.asDouble()) : v;
    return;
  }
  std::string what = quoted(c.callee);
  for (size_t i = 1; i < c.args.size(); ++i)
    if (!unifyElements(c.args[0].value, c.args[i].value, what, c.range))
      return;
  if (!requireArithmetic(a, what))
    return;
  if (floatOnly && !a->type.isFloatLike()) {
    error(a->range,
          c.callee + " expects a floating-point value, got " + a->type.str(),
          "cast first: (x as f32)");
    return;
  }
  std::vector<int64_t> shape;
  for (CallArg &arg : c.args)
    if (!broadcastShapes(shape, arg.value->type.shape,
                         shape)) {
      error(arg.value->range, "incompatible shapes in " + what + ": " +
                                  shapeStr(shape) + " and " +
                                  shapeStr(arg.value->type.shape));
      return;
    }
  for (CallArg &arg : c.args)
    broadcastTo(arg.value, shape);
  c.type = a->type;
}

void Sema::checkWhere(CallExpr &c) {
  if (!bindAndCheck(c, {"cond", "a", "b"}, 3))
    return;
  if (!requireMask(diags_, c.args[0].value.get()) ||
      !unifyElements(c.args[1].value, c.args[2].value, "'where'", c.range))
    return;
  std::vector<int64_t> shape;
  for (CallArg &arg : c.args)
    if (!broadcastShapes(shape, arg.value->type.shape,
                         shape)) {
      error(arg.value->range,
            "incompatible shapes in 'where': " + shapeStr(shape) + " and " +
                shapeStr(arg.value->type.shape));
      return;
    }
  for (CallArg &arg : c.args)
    broadcastTo(arg.value, shape);
  c.type = c.args[1].value->type;
}

void Sema::checkCdiv(CallExpr &c) {
  if (!bindAndCheck(c, {"a", "b"}, 2))
    return;
  ExprPtr &a = c.args[0].value;
  ExprPtr &b = c.args[1].value;
  if (a->type.isUntyped() && b->type.isUntyped()) {
    FoldResult r = foldCdiv(*a->constValue, *b->constValue);
    if (!r.value) {
      error(c.range, r.error);
      return;
    }
    c.constValue = r.value;
    c.type = Type::untypedInt();
    c.args.clear();
    return;
  }
  if (!unifyElements(a, b, "'cdiv'", c.range))
    return;
  if (!a->type.isIntLike()) {
    error(c.range, "cdiv expects integers, got " + a->type.str());
    return;
  }
  std::vector<int64_t> shape;
  if (!broadcastShapes(a->type.shape, b->type.shape, shape)) {
    error(c.range, "incompatible shapes in 'cdiv': " + shapeStr(a->type.shape) +
                       " and " + shapeStr(b->type.shape));
    return;
  }
  broadcastTo(a, shape);
  broadcastTo(b, shape);
  c.type = a->type;
}

void Sema::checkReduction(CallExpr &c) {
  if (!bindArgs(c, {"x", "axis"}, 1))
    return;
  ExprPtr &x = c.args[0].value;
  checkExpr(x);
  if (x->type.isInvalid())
    return;
  if (!x->type.isTile()) {
    error(x->range, quoted(c.callee) + " reduces a tile, got " + x->type.str());
    return;
  }
  if (!requireArithmetic(x, quoted(c.callee)))
    return;
  const std::vector<int64_t> &shape = x->type.shape;
  int64_t axis = 0;
  if (c.args[1].value) {
    std::optional<int64_t> a = constInt(c.args[1].value, "the axis");
    if (!a)
      return;
    if (*a < 0 || *a >= static_cast<int64_t>(shape.size())) {
      error(c.args[1].value->range, "axis " + std::to_string(*a) +
                                        " is out of range for " +
                                        x->type.str());
      return;
    }
    axis = *a;
  } else if (shape.size() != 1) {
    error(c.range,
          quoted(c.callee) + " over a " + std::to_string(shape.size()) +
              "-D tile needs an axis",
          c.callee + "(x, axis = 0)");
    return;
  }
  std::vector<int64_t> result = shape;
  result.erase(result.begin() + axis);
  c.axis = static_cast<int>(axis);
  c.args.resize(1);
  bool isArg = c.builtin == Builtin::Argmax || c.builtin == Builtin::Argmin;
  c.type = Type::value(
      isArg ? ElementType{ScalarKind::I32, false} : x->type.elem, result);
}

bool Sema::constDims(CallExpr &c, size_t first, size_t count,
                     std::vector<int64_t> &shape) {
  for (size_t i = first; i < first + count; ++i) {
    std::optional<int64_t> d = constInt(c.args[i].value, "a dimension");
    if (!d)
      return false;
    shape.push_back(*d);
  }
  return true;
}

void Sema::checkShapeBuiltin(CallExpr &c) {
  for (const CallArg &a : c.args)
    if (!a.name.empty()) {
      error(a.nameRange, quoted(c.callee) + " takes positional arguments");
      return;
    }
  bool isExpand = c.builtin == Builtin::ExpandDims;
  if (c.args.size() < 2 || (isExpand && c.args.size() != 2)) {
    error(c.range, isExpand ? "expand_dims takes (x, axis)"
                            : quoted(c.callee) + " takes (x, dims...)");
    return;
  }
  ExprPtr &x = c.args[0].value;
  checkExpr(x);
  if (x->type.isInvalid())
    return;
  finalize(x);
  if (!x->type.isValue()) {
    error(x->range,
          quoted(c.callee) + " expects a value, got " + x->type.str());
    return;
  }
  std::vector<int64_t> shape;
  if (isExpand) {
    std::optional<int64_t> axis = constInt(c.args[1].value, "the axis");
    if (!axis)
      return;
    if (*axis < 0 || *axis > static_cast<int64_t>(x->type.rank())) {
      error(c.args[1].value->range, "axis " + std::to_string(*axis) +
                                        " is out of range for " +
                                        x->type.str());
      return;
    }
    shape = x->type.shape;
    shape.insert(shape.begin() + *axis, 1);
    c.axis = static_cast<int>(*axis);
  } else if (!constDims(c, 1, c.args.size() - 1, shape)) {
    return;
  }
  if (!checkTileShape(c.range, shape))
    return;
  if (c.builtin == Builtin::Reshape) {
    int64_t from = 1, to = 1;
    for (int64_t d : x->type.shape)
      from *= d;
    for (int64_t d : shape)
      to *= d;
    if (!x->type.isTile() || from != to) {
      error(c.range, "cannot reshape " + x->type.str() + " (" +
                         std::to_string(from) + " elements) to " +
                         shapeStr(shape) + " (" + std::to_string(to) +
                         " elements)");
      return;
    }
  } else if (c.builtin == Builtin::BroadcastTo) {
    std::vector<int64_t> s;
    if (!broadcastShapes(x->type.shape, shape, s) || s != shape) {
      error(c.range,
            "cannot broadcast " + x->type.str() + " to " + shapeStr(shape),
            "dims must be equal or 1");
      return;
    }
  }
  if (!isExpand)
    c.shape = shape;
  c.args.resize(1);
  c.type = x->type.withShape(shape);
}

void Sema::checkFactory(CallExpr &c) {
  for (const CallArg &a : c.args)
    if (!a.name.empty()) {
      error(a.nameRange, quoted(c.callee) + " takes positional arguments");
      return;
    }
  bool isFull = c.builtin == Builtin::Full;
  size_t fixed = isFull ? 2 : 1; // value?, dtype
  if (c.args.size() < fixed + 1 ||
      !isa<TypeArgExpr>(c.args.back().value.get())) {
    error(c.range,
          isFull ? "full takes (dims..., value, dtype)"
                 : "zeros takes (dims..., dtype)",
          isFull ? "e.g. full(128, 64, -1.0, f32)"
                 : "e.g. zeros(128, 64, f32)");
    return;
  }
  TypeRef &dtype = cast<TypeArgExpr>(c.args.back().value.get())->typeRef;
  if (!resolveTypeRef(dtype))
    return;
  if (!dtype.tileDims.empty() || dtype.elem.isPointer) {
    error(dtype.range, "the dtype must be a scalar element type");
    return;
  }
  std::vector<int64_t> shape;
  if (!constDims(c, 0, c.args.size() - fixed, shape) ||
      !checkTileShape(c.range, shape))
    return;
  ExprPtr value;
  if (isFull) {
    value = std::move(c.args[c.args.size() - 2].value);
    checkExpr(value);
    if (value->type.isInvalid() || !adapt(value, dtype.elem))
      return;
    if (!value->type.isScalar() || value->type.elem != dtype.elem) {
      error(value->range, "full value must be a " + dtype.elem.str() +
                              " scalar, got " + value->type.str());
      return;
    }
  }
  ElementType elem = dtype.elem; // dtype dies with the args
  c.args.clear();
  if (value)
    c.args.push_back({"", {}, std::move(value)});
  c.shape = shape;
  c.type = Type::value(elem, shape);
}

// A compile-time true or false (a literal, a 'const' or a helper parameter
// bound to one).
std::optional<bool> Sema::constBool(ExprPtr &e, const char *what) {
  checkExpr(e);
  if (e->type.isInvalid())
    return std::nullopt;
  if (!e->constValue || !e->constValue->isBool()) {
    error(e->range, std::string(what) + " must be true or false");
    return std::nullopt;
  }
  return e->constValue->b;
}

void Sema::checkCastCall(ExprPtr &e) {
  auto *c = cast<CallExpr>(e.get());
  if (!bindArgs(*c, {"x", "dtype", "rounding", "saturate"}, 2))
    return;
  auto *dtype = dyn_cast<TypeArgExpr>(c->args[1].value.get());
  if (!dtype) {
    error(c->args[1].value->range, "cast expects a type as its 2nd argument",
          "cast(x, f8e4m3, rounding = rne, saturate = true)");
    return;
  }
  Rounding rounding = Rounding::Default;
  if (Expr *r = c->args[2].value.get()) {
    static const std::pair<const char *, Rounding> kModes[] = {
        {"rne", Rounding::RNE},
        {"rz", Rounding::RZ},
        {"ru", Rounding::RU},
        {"rd", Rounding::RD}};
    auto *name = dyn_cast<NameExpr>(r);
    for (const auto &[text, mode] : kModes)
      if (name && name->name == text)
        rounding = mode;
    if (rounding == Rounding::Default) {
      error(r->range, "rounding must be one of rne, rz, ru, rd");
      return;
    }
  }
  std::optional<bool> saturate;
  if (ExprPtr &s = c->args[3].value) {
    saturate = constBool(s, "saturate");
    if (!saturate)
      return;
  }
  auto castExpr = std::make_unique<CastExpr>(
      c->range, std::move(c->args[0].value), std::move(dtype->typeRef));
  castExpr->explicitCall = true;
  castExpr->rounding = rounding;
  castExpr->saturate = saturate;
  e = std::move(castExpr);
  checkCast(*cast<CastExpr>(e.get()));
}

} // namespace megac::fe
