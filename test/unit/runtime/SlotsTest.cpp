//===- SlotsTest.cpp - The slot contract: plans, outcomes, agreement ------===//
#include "megac/runtime/slots.h"
#include "megac/runtime/error.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>

using namespace megac::rt;

namespace {

/// A host with five slots whose checks depend on the context and on a flag
/// standing in for weight state; it records which implementation ran.
struct Host {
  std::map<std::string, int> kernelRuns, stockRuns, enabled;
  std::vector<std::string> log;
  bool weightsQuantized = false;
  SlotRegistry registry;

  Host() {
    add("hop", [](const PlanContext &c) {
      if (c.worldSize % 2 != 0)
        return Capability::configuration(
            "world size " + std::to_string(c.worldSize) + " is odd",
            "run with an even tensor-parallel size, or leave 'hop' out of "
            "MEGAC_SLOTS");
      return Capability::available();
    });
    add("route", [this](const PlanContext &) {
      return weightsQuantized
                 ? Capability::available()
                 : Capability::state("expert weights are not quantized");
    });
    add("nvfp4_quant", [](const PlanContext &c) {
      if (c.arch != "sm_100a")
        return Capability::configuration(
            "fp4 conversion needs sm_100a, the device is " + c.arch,
            "use group_quant on this device");
      return Capability::available();
    });
    add("gdn_core", nullptr, 32);
    add("group_quant", nullptr);
  }

  void add(const std::string &name,
           std::function<Capability(const PlanContext &)> check,
           int64_t maxBatch = -1) {
    SlotSpec s;
    s.name = name;
    s.kernel = [this, name](const SlotCall &) { ++kernelRuns[name]; };
    s.stock = [this, name](const SlotCall &) { ++stockRuns[name]; };
    s.check = std::move(check);
    s.bounds.maxBatch = maxBatch;
    s.enable = [this, name] { ++enabled[name]; };
    registry.add(std::move(s));
  }

  SlotPlan build(const PlanRequest &request, PlanContext ctx = context(),
                 Communicator *comm = nullptr) {
    return SlotPlan::build(registry, request, ctx, comm,
                           [this](const std::string &l) { log.push_back(l); });
  }

  SlotPlan build(std::string_view slots) {
    return build(parsePlanRequest(slots, registry, ""));
  }

  static PlanContext context() {
    PlanContext c;
    c.arch = "sm_90";
    c.sms = 132;
    c.worldSize = 8;
    return c;
  }

  std::string lineFor(const std::string &slot) const {
    std::string found;
    for (const std::string &l : log)
      if (l.rfind("slot '" + slot + "':", 0) == 0) {
        EXPECT_TRUE(found.empty()) << "two lines for " << slot;
        found = l;
      }
    return found;
  }
};

template <typename F> std::string slotError(F f) {
  try {
    f();
  } catch (const SlotError &e) {
    return e.what();
  }
  ADD_FAILURE() << "no SlotError";
  return "";
}

TEST(Slots, DefaultPlanUnavailableSlotRunsStockWithOneInfoLine) {
  Host h;
  SlotPlan plan = h.build("default");
  EXPECT_EQ(h.log.size(), 5u); // one line per slot
  EXPECT_FALSE(plan.active(plan.index("nvfp4_quant")));
  EXPECT_EQ(h.lineFor("nvfp4_quant"),
            "slot 'nvfp4_quant': stock (default plan, unavailable: fp4 "
            "conversion needs sm_100a, the device is sm_90)");
  EXPECT_EQ(plan.run("nvfp4_quant", {}), SlotPath::Stock);
  EXPECT_EQ(h.stockRuns["nvfp4_quant"], 1);
  EXPECT_EQ(h.lineFor("hop"), "slot 'hop': kernel (default plan)");
  EXPECT_EQ(plan.run("hop", {}), SlotPath::Kernel);
  EXPECT_EQ(h.kernelRuns["hop"], 1);
  // State refusals in the default plan fall back the same way.
  EXPECT_EQ(h.lineFor("route"), "slot 'route': stock (default plan, refused "
                                "for runtime state: expert weights are not "
                                "quantized)");
}

TEST(Slots, ExplicitConfigurationContradictionIsAnError) {
  Host h;
  PlanContext ctx = Host::context();
  ctx.worldSize = 3;
  std::string msg = slotError([&] {
    h.build(parsePlanRequest("hop,group_quant", h.registry, ""), ctx);
  });
  EXPECT_EQ(msg, "megac: slot 'hop' was requested by "
                 "MEGAC_SLOTS=hop,group_quant but cannot run: world size 3 is "
                 "odd; fix: run with an even tensor-parallel size, or leave "
                 "'hop' out of MEGAC_SLOTS");
  EXPECT_TRUE(h.enabled.empty()); // nothing allocated
  // The same contradiction in the default plan only falls back.
  Host h2;
  SlotPlan plan = h2.build(defaultPlanRequest(h2.registry, ""), ctx);
  EXPECT_FALSE(plan.active(plan.index("hop")));
}

TEST(Slots, ExplicitStateRefusalLogsAndRunsStock) {
  Host h;
  SlotPlan plan = h.build("route,gdn_core");
  EXPECT_FALSE(plan.active(plan.index("route")));
  EXPECT_EQ(h.lineFor("route"),
            "slot 'route': stock (requested by MEGAC_SLOTS=route,gdn_core, "
            "refused for runtime state: expert weights are not quantized)");
  EXPECT_EQ(plan.run("route", {}), SlotPath::Stock);
  h.weightsQuantized = true;
  SlotPlan later = h.build("route");
  EXPECT_TRUE(later.active(later.index("route")));
}

TEST(Slots, PerCallBoundSendsOnlyThatCallToStock) {
  Host h;
  SlotPlan plan = h.build("gdn_core");
  int slot = plan.index("gdn_core");
  EXPECT_EQ(h.lineFor("gdn_core"),
            "slot 'gdn_core': kernel (requested by MEGAC_SLOTS=gdn_core); "
            "calls with batch > 32 run stock");
  size_t linesAfterBuild = h.log.size();
  EXPECT_EQ(plan.run(slot, {32, nullptr, nullptr}), SlotPath::Kernel);
  EXPECT_EQ(plan.run(slot, {33, nullptr, nullptr}), SlotPath::Stock);
  EXPECT_EQ(plan.run(slot, {32, nullptr, nullptr}), SlotPath::Kernel);
  EXPECT_TRUE(plan.active(slot));
  EXPECT_EQ(h.kernelRuns["gdn_core"], 2);
  EXPECT_EQ(h.stockRuns["gdn_core"], 1);
  EXPECT_EQ(plan.boundedFallbacks(slot), 1u);
  EXPECT_EQ(h.log.size(), linesAfterBuild); // no per-call logging
}

TEST(Slots, UnrequestedSlotsRunStockAndSayWhy) {
  Host h;
  SlotPlan plan = h.build("group_quant");
  EXPECT_EQ(h.lineFor("hop"),
            "slot 'hop': stock (not in MEGAC_SLOTS=group_quant)");
  EXPECT_EQ(plan.run("hop", {}), SlotPath::Stock);
  EXPECT_EQ(h.enabled.count("hop"), 0u);
  EXPECT_EQ(h.enabled["group_quant"], 1);
}

TEST(Slots, RecipePlans) {
  Host h;
  PlanRequest r = parsePlanRequest("tp2", h.registry, "");
  EXPECT_FALSE(r.explicitRequest);
  EXPECT_EQ(r.origin, "default plan TP2");
  SlotPlan plan = h.build(r);
  EXPECT_TRUE(plan.active(plan.index("hop")));
  EXPECT_TRUE(plan.active(plan.index("gdn_core")));
  EXPECT_FALSE(plan.active(plan.index("route"))); // not in TP2
  EXPECT_EQ(h.lineFor("route"),
            "slot 'route': stock (not in default plan TP2)");
  // "default" uses the host's recipe when it names one.
  EXPECT_EQ(parsePlanRequest("default", h.registry, "DEP8").slots,
            findRecipe("DEP8")->slots);
  for (const Recipe &recipe : recipes())
    for (const std::string &slot : recipe.slots)
      EXPECT_NE(
          std::find(knownSlotNames().begin(), knownSlotNames().end(), slot),
          knownSlotNames().end())
          << recipe.name << " names " << slot;
  EXPECT_EQ(recipes().size(), 7u);
}

TEST(Slots, EnvVarParsing) {
  Host h;
  setenv("MEGAC_SLOTS", " hop , gdn_core,hop", 1);
  PlanRequest r = planRequestFromEnv(h.registry, "");
  EXPECT_TRUE(r.explicitRequest);
  EXPECT_EQ(r.slots, (std::vector<std::string>{"hop", "gdn_core"}));
  unsetenv("MEGAC_SLOTS");
  PlanRequest d = planRequestFromEnv(h.registry, "");
  EXPECT_FALSE(d.explicitRequest);
  EXPECT_EQ(d.slots.size(), 5u);
  PlanRequest none = parsePlanRequest("none", h.registry, "TP8");
  EXPECT_TRUE(none.slots.empty());

  EXPECT_EQ(slotError([&] { parsePlanRequest("hop,hopx", h.registry, ""); }),
            "megac: MEGAC_SLOTS=hop,hopx: unknown slot 'hopx' (registered "
            "slots: hop, route, nvfp4_quant, gdn_core, group_quant; or "
            "default, none, or a recipe: TP2, TP4, TP8, TEP8, DEP8, "
            "PD_PREFILL, PD_DECODE)");
  EXPECT_EQ(slotError([&] { parsePlanRequest("hop,,route", h.registry, ""); }),
            "megac: MEGAC_SLOTS=hop,,route: empty entry in the slot list");
  EXPECT_EQ(slotError([&] { parsePlanRequest("hop,TP8", h.registry, ""); }),
            "megac: MEGAC_SLOTS=hop,TP8: 'TP8' names a whole plan; give it "
            "alone, not in a list");
  EXPECT_EQ(slotError([&] { parsePlanRequest("default", h.registry, "TP3"); }),
            "megac: unknown recipe 'TP3' (recipes: TP2, TP4, TP8, TEP8, DEP8, "
            "PD_PREFILL, PD_DECODE)");
}

TEST(Slots, RegistryRefusesDuplicatesAndMissingImplementations) {
  Host h;
  SlotSpec dup;
  dup.name = "hop";
  dup.kernel = dup.stock = [](const SlotCall &) {};
  EXPECT_EQ(slotError([&] { h.registry.add(dup); }),
            "megac: slot 'hop' is registered twice");
  SlotSpec noStock;
  noStock.name = "x";
  noStock.kernel = [](const SlotCall &) {};
  EXPECT_THROW(h.registry.add(noStock), SlotError);
}

TEST(Slots, DefaultLogSinkPrefixesInfo) {
  Host h;
  testing::internal::CaptureStderr();
  SlotPlan::build(h.registry, parsePlanRequest("hop", h.registry, ""),
                  Host::context());
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("megac INFO: slot 'hop': kernel (requested by "
                     "MEGAC_SLOTS=hop)\n"),
            std::string::npos)
      << err;
}

TEST(CrossRank, SlotIsEnabledOnlyIfEveryRankEnablesIt) {
  Host h;
  FakeCommunicator comm(0, 4);
  // Rank 2 cannot run slot 4 (group_quant): say its weights differ.
  comm.setPeer(2, [](std::vector<int32_t> &v) { v[4] = 0; });
  SlotPlan plan =
      h.build(parsePlanRequest("hop,gdn_core,group_quant", h.registry, ""),
              Host::context(), &comm);
  EXPECT_EQ(comm.calls(), 1);
  EXPECT_EQ(comm.lastLocal(), (std::vector<int32_t>{1, 0, 0, 1, 1, 1}));
  EXPECT_TRUE(plan.active(plan.index("hop")));
  EXPECT_FALSE(plan.active(plan.index("group_quant")));
  EXPECT_EQ(h.lineFor("group_quant"),
            "slot 'group_quant': stock (disabled on another rank: every rank "
            "must enable it)");
  // Allocation happened only after agreement, and only for agreed slots.
  EXPECT_EQ(h.enabled.count("group_quant"), 0u);
  EXPECT_EQ(h.enabled["hop"], 1);
}

TEST(CrossRank, AllRanksAgreeLeavesThePlanAlone) {
  Host h;
  FakeCommunicator comm(1, 8);
  SlotPlan plan =
      h.build(defaultPlanRequest(h.registry, ""), Host::context(), &comm);
  EXPECT_EQ(comm.calls(), 1);
  EXPECT_TRUE(plan.active(plan.index("hop")));
  EXPECT_TRUE(plan.active(plan.index("gdn_core")));
}

TEST(CrossRank, ConfigurationErrorOnAnotherRankStopsEveryRank) {
  Host h;
  FakeCommunicator comm(0, 2);
  comm.setPeer(1, [](std::vector<int32_t> &v) { v.back() = 0; });
  EXPECT_EQ(slotError([&] {
              h.build(parsePlanRequest("hop", h.registry, ""), Host::context(),
                      &comm);
            }),
            "megac: slot plan refused on another rank: a slot requested by "
            "MEGAC_SLOTS=hop contradicts that rank's configuration (see its "
            "error)");
  EXPECT_TRUE(h.enabled.empty());
}

TEST(CrossRank, TheRankWithTheErrorStillJoinsTheExchange) {
  Host h;
  FakeCommunicator comm(0, 2);
  PlanContext ctx = Host::context();
  ctx.worldSize = 3;
  EXPECT_THROW(h.build(parsePlanRequest("hop", h.registry, ""), ctx, &comm),
               SlotError);
  EXPECT_EQ(comm.calls(), 1); // peers are not left waiting
}

} // namespace
