//===- slots.h - Slots: compiled kernels with a stock fallback --*- C++ -*-===//
//
// A slot is a named unit of work with a compiled kernel, a capability check
// and a stock implementation supplied by the host. A plan (from MEGAC_SLOTS or
// the API) decides once, at build time, which path each slot takes:
//  1. default plan, slot unavailable        -> stock, one INFO line;
//  2. requested slot, configuration refusal -> SlotError naming slot,
//                                              condition and fix;
//  3. requested slot, state refusal         -> stock, one INFO line;
//  4. a call beyond the slot's per-call bounds -> that call runs stock; the
//                                              slot stays active.
// Every registered slot gets exactly one INFO line naming its path and why.
//
//===----------------------------------------------------------------------===//
#ifndef MEGAC_RUNTIME_SLOTS_H
#define MEGAC_RUNTIME_SLOTS_H

#include "megac/runtime/communicator.h"
#include "megac/runtime/log.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace megac::rt {

/// Why a capability check says no. Configuration refusals (dtype, layout,
/// architecture, topology, workspace) contradict an explicit request; state
/// refusals (weights, runtime state) only fall back.
enum class Refusal { None, Configuration, State };

struct Capability {
  Refusal refusal = Refusal::None;
  std::string condition; ///< what does not hold, e.g. "world size 3 is odd"
  std::string fix;       ///< how to make it hold (configuration refusals)

  static Capability available() { return {}; }
  static Capability configuration(std::string condition, std::string fix) {
    return {Refusal::Configuration, std::move(condition), std::move(fix)};
  }
  static Capability state(std::string condition) {
    return {Refusal::State, std::move(condition), ""};
  }
};

/// What the runtime tells capability checks about the deployment.
struct PlanContext {
  std::string arch; ///< e.g. "sm_90"
  int64_t sms = 0;
  int rank = 0;
  int worldSize = 1;
  std::string topology; ///< the recipe in use, e.g. "TP8"
};

/// One call of a slot; `user` carries the host's own arguments.
struct SlotCall {
  int64_t batch = 0;
  void *stream = nullptr;
  void *user = nullptr;
};

/// Per-call bounds the kernel was validated for; -1 is unbounded.
struct CallBounds {
  int64_t maxBatch = -1;
};

struct SlotSpec {
  std::string name;
  std::function<void(const SlotCall &)> kernel;
  std::function<void(const SlotCall &)> stock;
  /// Runs once, at plan build time; empty means always available.
  std::function<Capability(const PlanContext &)> check;
  CallBounds bounds;
  /// Runs once per enabled slot after ranks agree, to allocate workspace.
  std::function<void()> enable;
};

class SlotRegistry {
public:
  /// Throws SlotError for a duplicate name or a missing kernel/stock.
  void add(SlotSpec spec);
  const std::vector<SlotSpec> &slots() const { return slots_; }
  /// -1 when absent.
  int find(std::string_view name) const;
  std::string names() const; ///< "a, b, c"

private:
  std::vector<SlotSpec> slots_;
};

/// The slot names megac ships kernels for.
const std::vector<std::string> &knownSlotNames();

/// A topology's default slot list (docs/runtime.md explains each).
struct Recipe {
  std::string name; ///< TP2, TP4, TP8, TEP8, DEP8, PD_PREFILL, PD_DECODE
  std::vector<std::string> slots;
};
const std::vector<Recipe> &recipes();
/// Case-insensitive; null when absent.
const Recipe *findRecipe(std::string_view name);

struct PlanRequest {
  std::vector<std::string> slots;
  /// Named slot by slot (comma list or API): refusals are not silent.
  bool explicitRequest = false;
  /// Where the request came from, for messages: "MEGAC_SLOTS=...", "TP8".
  std::string origin;
};

/// The default plan: the recipe's slots, or every registered slot when
/// `recipe` is empty. Throws SlotError for an unknown recipe.
PlanRequest defaultPlanRequest(const SlotRegistry &registry,
                               std::string_view recipe);

/// Parses a MEGAC_SLOTS value: "" or "default" (the default plan), "none",
/// a recipe name, or a comma list of registered slot names (explicit).
/// Throws SlotError for unknown names, empty entries or a recipe in a list.
PlanRequest parsePlanRequest(std::string_view text,
                             const SlotRegistry &registry,
                             std::string_view defaultRecipe);

/// parsePlanRequest(getenv("MEGAC_SLOTS") or "").
PlanRequest planRequestFromEnv(const SlotRegistry &registry,
                               std::string_view defaultRecipe);

enum class SlotPath { Kernel, Stock };

struct SlotDecision {
  std::string name;
  bool active = false;
  std::string reason; ///< as logged
};

class SlotPlan {
public:
  /// Runs every requested slot's capability check, agrees across ranks
  /// through `comm` (if any, before any `enable`), logs one line per slot and
  /// calls `enable` for the enabled ones. Throws SlotError when an explicitly
  /// requested slot has a configuration refusal (on any rank).
  static SlotPlan build(const SlotRegistry &registry,
                        const PlanRequest &request, const PlanContext &context,
                        Communicator *comm = nullptr, LogSink log = {});

  /// Throws SlotError for an unknown name.
  int index(std::string_view name) const;
  bool active(int slot) const { return slots_[size_t(slot)].active; }
  const std::vector<SlotDecision> &decisions() const { return decisions_; }

  /// Runs the kernel, or stock when the slot is inactive or `call` exceeds
  /// its bounds; returns which ran. No checks beyond the bounds, no logging.
  SlotPath run(int slot, const SlotCall &call) const;
  SlotPath run(std::string_view name, const SlotCall &call) const {
    return run(index(name), call);
  }
  /// Calls of an active slot sent to stock by its bounds.
  uint64_t boundedFallbacks(int slot) const {
    return slots_[size_t(slot)].boundedFallbacks->load();
  }

private:
  struct Slot {
    std::function<void(const SlotCall &)> kernel, stock;
    CallBounds bounds;
    bool active = false;
    std::unique_ptr<std::atomic<uint64_t>> boundedFallbacks;
  };
  std::vector<Slot> slots_;
  std::vector<SlotDecision> decisions_;
};

} // namespace megac::rt

#endif // MEGAC_RUNTIME_SLOTS_H
