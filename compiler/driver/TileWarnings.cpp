//===- TileWarnings.cpp - Warnings read off the tile layouts --------------===//
#include "TileWarnings.h"
#include "SourceLoc.h"

#include "Tile/Analysis/RegisterEstimate.h"
#include "Tile/IR/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace megac {
namespace {

// "kernel 'k'", or "variant 'v' of kernel 'k'" for a variant's symbol k__v.
std::string kernelOrVariant(const std::string &symbol, const CompileResult &result) {
  for (auto &[kernel, syms] : result.symbols)
    if (symbol != kernel && std::find(syms.begin(), syms.end(), symbol) != syms.end())
      return "variant '" + symbol.substr(kernel.size() + 2) + "' of kernel '" + kernel + "'";
  return "kernel '" + symbol + "'";
}

// Warns where `est.widest` is made when it holds more than
// kWideTileElementsPerThread elements per thread.
void warnIfWide(const tile::RegisterEstimate &est, const std::string &who) {
  if (est.widestElements <= kWideTileElementsPerThread)
    return;
  auto type = cast<RankedTensorType>(est.widest.getType());
  std::string tile;
  llvm::raw_string_ostream os(tile);
  os << "[";
  llvm::interleave(type.getShape(), os, ", ");
  os << "] ";
  // Spelled as in the language: a pointer tile's elements as *f32.
  Type elem = type.getElementType();
  if (auto ptr = dyn_cast<tile::PtrType>(elem))
    os << "*" << ptr.getPointeeType();
  else
    os << elem;
  // The source line, not a variant's NameLoc: the message names the variant.
  Location loc = sourceLoc(est.widest.getLoc());
  auto diag = mlir::emitWarning(loc)
              << who << " holds " << est.widestElements << " elements per thread of this " << tile
              << " tile, each compiled to instructions of its own: expect a long compile and "
                 "large code";
  diag.attachNote(loc) << tile::kHintPrefix << "take it in blocks of at most "
                       << kWideTileElementsPerThread
                       << " elements per thread, looping over them with range(), or give the "
                          "kernel more warps";
}

} // namespace

std::vector<std::function<void()>> layoutWarnings(ModuleOp module, const CompileResult &result,
                                                  TargetOutput &out, bool warn) {
  std::vector<std::function<void()>> capWarnings;
  module->walk([&](func::FuncOp f) {
    if (!f->hasAttr(tile::attr::kKernel))
      return;
    tile::RegisterEstimate est = tile::estimateRegisters(f);
    std::string symbol = f.getName().str();
    out.registerEstimate[symbol] = est.registers;
    if (!warn)
      return;
    std::string who = kernelOrVariant(symbol, result);
    warnIfWide(est, who);
    auto capAttr = f->getAttrOfType<IntegerAttr>(tile::attr::kMaxNReg);
    int64_t cap = capAttr ? capAttr.getInt() : 255;
    if (est.registers <= cap)
      return;
    // Locations, not ops: the lowering replaces the ops before the warning.
    Location loc = sourceLoc(f.getLoc());
    std::optional<Location> peak;
    if (est.peak)
      peak = sourceLoc(est.peak->getLoc());
    int64_t registers = est.registers, liveTiles = est.liveTiles;
    bool hasCap = bool(capAttr);
    capWarnings.push_back([=, &out] {
      auto spilled = out.resources.find(symbol);
      if (out.ptxasRan && spilled != out.resources.end() && spilled->second.spills() == 0)
        return;
      // mlir::emitWarning, not f.emitWarning: no IR dump attached.
      auto diag = mlir::emitWarning(loc)
                  << who << " needs about " << registers
                  << " registers per thread for its tiles (estimated from "
                     "their layouts), more than its "
                  << (hasCap ? "maxnreg of " : "limit of ") << cap
                  << ": expect spills to local memory";
      if (peak)
        diag.attachNote(*peak) << liveTiles << " tiles are live here";
    });
  });
  return capWarnings;
}

} // namespace megac
