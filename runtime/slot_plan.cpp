//===- slot_plan.cpp - Deciding each slot's path once, at build time ------===//
#include "megac/runtime/error.h"
#include "megac/runtime/slots.h"

#include <algorithm>

namespace megac::rt {

SlotPlan SlotPlan::build(const SlotRegistry &registry,
                         const PlanRequest &request, const PlanContext &context,
                         Communicator *comm, LogSink log) {
  if (!log)
    log = stderrLogSink();
  const std::vector<SlotSpec> &specs = registry.slots();
  const size_t n = specs.size();
  SlotPlan plan;
  plan.decisions_.resize(n);
  // One entry per slot (1 = enable), then 1 if no requested slot contradicts
  // this rank's configuration, so that an error on one rank stops all ranks
  // instead of leaving the others waiting in a later collective.
  std::vector<int32_t> votes(n + 1, 0);
  std::string errors;
  for (size_t i = 0; i < n; ++i) {
    const SlotSpec &s = specs[i];
    SlotDecision &d = plan.decisions_[i];
    d.name = s.name;
    bool requested = std::find(request.slots.begin(), request.slots.end(),
                               s.name) != request.slots.end();
    if (!requested) {
      d.reason = "stock (not in " + request.origin + ")";
      continue;
    }
    Capability cap = s.check ? s.check(context) : Capability::available();
    std::string why = request.explicitRequest ? "requested by " + request.origin
                                              : request.origin;
    switch (cap.refusal) {
    case Refusal::None:
      votes[i] = 1;
      d.reason = "kernel (" + why + ")";
      if (s.bounds.maxBatch >= 0)
        d.reason += "; calls with batch > " +
                    std::to_string(s.bounds.maxBatch) + " run stock";
      break;
    case Refusal::Configuration:
      if (request.explicitRequest) {
        errors += std::string(errors.empty() ? "" : "\n") + "megac: slot '" +
                  s.name + "' was requested by " + request.origin +
                  " but cannot run: " + cap.condition + "; fix: " + cap.fix;
      }
      d.reason = "stock (" + why + ", unavailable: " + cap.condition + ")";
      break;
    case Refusal::State:
      d.reason = "stock (" + why +
                 ", refused for runtime state: " + cap.condition + ")";
      break;
    }
  }
  votes[n] = errors.empty() ? 1 : 0;
  std::vector<int32_t> agreed = votes;
  if (comm && comm->size() > 1)
    comm->allReduceMin(agreed);
  if (!errors.empty())
    throw SlotError(errors);
  if (agreed[n] == 0)
    throw SlotError("megac: slot plan refused on another rank: a slot "
                    "requested by " +
                    request.origin +
                    " contradicts that rank's configuration (see its error)");

  plan.slots_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    SlotDecision &d = plan.decisions_[i];
    if (votes[i] && !agreed[i])
      d.reason = "stock (disabled on another rank: every rank must enable it)";
    d.active = agreed[i] != 0;
    Slot &slot = plan.slots_[i];
    slot.kernel = specs[i].kernel;
    slot.stock = specs[i].stock;
    slot.bounds = specs[i].bounds;
    slot.active = d.active;
    slot.boundedFallbacks = std::make_unique<std::atomic<uint64_t>>(0);
  }
  for (size_t i = 0; i < n; ++i)
    if (plan.decisions_[i].active && specs[i].enable)
      specs[i].enable();
  for (const SlotDecision &d : plan.decisions_)
    log("slot '" + d.name + "': " + d.reason);
  return plan;
}

int SlotPlan::index(std::string_view name) const {
  for (size_t i = 0; i < decisions_.size(); ++i)
    if (decisions_[i].name == name)
      return int(i);
  throw SlotError("megac: no slot '" + std::string(name) + "' in this plan");
}

SlotPath SlotPlan::run(int index, const SlotCall &call) const {
  const Slot &s = slots_[size_t(index)];
  if (!s.active) {
    s.stock(call);
    return SlotPath::Stock;
  }
  if (s.bounds.maxBatch >= 0 && call.batch > s.bounds.maxBatch) {
    s.boundedFallbacks->fetch_add(1, std::memory_order_relaxed);
    s.stock(call);
    return SlotPath::Stock;
  }
  s.kernel(call);
  return SlotPath::Kernel;
}

} // namespace megac::rt
