//===- communicator.h - Agreeing on decisions across ranks ------*- C++ -*-===//
//
// Slots that run under tensor parallelism must be enabled on every rank or on
// none. The host supplies a Communicator (over NCCL, torch.distributed, ...);
// the plan combines per-slot decisions with one allReduceMin before anything
// is allocated.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_COMMUNICATOR_H
#define MEGAC_RUNTIME_COMMUNICATOR_H

#include <cstdint>
#include <functional>
#include <vector>

namespace megac::rt {

class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Collective: replaces `values` by their element-wise minimum over all
  /// ranks. Every rank calls it with vectors of the same length.
  virtual void allReduceMin(std::vector<int32_t> &values) = 0;
};

/// Simulates `size` ranks inside one process for unit tests: this object is
/// rank `rank`; every other rank contributes this rank's values as edited by
/// the function set for it (by default, unchanged).
class FakeCommunicator : public Communicator {
public:
  using Edit = std::function<void(std::vector<int32_t> &)>;

  FakeCommunicator(int rank, int size);
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allReduceMin(std::vector<int32_t> &values) override;

  /// What rank `peer` contributes, as an edit of this rank's values.
  void setPeer(int peer, Edit edit);
  int calls() const { return calls_; }
  /// This rank's values at the last call, before the reduction.
  const std::vector<int32_t> &lastLocal() const { return lastLocal_; }

private:
  int rank_, size_;
  std::vector<Edit> peers_;
  int calls_ = 0;
  std::vector<int32_t> lastLocal_;
};

} // namespace megac::rt

#endif // MEGAC_RUNTIME_COMMUNICATOR_H
