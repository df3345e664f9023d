//===- recipes.cpp - Slot names and topology recipes ----------------------===//
//
// Default slot lists per deployment topology. They follow where each kernel
// pays off: cross-rank hops only under tensor parallelism, expert routing and
// activation quantization under expert parallelism, GDN kernels on every
// layout that runs the linear-attention layers, draft/verify kernels only where
// speculative decoding runs (decode), context-parallel KV only in prefill.
//
//===----------------------------------------------------------------------===//
#include "megac/runtime/slots.h"

#include <cctype>

namespace megac::rt {

const std::vector<std::string> &knownSlotNames() {
  static const std::vector<std::string> names = {
      "shared_act_quant", "hop",           "hop_mid",  "route",
      "nvfp4_quant",      "group_quant",   "gdn_conv", "gdn_core",
      "gdn_verify",       "gdn_norm_gate", "skv2_cp",  "draft_q1_cp",
      "draft_fin"};
  return names;
}

const std::vector<Recipe> &recipes() {
  static const std::vector<Recipe> all = {
      {"TP2",
       {"hop", "group_quant", "gdn_conv", "gdn_core", "gdn_norm_gate",
        "gdn_verify", "draft_q1_cp", "draft_fin"}},
      {"TP4",
       {"hop", "hop_mid", "group_quant", "gdn_conv", "gdn_core",
        "gdn_norm_gate", "gdn_verify", "draft_q1_cp", "draft_fin"}},
      {"TP8",
       {"hop", "hop_mid", "shared_act_quant", "group_quant", "gdn_conv",
        "gdn_core", "gdn_norm_gate", "gdn_verify", "draft_q1_cp", "draft_fin"}},
      {"TEP8",
       {"hop", "hop_mid", "route", "shared_act_quant", "nvfp4_quant",
        "group_quant", "gdn_conv", "gdn_core", "gdn_norm_gate", "gdn_verify",
        "draft_q1_cp", "draft_fin"}},
      {"DEP8",
       {"route", "shared_act_quant", "nvfp4_quant", "group_quant", "gdn_conv",
        "gdn_core", "gdn_norm_gate", "gdn_verify", "draft_q1_cp", "draft_fin"}},
      {"PD_PREFILL",
       {"hop", "route", "shared_act_quant", "group_quant", "gdn_conv",
        "gdn_core", "gdn_norm_gate", "skv2_cp"}},
      {"PD_DECODE",
       {"hop", "hop_mid", "route", "shared_act_quant", "group_quant",
        "gdn_conv", "gdn_core", "gdn_norm_gate", "gdn_verify", "draft_q1_cp",
        "draft_fin"}},
  };
  return all;
}

const Recipe *findRecipe(std::string_view name) {
  for (const Recipe &r : recipes()) {
    if (r.name.size() != name.size())
      continue;
    bool same = true;
    for (size_t i = 0; i < name.size() && same; ++i)
      same = std::toupper(static_cast<unsigned char>(name[i])) == r.name[i];
    if (same)
      return &r;
  }
  return nullptr;
}

} // namespace megac::rt
