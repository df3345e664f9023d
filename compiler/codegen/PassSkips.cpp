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

llvm::StringSet<> PassSkips::keysFromEnvironment() {
  const char *env = std::getenv("MEGAC_PASS_SKIPS");
  if (!env)
    return builtinKeys();
  llvm::StringSet<> keys;
  if (llvm::StringRef(env) == "none")
    return keys;
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(env).split(parts, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef key : parts)
    keys.insert(key.trim());
  return keys;
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

bool PassSkips::shouldRun(llvm::StringRef pass, llvm::StringRef unit) {
  if (keys.empty() && !logging)
    return true;
  unsigned n = runs[(pass + llvm::Twine('\0') + unit).str()]++;
  std::string key = (phase + ":" + pass + ":" + llvm::Twine(n)).str();
  if (logging)
    log += key + "\n";
  if (!keys.contains(key))
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
