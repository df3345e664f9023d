#include "LibdeviceInHouse.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include <cstdlib>
#include <string>

namespace megac {
namespace {

float bitsToFloat(uint32_t bits) {
  float f;
  static_assert(sizeof f == sizeof bits);
  __builtin_memcpy(&f, &bits, sizeof f);
  return f;
}

// libdevice functions whose whole body is one NVVM intrinsic: a call to one
// is that intrinsic (attention's split kernels, softmax, hop and gdn_conv
// call only these).
void callIntrinsics(llvm::Module &module) {
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
    f->replaceAllUsesWith(intrinsic);
    f->eraseFromParent();
  }
}

// __nv_expf as libdevice 10 computes it without flushing denormals: e^a =
// 2^j * 2^r, with j = round-down(a * log2(e)) found through a saturated
// fma against 1.5 * 2^23 (so that j's bits can be shifted into an exponent)
// and r = a * log2(e) - j in two fmas (log2(e) in a high and a low part);
// 2^r by ex2.approx. The operations are libdevice's, in its order, constants
// included (the optimizer folds the same constant expressions).
void defineExpf(llvm::Module &module) {
  llvm::Function *f = module.getFunction("__nv_expf");
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Type *f32 = llvm::Type::getFloatTy(ctx);
  if (!f || !f->isDeclaration() ||
      f->getFunctionType() != llvm::FunctionType::get(f32, {f32}, false))
    return;
  f->setLinkage(llvm::GlobalValue::InternalLinkage);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "", f));
  auto intrinsic = [&](llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value *> args,
                       llvm::ArrayRef<llvm::Type *> types = {}) {
    return b.CreateCall(llvm::Intrinsic::getOrInsertDeclaration(&module, id, types), args);
  };
  auto c = [&](float v) { return llvm::ConstantFP::get(f32, v); };
  llvm::Value *a = f->getArg(0);
  llvm::Value *log2eHigh = c(bitsToFloat(0x3FB8AA3B)); // log2(e), rounded
  llvm::Value *log2eLow = c(bitsToFloat(0x32A57060));  // log2(e) - log2eHigh
  llvm::Value *shifter = c(bitsToFloat(0x4B400000));   // 1.5 * 2^23
  llvm::Value *t = intrinsic(llvm::Intrinsic::nvvm_fma_rn_f,
                             {a, b.CreateFDiv(log2eHigh, c(252.0f)), c(0.5f)});
  llvm::Value *sat = intrinsic(llvm::Intrinsic::nvvm_saturate_f, {t});
  llvm::Value *bias = b.CreateFAdd(b.CreateFAdd(c(-126.0f), shifter), c(127.0f));
  llvm::Value *j = intrinsic(llvm::Intrinsic::nvvm_fma_rm_f, {sat, c(252.0f), bias});
  llvm::Value *negJ = b.CreateFSub(c(-0.0f), b.CreateFSub(j, b.CreateFAdd(shifter, c(127.0f))));
  llvm::Value *r = intrinsic(llvm::Intrinsic::nvvm_fma_rn_f, {a, log2eHigh, negJ});
  r = intrinsic(llvm::Intrinsic::nvvm_fma_rn_f, {a, log2eLow, r});
  llvm::Value *scale = b.CreateBitCast(
      b.CreateShl(b.CreateBitCast(j, b.getInt32Ty()), 23), f32);
  llvm::Value *e = intrinsic(llvm::Intrinsic::nvvm_ex2_approx_ftz, {r}, {f32});
  b.CreateRet(b.CreateFMul(e, scale));
}

} // namespace

void defineLibdeviceInHouse(llvm::Module &module) {
  // MEGAC_OWN_LIBDEVICE=none links these from libdevice too: the lit test
  // codegen/libdevice-own.mega compares the PTX of the two.
  if (const char *env = std::getenv("MEGAC_OWN_LIBDEVICE"); env && std::string(env) == "none")
    return;
  callIntrinsics(module);
  defineExpf(module);
}

} // namespace megac
