#include "PassSkips.h"

#include "llvm/ADT/Any.h"
#include "llvm/Analysis/LazyCallGraph.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassInstrumentation.h"

#include <cstdio>
#include <cstdlib>

namespace megac {

const llvm::StringSet<> &PassSkips::builtinKeys() {
  static const llvm::StringSet<> keys = {
#include "PassSkipList.inc"
  };
  return keys;
}

const llvm::StringSet<> &PassSkips::builtinLargeKeys() {
  static const llvm::StringSet<> keys = {
#include "PassSkipListLarge.inc"
  };
  return keys;
}

const llvm::StringSet<> &PassSkips::builtinCostlyKeys() {
  static const llvm::StringSet<> keys = {
#include "PassSkipListCostly.inc"
  };
  return keys;
}

llvm::StringSet<> functionsOver(const llvm::Module &module, unsigned instructions) {
  llvm::StringSet<> over;
  for (const llvm::Function &f : module)
    if (!f.isDeclaration() && f.getInstructionCount() > instructions)
      over.insert(f.getName());
  return over;
}

llvm::StringSet<> largeFunctions(const llvm::Module &module) {
  return functionsOver(module, kLargeFunctionInstructions);
}

namespace {

// A list of keys from the environment variable `name`, else `builtin`.
llvm::StringSet<> keysFrom(const char *name, const llvm::StringSet<> &builtin) {
  const char *env = std::getenv(name);
  if (!env)
    return builtin;
  llvm::StringSet<> keys;
  if (llvm::StringRef(env) == "none")
    return keys;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(env).split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef key : parts)
    keys.insert(key.trim());
  return keys;
}

// The function a pass's unit names: "f" (the new pass manager's function
// and loop passes), "(f)" (a call-graph SCC of one function), "function (f)"
// (the legacy pass manager); anything else (a module) names none.
llvm::StringRef functionOf(llvm::StringRef unit) {
  unit.consume_front("function ");
  if (unit.consume_front("("))
    unit.consume_back(")");
  return unit;
}

} // namespace

llvm::StringSet<> PassSkips::keysFromEnvironment() {
  return keysFrom("MEGAC_PASS_SKIPS", builtinKeys());
}

llvm::StringSet<> PassSkips::largeKeysFromEnvironment() {
  return keysFrom("MEGAC_LARGE_PASS_SKIPS", builtinLargeKeys());
}

llvm::StringSet<> PassSkips::costlyKeysFromEnvironment() {
  return keysFrom("MEGAC_COSTLY_PASS_SKIPS", builtinCostlyKeys());
}

PassSkips::PassSkips(std::string phase, llvm::StringSet<> keys)
    : phase(std::move(phase)), keys(std::move(keys)),
      logging(std::getenv("MEGAC_PASS_LOG") != nullptr) {}

PassSkips::~PassSkips() {
  if (!logging || log.empty())
    return;
  if (FILE *f = std::fopen(std::getenv("MEGAC_PASS_LOG"), "a")) {
    std::fputs(log.c_str(), f);
    std::fclose(f);
  }
}

void PassSkips::alsoOnLarge(llvm::StringSet<> keys, llvm::StringSet<> functions) {
  largeKeys = std::move(keys);
  large = std::move(functions);
}

void PassSkips::alsoSkipPass(llvm::StringRef pass, llvm::StringSet<> functions) {
  if (!functions.empty())
    passSkippedOn[pass] = std::move(functions);
}

bool PassSkips::keepsLoopForm(llvm::StringRef pass) {
  return pass == "LoopSimplifyPass" || pass == "LCSSAPass";
}

bool PassSkips::shouldRun(llvm::StringRef pass, llvm::StringRef unit) {
  if (keepsLoopForm(pass))
    return true;
  if (keys.empty() && (largeKeys.empty() || large.empty()) && passSkippedOn.empty() && !logging)
    return true;
  unsigned n = runs[(pass + llvm::Twine('\0') + unit).str()]++;
  std::string key = (phase + ":" + pass + ":" + llvm::Twine(n)).str();
  llvm::StringRef function = functionOf(unit);
  bool onLarge = !large.empty() && large.contains(function);
  if (logging)
    log += key + (onLarge ? "\tlarge\n" : "\n");
  auto skippedPass = passSkippedOn.find(pass);
  bool passSkippedHere = skippedPass != passSkippedOn.end() && skippedPass->second.contains(function);
  if (!keys.contains(key) && !(onLarge && largeKeys.contains(key)) && !passSkippedHere)
    return true;
  ++numSkipped;
  return false;
}

namespace {

// The function (or module, SCC) a new-pass-manager pass runs on; a loop
// pass counts on its loop's function.
std::string unitOf(const llvm::Any &ir) {
  if (const auto *f = llvm::any_cast<const llvm::Function *>(&ir))
    return (*f)->getName().str();
  if (const auto *l = llvm::any_cast<const llvm::Loop *>(&ir))
    return (*l)->getHeader()->getParent()->getName().str();
  if (const auto *c = llvm::any_cast<const llvm::LazyCallGraph::SCC *>(&ir))
    return (*c)->getName();
  return "module";
}

} // namespace

void PassSkips::registerOn(llvm::PassInstrumentationCallbacks &pic) {
  pic.registerShouldRunOptionalPassCallback(
      [this](llvm::StringRef pass, llvm::Any ir) { return shouldRun(pass, unitOf(ir)); });
}

} // namespace megac
