#pragma once
// libdevice functions that megac writes itself instead of linking them from
// libdevice.10.bc. Reading libdevice's bitcode (its symbol table, types and
// metadata, before the one function a kernel needs is materialized) costs
// milliseconds a compile; a function whose body, with denormals not flushed
// (the module's "nvvm-reflect-ftz" is 0), is a handful of NVVM intrinsics can
// be written here instruction for instruction, so that the optimizer sees the
// same IR after inlining and prints the same PTX.

namespace llvm {
class Module;
}

namespace megac {

// Gives the libdevice functions a module declares that are one NVVM intrinsic
// (__nv_exp2f, __nv_rsqrtf, ...) and __nv_expf, __nv_fast_logf and
// __nv_log1pf libdevice's bodies (non-flushing path) as internal always-inline
// functions; a fast division by a variable numerator becomes `fdiv afn`, the
// same div.approx.f32. A module
// that calls no other libdevice function then links none. MEGAC_OWN_LIBDEVICE=none: none of this, every
// libdevice function is linked from libdevice.10.bc.
void defineLibdeviceInHouse(llvm::Module &module);

} // namespace megac
