// Removal of CTA barriers that order nothing.
//
// The lowering brackets every exchange through shared memory with two
// barriers: one before the stores (earlier readers of the buffer are done) and
// one after them (every store is visible to the loads). The first is needed
// only when some thread may still read or write, since the previous barrier,
// bytes that the stores overwrite (a hazard the barrier orders); a kernel's
// first exchange has no such access, and two exchanges in different buffers
// (reductions alternate between the kernel's two scratch buffers) have none
// either. This pass removes every barrier with no conflicting pair of
// shared-memory accesses across it: one access before it (since the previous
// barrier on some path) and one after it (before the next barrier on some
// path), to the same buffer, at least one a write. Accesses it cannot place
// (a pointer not traced to a shared global, ldmatrix, cp.async, calls, inline
// assembly that names shared memory) conflict with everything, so such
// barriers stay.
#ifndef MEGAC_CONVERSION_BARRIERELISION_H
#define MEGAC_CONVERSION_BARRIERELISION_H

#include "mlir/IR/BuiltinOps.h"

namespace megac {

/// Removes the redundant barriers of every llvm.func in `module` (after the
/// lowering to the LLVM dialect, control flow as blocks). Returns how many it
/// removed.
int elideRedundantBarriers(mlir::ModuleOp module);

/// The `elide-redundant-barriers` pass for megac-opt.
void registerElideBarriersPass();

} // namespace megac

#endif
