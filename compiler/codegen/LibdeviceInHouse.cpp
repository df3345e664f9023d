#include "LibdeviceInHouse.h"

#include "llvm/ADT/bit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include <cstdlib>
#include <string>

namespace megac {
namespace {

constexpr uint32_t kLn2Bits = 0x3F317218; // ln(2), rounded to f32

// libdevice functions whose whole body is one NVVM intrinsic get that body:
// an internal always-inline function that returns the intrinsic of its
// arguments, as libdevice's does. Not the intrinsic in the call's place:
// after inlining a call the inliner simplifies the caller again, and without
// that round the optimizer ordered attention's merges (a row's exp2s beside
// its weighted sum) otherwise than with libdevice linked (ctest
// own_libdevice_identity).
void defineIntrinsicBodies(llvm::Module &module) {
  struct SameAs {
    const char *name;
    llvm::Intrinsic::ID id;
    bool overloaded; // on its f32 type
  };
  static const SameAs kSameAs[] = {
      {"__nv_fast_fdividef", llvm::Intrinsic::nvvm_div_approx_f, false},
      {"__nv_fast_log2f", llvm::Intrinsic::nvvm_lg2_approx_f, false},
      {"__nv_exp2f", llvm::Intrinsic::nvvm_ex2_approx, true},
      {"__nv_rsqrtf", llvm::Intrinsic::nvvm_rsqrt_approx_f, false},
      // __CUDA_PREC_SQRT is 0 too (no "nvvm-reflect-prec-sqrt" flag): the
      // approximate square root (@fast_math sqrt; IEEE sqrt is llvm.sqrt).
      {"__nv_sqrtf", llvm::Intrinsic::nvvm_sqrt_approx_f, false},
  };
  llvm::Type *f32 = llvm::Type::getFloatTy(module.getContext());
  for (const SameAs &same : kSameAs) {
    llvm::Function *f = module.getFunction(same.name);
    if (!f || !f->isDeclaration())
      continue;
    llvm::Function *intrinsic =
        same.overloaded ? llvm::Intrinsic::getOrInsertDeclaration(&module, same.id, {f32})
                        : llvm::Intrinsic::getOrInsertDeclaration(&module, same.id);
    if (intrinsic->getFunctionType() != f->getFunctionType())
      continue;
    f->setLinkage(llvm::GlobalValue::InternalLinkage);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    f->addFnAttr(llvm::Attribute::NoUnwind);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.getContext(), "", f));
    llvm::SmallVector<llvm::Value *, 2> args;
    for (llvm::Argument &a : f->args())
      args.push_back(&a);
    b.CreateRet(b.CreateCall(intrinsic, args));
  }
}

// __nv_fast_fdividef (div.approx.f32) as an `fdiv afn`, which NVPTX selects
// as div.approx.f32 too (the denormals not flushed): instruction selection
// finds a plain fdiv through its opcode, an intrinsic by trying the NVVM
// intrinsics' patterns one after another (about 73 K instructions of the
// matcher a call against 10 K; attention's 32-row variant makes 64: its
// compile 1.6% less). A constant numerator keeps the call, and so the
// intrinsic (defineIntrinsicBodies, above): NVPTX selects `fdiv afn 1, x` as
// rcp.approx.f32, not libdevice's div.approx.f32. Every kernel's PTX is libdevice's (ctest
// own_libdevice_identity).
void fastDivisionsAsFdiv(llvm::Module &module) {
  llvm::Function *f = module.getFunction("__nv_fast_fdividef");
  llvm::Type *f32 = llvm::Type::getFloatTy(module.getContext());
  if (!f || !f->isDeclaration() ||
      f->getFunctionType() != llvm::FunctionType::get(f32, {f32, f32}, false))
    return;
  for (llvm::User *user : llvm::make_early_inc_range(f->users())) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(user);
    if (!call || call->getCalledFunction() != f ||
        llvm::isa<llvm::Constant>(call->getArgOperand(0)))
      continue;
    llvm::FastMathFlags flags = call->getFastMathFlags();
    flags.setApproxFunc();
    llvm::IRBuilder<> b(call);
    b.setFastMathFlags(flags);
    call->replaceAllUsesWith(b.CreateFDiv(call->getArgOperand(0), call->getArgOperand(1)));
    call->eraseFromParent();
  }
}

// An f32 -> f32 libdevice function `name` that the module declares, made an
// internal always-inline function whose body `build` writes (given the
// builder and the argument), if the module declares it.
void define(llvm::Module &module, const char *name,
            llvm::function_ref<void(llvm::IRBuilder<> &, llvm::Value *)> build) {
  llvm::Function *f = module.getFunction(name);
  llvm::Type *f32 = llvm::Type::getFloatTy(module.getContext());
  if (!f || !f->isDeclaration() ||
      f->getFunctionType() != llvm::FunctionType::get(f32, {f32}, false))
    return;
  f->setLinkage(llvm::GlobalValue::InternalLinkage);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(module.getContext(), "", f));
  build(b, f->getArg(0));
}

// Builds calls of NVVM intrinsics and f32 constants at a builder's point.
struct Emit {
  llvm::Module &module;
  llvm::IRBuilder<> &b;
  llvm::Value *call(llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value *> args,
                    llvm::ArrayRef<llvm::Type *> types = {}) {
    return b.CreateCall(llvm::Intrinsic::getOrInsertDeclaration(&module, id, types), args);
  }
  llvm::Value *fma(llvm::Value *x, llvm::Value *y, llvm::Value *z) {
    return call(llvm::Intrinsic::nvvm_fma_rn_f, {x, y, z});
  }
  llvm::Constant *f32(float v) { return llvm::ConstantFP::get(b.getFloatTy(), v); }
  llvm::Constant *bits(uint32_t v) { return f32(llvm::bit_cast<float>(v)); }
};

// __nv_expf as libdevice 10 computes it without flushing denormals: e^a =
// 2^j * 2^r, with j = round-down(a * log2(e)) found through a saturated
// fma against 1.5 * 2^23 (so that j's bits can be shifted into an exponent)
// and r = a * log2(e) - j in two fmas (log2(e) in a high and a low part);
// 2^r by ex2.approx. The operations are libdevice's, in its order, constants
// included (the optimizer folds the same constant expressions).
void defineExpf(llvm::Module &module) {
  define(module, "__nv_expf", [&](llvm::IRBuilder<> &b, llvm::Value *a) {
    Emit e{module, b};
    llvm::Value *log2eHigh = e.bits(0x3FB8AA3B); // log2(e), rounded
    llvm::Value *log2eLow = e.bits(0x32A57060);  // log2(e) - log2eHigh
    llvm::Value *shifter = e.bits(0x4B400000);   // 1.5 * 2^23
    llvm::Value *t = e.fma(a, b.CreateFDiv(log2eHigh, e.f32(252.0f)), e.f32(0.5f));
    llvm::Value *sat = e.call(llvm::Intrinsic::nvvm_saturate_f, {t});
    llvm::Value *bias = b.CreateFAdd(b.CreateFAdd(e.f32(-126.0f), shifter), e.f32(127.0f));
    llvm::Value *j = e.call(llvm::Intrinsic::nvvm_fma_rm_f, {sat, e.f32(252.0f), bias});
    llvm::Value *negJ =
        b.CreateFSub(e.f32(-0.0f), b.CreateFSub(j, b.CreateFAdd(shifter, e.f32(127.0f))));
    llvm::Value *r = e.fma(a, log2eHigh, negJ);
    r = e.fma(a, log2eLow, r);
    llvm::Value *scale =
        b.CreateBitCast(b.CreateShl(b.CreateBitCast(j, b.getInt32Ty()), 23), b.getFloatTy());
    llvm::Value *p = e.call(llvm::Intrinsic::nvvm_ex2_approx_ftz, {r}, {b.getFloatTy()});
    b.CreateRet(b.CreateFMul(p, scale));
  });
}

// __nv_fast_logf (@fast_math log): lg2.approx times ln(2).
void defineFastLogf(llvm::Module &module) {
  define(module, "__nv_fast_logf", [&](llvm::IRBuilder<> &b, llvm::Value *a) {
    Emit e{module, b};
    llvm::Value *lg2 = e.call(llvm::Intrinsic::nvvm_lg2_approx_f, {a});
    b.CreateRet(b.CreateFMul(e.bits(kLn2Bits), lg2));
  });
}

// __nv_log1pf (softplus) as libdevice 10 computes it without flushing
// denormals: 1 + a = 2^k * m with m near 1 (k from 1 + a rounded toward
// zero, m scaled from a so that no rounding of 1 + a is kept), log1p =
// k * ln(2) + a polynomial in m - 1; +inf, NaN and a < -1 through
// fma(a, inf, inf) (inf, NaN, NaN), and -0 kept. libdevice's operations,
// blocks and constants, in its order.
void defineLog1pf(llvm::Module &module) {
  define(module, "__nv_log1pf", [&](llvm::IRBuilder<> &b, llvm::Value *a) {
    Emit e{module, b};
    llvm::LLVMContext &ctx = module.getContext();
    llvm::Function *f = b.GetInsertBlock()->getParent();
    llvm::Type *i32 = b.getInt32Ty();
    llvm::Value *onePlus = e.call(llvm::Intrinsic::nvvm_add_rz_f, {a, e.f32(1.0f)});
    llvm::Value *k = b.CreateAnd(b.CreateSub(b.CreateBitCast(onePlus, i32), b.getInt32(0x3F400000)),
                                 b.getInt32(int32_t(0xFF800000)));
    llvm::Value *m = b.CreateBitCast(b.CreateSub(b.CreateBitCast(a, i32), k), b.getFloatTy());
    llvm::Value *s = b.CreateBitCast(b.CreateSub(b.getInt32(0x40800000), k), b.getFloatTy());
    llvm::Value *x = b.CreateFAdd(m, e.fma(e.f32(0.25f), s, e.f32(-1.0f)));
    llvm::Value *kf = b.CreateFMul(b.CreateSIToFP(k, b.getFloatTy()), e.bits(0x34000000)); // 2^-23
    llvm::Value *p = e.fma(e.bits(0xBD39BF78), x, e.bits(0x3DD80012));
    for (uint32_t c : {0xBE0778E0u, 0x3E146475u, 0xBE2A68DDu, 0x3E4CAF9Eu, 0xBE800042u,
                       0x3EAAAAE6u})
      p = e.fma(p, x, e.bits(c));
    p = e.fma(p, x, e.f32(-0.5f));
    p = e.fma(b.CreateFMul(p, x), x, x);
    llvm::Value *r = e.fma(kf, e.bits(kLn2Bits), p); // + k * ln(2)
    llvm::Value *bits = b.CreateBitCast(a, i32);
    llvm::BasicBlock *entry = b.GetInsertBlock();
    auto *special = llvm::BasicBlock::Create(ctx, "", f);
    auto *infNanOrBelowMinusOne = llvm::BasicBlock::Create(ctx, "", f);
    auto *checkMinusZero = llvm::BasicBlock::Create(ctx, "", f);
    auto *minusZero = llvm::BasicBlock::Create(ctx, "", f);
    auto *joinSpecial = llvm::BasicBlock::Create(ctx, "", f);
    auto *done = llvm::BasicBlock::Create(ctx, "", f);
    // +inf, NaN or negative (the sign bit set: unsigned above +inf's bits).
    b.CreateCondBr(b.CreateICmpUGE(bits, b.getInt32(0x7F800000)), special, done);
    b.SetInsertPoint(special);
    // As signed integers, +inf and NaN are positive and the negative floats
    // order by falling magnitude: above -1's bits are +inf, NaN and a < -1.
    b.CreateCondBr(b.CreateICmpSGT(bits, b.getInt32(int32_t(0xBF800000))), infNanOrBelowMinusOne,
                   checkMinusZero);
    b.SetInsertPoint(infNanOrBelowMinusOne);
    llvm::Value *inf = e.bits(0x7F800000);
    llvm::Value *viaInf = e.fma(a, inf, inf);
    b.CreateBr(checkMinusZero);
    b.SetInsertPoint(checkMinusZero); // a == 0 here only for -0, which stays -0
    llvm::PHINode *r0 = b.CreatePHI(b.getFloatTy(), 2);
    r0->addIncoming(viaInf, infNanOrBelowMinusOne);
    r0->addIncoming(r, special);
    b.CreateCondBr(b.CreateFCmpOEQ(a, e.f32(0.0f)), minusZero, joinSpecial);
    b.SetInsertPoint(minusZero);
    b.CreateBr(joinSpecial);
    b.SetInsertPoint(joinSpecial);
    llvm::PHINode *r1 = b.CreatePHI(b.getFloatTy(), 2);
    r1->addIncoming(e.f32(-0.0f), minusZero);
    r1->addIncoming(r0, checkMinusZero);
    b.CreateBr(done);
    b.SetInsertPoint(done);
    llvm::PHINode *out = b.CreatePHI(b.getFloatTy(), 2);
    out->addIncoming(r1, joinSpecial);
    out->addIncoming(r, entry);
    b.CreateRet(out);
  });
}

} // namespace

void defineLibdeviceInHouse(llvm::Module &module) {
  // MEGAC_OWN_LIBDEVICE=none links these from libdevice too: the lit test
  // codegen/libdevice-own.mega compares the PTX of the two.
  if (const char *env = std::getenv("MEGAC_OWN_LIBDEVICE"); env && std::string(env) == "none")
    return;
  fastDivisionsAsFdiv(module); // before defineIntrinsicBodies takes the rest
  defineIntrinsicBodies(module);
  defineExpf(module);
  defineFastLogf(module);
  defineLog1pf(module);
}

} // namespace megac
