//===- communicator.cpp - Agreeing on decisions across ranks --------------===//
#include "megac/runtime/communicator.h"

#include "megac/runtime/error.h"

#include <algorithm>
#include <string>

namespace megac::rt {

FakeCommunicator::FakeCommunicator(int rank, int size)
    : rank_(rank), size_(size), peers_(size_t(size > 0 ? size : 0)) {
  if (size < 1 || rank < 0 || rank >= size)
    throw Error("megac: FakeCommunicator: rank " + std::to_string(rank) +
                " of " + std::to_string(size) + " is not a valid rank");
}

void FakeCommunicator::setPeer(int peer, Edit edit) {
  if (peer < 0 || peer >= size_ || peer == rank_)
    throw Error("megac: FakeCommunicator: " + std::to_string(peer) +
                " is not a peer rank");
  peers_[size_t(peer)] = std::move(edit);
}

void FakeCommunicator::allReduceMin(std::vector<int32_t> &values) {
  ++calls_;
  lastLocal_ = values;
  for (int r = 0; r < size_; ++r) {
    if (r == rank_ || !peers_[size_t(r)])
      continue;
    std::vector<int32_t> theirs = lastLocal_;
    peers_[size_t(r)](theirs);
    for (size_t i = 0; i < values.size() && i < theirs.size(); ++i)
      values[i] = std::min(values[i], theirs[i]);
  }
}

} // namespace megac::rt
