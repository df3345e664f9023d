// The MLIR diagnostics of a target's compile, held back while the targets
// compile side by side.
//
// Each target lowers and compiles on a thread of its own (Compiler.cpp), and
// its lowering may report an error (a conversion the target lacks, say)
// through the one MLIR context's handler. A thread compiling a target routes
// its diagnostics, and those of the threads it starts (KernelThreads.cpp),
// to that target's buffer; the driver replays the buffers in the targets'
// order once all are done, so that the messages come out as they would from
// one thread compiling the targets one after the other.
#ifndef MEGAC_SUPPORT_HELDDIAGNOSTICS_H
#define MEGAC_SUPPORT_HELDDIAGNOSTICS_H

namespace megac {

struct HeldDiagnostics; // the driver's buffer (Compiler.cpp)

namespace detail {
inline thread_local HeldDiagnostics *heldHere = nullptr;
} // namespace detail

/// The calling thread's buffer; null: its diagnostics go out at once.
inline HeldDiagnostics *heldDiagnostics() { return detail::heldHere; }

/// Routes the calling thread's diagnostics to `held` while it lives.
class HoldDiagnostics {
public:
  explicit HoldDiagnostics(HeldDiagnostics *held) : saved(detail::heldHere) {
    detail::heldHere = held;
  }
  ~HoldDiagnostics() { detail::heldHere = saved; }
  HoldDiagnostics(const HoldDiagnostics &) = delete;
  HoldDiagnostics &operator=(const HoldDiagnostics &) = delete;

private:
  HeldDiagnostics *saved;
};

} // namespace megac

#endif
