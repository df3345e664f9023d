//===- slot_request.cpp - Registry and MEGAC_SLOTS parsing ----------------===//
#include "megac/runtime/error.h"
#include "megac/runtime/slots.h"

#include <cstdlib>

namespace megac::rt {

void SlotRegistry::add(SlotSpec spec) {
  if (find(spec.name) >= 0)
    throw SlotError("megac: slot '" + spec.name + "' is registered twice");
  if (!spec.kernel || !spec.stock)
    throw SlotError("megac: slot '" + spec.name +
                    "' needs both a kernel and a stock implementation");
  slots_.push_back(std::move(spec));
}

int SlotRegistry::find(std::string_view name) const {
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].name == name)
      return int(i);
  return -1;
}

std::string SlotRegistry::names() const {
  std::string out;
  for (const SlotSpec &s : slots_)
    out += (out.empty() ? "" : ", ") + s.name;
  return out.empty() ? "none" : out;
}

namespace {

std::string recipeNames() {
  std::string out;
  for (const Recipe &r : recipes())
    out += (out.empty() ? "" : ", ") + r.name;
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

} // namespace

PlanRequest defaultPlanRequest(const SlotRegistry &registry,
                               std::string_view recipe) {
  PlanRequest r;
  if (recipe.empty()) {
    for (const SlotSpec &s : registry.slots())
      r.slots.push_back(s.name);
    r.origin = "default plan";
    return r;
  }
  const Recipe *found = findRecipe(recipe);
  if (!found)
    throw SlotError("megac: unknown recipe '" + std::string(recipe) +
                    "' (recipes: " + recipeNames() + ")");
  r.slots = found->slots;
  r.origin = "default plan " + found->name;
  return r;
}

PlanRequest parsePlanRequest(std::string_view text,
                             const SlotRegistry &registry,
                             std::string_view defaultRecipe) {
  std::string_view value = trim(text);
  std::string origin = "MEGAC_SLOTS=" + std::string(text);
  if (value.empty() || value == "default")
    return defaultPlanRequest(registry, defaultRecipe);
  if (value == "none") {
    PlanRequest r;
    r.explicitRequest = true;
    r.origin = origin;
    return r;
  }
  if (const Recipe *recipe = findRecipe(value))
    return defaultPlanRequest(registry, recipe->name);

  PlanRequest r;
  r.explicitRequest = true;
  r.origin = origin;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = value.find(',', start);
    std::string_view item = trim(value.substr(
        start, comma == std::string_view::npos ? std::string_view::npos
                                               : comma - start));
    if (item.empty())
      throw SlotError("megac: " + origin + ": empty entry in the slot list");
    if (findRecipe(item) || item == "default" || item == "none")
      throw SlotError("megac: " + origin + ": '" + std::string(item) +
                      "' names a whole plan; give it alone, not in a list");
    if (registry.find(item) < 0)
      throw SlotError(
          "megac: " + origin + ": unknown slot '" + std::string(item) +
          "' (registered slots: " + registry.names() +
          "; or default, none, or a recipe: " + recipeNames() + ")");
    bool seen = false;
    for (const std::string &s : r.slots)
      seen = seen || s == item;
    if (!seen)
      r.slots.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    start = comma + 1;
  }
  return r;
}

PlanRequest planRequestFromEnv(const SlotRegistry &registry,
                               std::string_view defaultRecipe) {
  const char *value = std::getenv("MEGAC_SLOTS");
  return parsePlanRequest(value ? value : "", registry, defaultRecipe);
}

} // namespace megac::rt
