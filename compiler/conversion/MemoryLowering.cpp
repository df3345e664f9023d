// Global memory: tile.load, tile.store (plain and streaming) and tile.atomic,
// each register run as one predicated vector access where the layout and the
// masks allow (docs/dialect.md, "Lowering").
#include "Bf16Words.h"
#include "KernelLowering.h"
#include "NVVMBuilders.h"
#include "PredicatedAccess.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::tile;

namespace megac::lowering {

LogicalResult KernelLowering::lowerLoad(LoadOp op) {
  Type elem = getElementTypeOrSelf(op.getType());
  Type stor = storageType(elem);
  int64_t bytes = storageBytes(elem);
  bool isTile = isa<RankedTensorType>(op.getType());
  int64_t n = isTile ? numRegsOf(op.getPtr()) : 1;
  if (isTile && failed(distOf(op, cast<RankedTensorType>(op.getType()))))
    return failure();
  AccessPlan plan = planAccess(axisInfo, op, op.getPtr(), op.getMask(), op.getType(), bytes);
  int64_t width = plan.width;
  auto otherOf = [&](int64_t r) -> Value {
    return op.getOther() ? reg(op.getOther(), r) : constantLike(stor, 0);
  };
  // One element, loaded only when its mask is set.
  auto maskedScalar = [&](int64_t r) -> Value {
    if (!op.getMask() && !isTile)
      if (Value v = ptx::loadScalarInOrder(b, loc, reg(op.getPtr(), r), bytes, stor))
        return v;
    if (!op.getMask())
      return LLVM::LoadOp::create(b, loc, stor, reg(op.getPtr(), r), bytes);
    Value other = otherOf(r);
    if (ptx::predicatable(bytes))
      return ptx::fromWords(b, loc,
                            ptx::loadWords(b, loc, reg(op.getPtr(), r), reg(op.getMask(), r),
                                           ptx::toWords(b, loc, other)),
                            stor);
    auto branch = scf::IfOp::create(b, loc, TypeRange{stor}, reg(op.getMask(), r), true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(
        b, loc, LLVM::LoadOp::create(b, loc, stor, reg(op.getPtr(), r), bytes).getResult());
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, other);
    return branch.getResult(0);
  };
  Regs out;
  for (int64_t r = 0; r < n; r += width) {
    if (width == 1) {
      out.push_back(maskedScalar(r));
      continue;
    }
    auto vecType = VectorType::get({width}, stor);
    auto pack = [&](ArrayRef<Value> elems) {
      Value v = LLVM::UndefOp::create(b, loc, vecType);
      for (int64_t k = 0; k < width; ++k)
        v = LLVM::InsertElementOp::create(b, loc, v, elems[k], i32(k));
      return v;
    };
    Value loaded;
    if (!op.getMask()) {
      loaded = LLVM::LoadOp::create(b, loc, vecType, reg(op.getPtr(), r), width * bytes);
    } else if (plan.maskUniform && ptx::predicatable(width * bytes)) {
      SmallVector<Value> others;
      for (int64_t k = 0; k < width; ++k)
        others.push_back(otherOf(r + k));
      SmallVector<Value> words = ptx::loadWords(b, loc, reg(op.getPtr(), r), reg(op.getMask(), r),
                                                ptx::toWords(b, loc, pack(others)));
      loaded = ptx::fromWords(b, loc, words, vecType);
    } else {
      Value all = reg(op.getMask(), r);
      if (!plan.maskUniform)
        for (int64_t k = 1; k < width; ++k)
          all = arith::AndIOp::create(b, loc, all, reg(op.getMask(), r + k));
      auto branch = scf::IfOp::create(b, loc, TypeRange{vecType}, all, true);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(
          b, loc,
          LLVM::LoadOp::create(b, loc, vecType, reg(op.getPtr(), r), width * bytes).getResult());
      b.setInsertionPointToStart(branch.elseBlock());
      SmallVector<Value> elems;
      for (int64_t k = 0; k < width; ++k)
        elems.push_back(plan.maskUniform ? otherOf(r + k) : maskedScalar(r + k));
      scf::YieldOp::create(b, loc, pack(elems));
      loaded = branch.getResult(0);
    }
    for (int64_t k = 0; k < width; ++k)
      out.push_back(LLVM::ExtractElementOp::create(b, loc, loaded, i32(k)));
  }
  values[op] = out;
  return success();
}

LogicalResult KernelLowering::lowerStore(StoreOp op) {
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  int64_t bytes = storageBytes(elem);
  bool isTile = isa<RankedTensorType>(op.getValue().getType());
  int64_t n = isTile ? numRegsOf(op.getPtr()) : 1;
  FailureOr<Dist> dist = failure();
  if (isTile && failed(dist = distOf(op, cast<RankedTensorType>(op.getValue().getType()))))
    return failure();
  AccessPlan plan =
      planAccess(axisInfo, op, op.getPtr(), op.getMask(), op.getValue().getType(), bytes);
  int64_t width = plan.width;
  // Only one thread stores each element: a layout with more threads than
  // the tile needs holds replicas of it, and a scalar is every thread's. Were
  // replicas to store too, a kernel that reads what it overwrites (x += y in
  // place) would race: a replica may load the element after another has
  // stored the new value, and store it again updated twice. The owners are
  // constant along a thread's vector runs, so the access plan still holds.
  SmallVector<Value> owners = isTile ? ownerPredicates(*dist) : SmallVector<Value>{isThreadZero()};
  bool masked = op.getMask() || !owners.empty();
  bool maskUniform = !op.getMask() || plan.maskUniform;
  auto guarded = [&](Value pred, function_ref<void()> body) {
    if (!pred)
      return body();
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, pred, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    body();
  };
  auto maskOf = [&](int64_t r) -> Value {
    Value mask = op.getMask() ? reg(op.getMask(), r) : Value();
    if (owners.empty())
      return mask;
    return mask ? arith::AndIOp::create(b, loc, owners[r], mask).getResult() : owners[r];
  };
  if (op.getStreaming()) {
    lowerStreamingStore(op, n, width, bytes, masked && !maskUniform, maskOf);
    return success();
  }
  for (int64_t r = 0; r < n; r += width) {
    Value ptr = reg(op.getPtr(), r);
    if (width == 1) {
      if (maskOf(r) && ptx::predicatable(bytes)) {
        ptx::storeWords(b, loc, ptr, maskOf(r), ptx::toWords(b, loc, reg(op.getValue(), r)));
        continue;
      }
      if (maskOf(r) && bytes <= 2) {
        ptx::storeNarrow(b, loc, ptr, maskOf(r), reg(op.getValue(), r));
        continue;
      }
      guarded(maskOf(r), [&] { LLVM::StoreOp::create(b, loc, reg(op.getValue(), r), ptr, bytes); });
      continue;
    }
    Value v = storedVector(op, r, width);
    if (masked && maskUniform && ptx::predicatable(width * bytes)) {
      ptx::storeWords(b, loc, ptr, maskOf(r), ptx::toWords(b, loc, v));
      continue;
    }
    if (masked && maskUniform && width * bytes == 2) {
      ptx::storeNarrow(b, loc, ptr, maskOf(r), v);
      continue;
    }
    if (!masked || maskUniform) {
      guarded(maskOf(r), [&] { LLVM::StoreOp::create(b, loc, v, ptr, width * bytes); });
      continue;
    }
    storeRunEitherWay(
        maskOf, r, width, [&] { LLVM::StoreOp::create(b, loc, v, ptr, width * bytes); },
        [&](int64_t k) {
          guarded(maskOf(r + k), [&] {
            LLVM::StoreOp::create(b, loc, reg(op.getValue(), r + k), reg(op.getPtr(), r + k),
                                  bytes);
          });
        });
  }
  return success();
}

// The run of `width` values from register r as one vector of their storage
// type (bf16 and FP8 values packed in pairs where they come so).
Value KernelLowering::storedVector(StoreOp op, int64_t r, int64_t width) {
  if (Value v = bytePairsVector(op.getValue(), r, width))
    return v;
  Type stor = storageType(getElementTypeOrSelf(op.getValue().getType()));
  Value v = LLVM::UndefOp::create(b, loc, VectorType::get({width}, stor));
  for (int64_t k = 0; k < width; ++k)
    v = LLVM::InsertElementOp::create(b, loc, v, reg(op.getValue(), r + k), i32(k));
  return v;
}

// A run of `width` values whose mask is not uniform: stored `whole` when all
// its lanes are on, else element by element (`element(k)` for each).
void KernelLowering::storeRunEitherWay(function_ref<Value(int64_t)> maskOf, int64_t r,
                                       int64_t width, function_ref<void()> whole,
                                       function_ref<void(int64_t)> element) {
  Value all = maskOf(r);
  for (int64_t k = 1; k < width; ++k)
    all = arith::AndIOp::create(b, loc, all, maskOf(r + k));
  auto branch = scf::IfOp::create(b, loc, TypeRange{}, all, true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(branch.thenBlock());
  whole();
  b.setInsertionPointToStart(branch.elseBlock());
  for (int64_t k = 0; k < width; ++k)
    element(k);
}

// A store with the streaming hint: every access is one `st.global.cs`
// instruction in inline PTX (LLVM's NVPTX backend has no cache operators on
// plain stores and ignores !nontemporal), predicated where masked, on the
// same vector runs as a plain store. A run whose mask is not uniform is one
// vector store when all its lanes are on, else element by element (a plain
// store's branch).
void KernelLowering::lowerStreamingStore(StoreOp op, int64_t n, int64_t width, int64_t bytes,
                                         bool perElement, function_ref<Value(int64_t)> maskOf) {
  auto streamed = [&](Value ptr, Value pred, Value v, int64_t size) {
    if (size <= 2)
      ptx::storeNarrow(b, loc, ptr, pred, v, ".cs");
    else
      ptx::storeWords(b, loc, ptr, pred, ptx::toWords(b, loc, v), ".cs");
  };
  for (int64_t r = 0; r < n; r += width) {
    if (width == 1) {
      streamed(reg(op.getPtr(), r), maskOf(r), reg(op.getValue(), r), bytes);
      continue;
    }
    Value v = storedVector(op, r, width);
    if (!perElement) {
      streamed(reg(op.getPtr(), r), maskOf(r), v, width * bytes);
      continue;
    }
    storeRunEitherWay(
        maskOf, r, width, [&] { streamed(reg(op.getPtr(), r), Value(), v, width * bytes); },
        [&](int64_t k) {
          streamed(reg(op.getPtr(), r + k), maskOf(r + k), reg(op.getValue(), r + k), bytes);
        });
  }
}

LogicalResult KernelLowering::lowerAtomic(AtomicRMWOp op) {
  Type elem = getElementTypeOrSelf(op.getValue().getType());
  auto kind = op.getKind() == "max"
                  ? LLVM::AtomicBinOp::max
                  : (elem.isF32() ? LLVM::AtomicBinOp::fadd : LLVM::AtomicBinOp::add);
  SmallVector<Value> owners;
  int64_t n = numRegsOf(op.getValue());
  if (auto t = dyn_cast<RankedTensorType>(op.getValue().getType())) {
    auto d = distOf(op, t);
    if (failed(d))
      return failure();
    owners = ownerPredicates(*d);
  } else {
    // A scalar atomic is one operation of the program, not one per thread:
    // thread 0 performs it.
    owners.push_back(isThreadZero());
  }
  Regs out;
  for (int64_t r = 0; r < n; ++r) {
    // Replicas must not add twice: only the owner thread performs the RMW.
    Value pred = owners.empty() ? Value() : owners[r];
    if (op.getMask())
      pred = pred ? arith::AndIOp::create(b, loc, pred, reg(op.getMask(), r)).getResult()
                  : reg(op.getMask(), r);
    auto emit = [&](OpBuilder &ib) -> Value {
      return LLVM::AtomicRMWOp::create(ib, loc, kind, reg(op.getPtr(), r), reg(op.getValue(), r),
                                       LLVM::AtomicOrdering::monotonic);
    };
    if (!pred) {
      out.push_back(emit(b));
      continue;
    }
    Value zero = constantLike(elem, 0);
    auto branch = scf::IfOp::create(b, loc, TypeRange{elem}, pred, true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    scf::YieldOp::create(b, loc, emit(b));
    b.setInsertionPointToStart(branch.elseBlock());
    scf::YieldOp::create(b, loc, zero);
    out.push_back(branch.getResult(0));
  }
  // Every thread sees the old value of a scalar atomic: thread 0 hands it
  // over through shared memory.
  if (!isa<RankedTensorType>(op.getType()) && !op.getResult().use_empty()) {
    Type stor = storageType(elem);
    smemBytes = std::max(smemBytes, storageBytes(elem));
    Value zero = i32(0); // (before the base: argument order is the compiler's)
    Value slot = sharedSlot(sharedBase(), stor, zero);
    nvvm::barrier(b, loc); // earlier users of the buffer are done
    auto branch = scf::IfOp::create(b, loc, TypeRange{}, owners[0], false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(branch.thenBlock());
      LLVM::StoreOp::create(b, loc, out[0], slot);
    }
    nvvm::barrier(b, loc);
    out[0] = LLVM::LoadOp::create(b, loc, stor, slot);
  }
  values[op] = out;
  return success();
}

} // namespace megac::lowering
