// The tile IR generator's class, shared by its two translation units:
// IRGen.cpp (kernels, statements, expressions) and IRGenCalls.cpp (builtin
// calls). Internal to compiler/irgen.
#ifndef MEGAC_IRGEN_IRGENIMPL_H
#define MEGAC_IRGEN_IRGENIMPL_H

#include "IRGen.h"

#include "Tile/IR/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseMap.h"

namespace megac::irgen {

namespace fe = megac::fe;
using namespace mlir;

class IRGen {
public:
  IRGen(MLIRContext &ctx, const fe::SourceManager &sm) : ctx(ctx), sm(sm), b(&ctx) {}

  OwningOpRef<ModuleOp> run(const fe::Module &module, const VariantBodies &bodies);

private:
  // --- types and locations ----------------------------------------------------
  // A variant's ops carry its name around their source location, so that a
  // diagnostic from the passes or the lowering can say which variant of the
  // kernel it is about (the driver unwraps it: driver/Compiler.cpp).
  Location loc(fe::SourceRange r) {
    if (!r.isValid())
      return UnknownLoc::get(&ctx);
    auto lc = sm.lineCol(r.file, r.begin);
    Location at = FileLineColLoc::get(&ctx, sm.name(r.file), lc.line, lc.col);
    return variantName ? Location(NameLoc::get(variantName, at)) : at;
  }
  Type scalarType(fe::ScalarKind k) {
    using K = fe::ScalarKind;
    switch (k) {
    case K::I1:
      return b.getI1Type();
    case K::I8:
    case K::U8:
    case K::F4E2M1X2: // a byte holding two E2M1 values
      return b.getI8Type();
    case K::I16:
    case K::U16:
      return b.getI16Type();
    case K::I32:
    case K::U32:
      return b.getI32Type();
    case K::I64:
    case K::U64:
      return b.getI64Type();
    case K::F16:
      return b.getF16Type();
    case K::BF16:
      return b.getBF16Type();
    case K::F32:
      return b.getF32Type();
    case K::F64:
      return b.getF64Type();
    case K::F8E4M3:
      return b.getType<Float8E4M3FNType>();
    case K::F8E5M2:
      return b.getType<Float8E5M2Type>();
    case K::E8M0:
      return b.getType<Float8E8M0FNUType>();
    }
    return b.getI32Type();
  }
  Type elementType(const fe::ElementType &e) {
    Type s = scalarType(e.scalar);
    return e.isPointer ? Type(tile::PtrType::get(&ctx, s)) : s;
  }
  Type toMLIR(const fe::Type &t) {
    Type elem = elementType(t.elem);
    if (t.shape.empty())
      return elem;
    return RankedTensorType::get(t.shape, elem);
  }

  // --- statements ---------------------------------------------------------------
  /// `body` is the kernel's, or a variant's own when its constants differ;
  /// the settings come from the kernel `k` and the variant `v` (null: none).
  LogicalResult emitKernel(const fe::KernelDecl &body, const std::string &symbol,
                           const fe::KernelDecl &k, const fe::Variant *v, ModuleOp module);
  LogicalResult emitBlock(const fe::Block &block, size_t from = 0);
  LogicalResult emitStmt(const fe::Stmt &s);
  LogicalResult emitFor(const fe::ForStmt &s);
  LogicalResult emitIf(const fe::IfStmt &s, const fe::Block *rest, size_t restFrom);
  LogicalResult failNestedReturn(const fe::IfStmt &s);
  /// The wait for the prior kernel, then, unless the kernel launches its
  /// dependents itself (launch_dependents()), the next kernel's launch.
  void emitWait(Location l) {
    tile::WaitPriorKernelOp::create(b, l, /*launch_dependents=*/!explicitTrigger);
  }

  // --- expressions --------------------------------------------------------------
  Value emit(const fe::Expr &e);
  Value emitLiteral(const fe::Expr &e, Attribute scalar);
  Value emitBinary(const fe::BinaryExpr &e);
  Value emitCast(Value v, const fe::Type &from, const fe::Type &to, Location l);
  Value emitCall(const fe::CallExpr &e);
  Value constant(Type type, double v) {
    Type elem = getElementTypeOrSelf(type);
    TypedAttr scalar = isa<FloatType>(elem) ? TypedAttr(b.getFloatAttr(elem, v))
                                            : TypedAttr(b.getIntegerAttr(elem, int64_t(v)));
    if (auto t = dyn_cast<RankedTensorType>(type))
      return arith::ConstantOp::create(b, b.getUnknownLoc(), SplatElementsAttr::get(t, scalar));
    return arith::ConstantOp::create(b, b.getUnknownLoc(), scalar);
  }
  Type withF32(Type t) { return tile::withElementType(t, b.getF32Type()); }
  bool fail(fe::SourceRange r, const Twine &msg) {
    emitError(loc(r), msg);
    failed_ = true;
    return false;
  }

  static bool isFloatType(const fe::Type &t) {
    return fe::isFloat(t.elem.scalar) && !t.elem.isPointer;
  }
  static bool isSignedType(const fe::Type &t) { return fe::isSigned(t.elem.scalar); }

  MLIRContext &ctx;
  const fe::SourceManager &sm;
  OpBuilder b;
  llvm::DenseMap<const fe::VarDecl *, Value> vars;
  bool failed_ = false;
  bool returned = false;        // the current block ended with `return;`
  int64_t numWarps = 4;         // of the kernel being emitted
  bool explicitTrigger = false; // the kernel being emitted calls launch_dependents()
  bool earlyLaunch = false;     // of the kernel being emitted: its waits are emitted
  StringAttr variantName;       // "variant 'v' of kernel 'k'" while a variant is emitted
};

} // namespace megac::irgen

#endif
