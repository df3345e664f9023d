//===- LayoutReport.cpp - megac --emit layouts ----------------------------===//
#include "LayoutReport.h"
#include "SourceLoc.h"
#include "../conversion/TileToLLVM.h"

#include "Tile/Analysis/RegisterEstimate.h"
#include "Tile/IR/TileDialect.h"
#include "Tile/Layout/SharedLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/raw_ostream.h"

#include <sstream>

using namespace mlir;

namespace megac {
namespace {

std::string printAttr(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

// file:line:col of an op of the source (else its location as MLIR prints it).
std::string where(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(sourceLoc(loc)))
    return file.getFilename().str() + ":" + std::to_string(file.getLine()) + ":" +
           std::to_string(file.getColumn());
  return printAttr(sourceLoc(loc));
}

// @fused_reductions: one line per group of reductions the lowering may
// reduce in one butterfly, and whether it does.
std::string describeReductionGroup(const ReductionGroupInfo &g) {
  std::ostringstream os;
  std::string plural = g.kind == "sum" ? "sums" : g.kind == "max" ? "maxima" : "minima";
  os << "  " << (g.members.size() > 1 ? plural : g.kind) << " at ";
  for (size_t i = 0; i < g.members.size(); ++i)
    os << (i ? ", " : "") << where(g.members[i]->getLoc());
  os << ": " << g.partials << " values a thread across the same lanes, ";
  if (g.fused)
    os << "one butterfly: " << g.shuffles << " shuffles and " << g.selects
       << " selects instead of " << g.plainShuffles << " shuffles\n";
  else
    os << "kept plain: " << g.plainShuffles << " shuffles (one butterfly would take "
       << g.shuffles << " and " << g.selects << " selects)\n";
  return os.str();
}

// One line per conversion through shared memory: where, the buffer's
// layout and the bank conflicts of its two sides.
std::string describeSharedConversion(tile::ConvertLayoutOp op,
                                     const layout::SharedLayout &shared,
                                     unsigned warps) {
  auto type = op.getType();
  auto src = tile::tileLayoutOf(op.getSrc().getType()),
       dst = tile::tileLayoutOf(type);
  if (!src || !dst)
    return "";
  layout::Shape shape(type.getShape().begin(), type.getShape().end());
  auto plan = layout::planSharedConversion(
      *src, *dst, shape, warps, shared,
      tile::sharedElementBytes(type.getElementType()));
  std::ostringstream os;
  os << "  convert at " << where(op->getLoc()) << " through shared memory: "
     << shared.str() << ", writes " << plan.write.ways << "-way, reads "
     << plan.read.ways << "-way bank conflicts\n";
  return os.str();
}

} // namespace

// --emit layouts: each kernel's distinct tile types after layout assignment,
// and the shared-memory layout of each conversion through shared memory.
std::string describeLayouts(ModuleOp module, const TargetOutput &out,
                            bool full) {
  std::ostringstream os;
  module.walk([&](func::FuncOp f) {
    if (!f->hasAttr(tile::attr::kKernel))
      return;
    unsigned warps = unsigned(tile::getNumWarps(f));
    auto cap = f->getAttrOfType<IntegerAttr>(tile::attr::kMaxNReg);
    os << "kernel " << f.getName().str() << ": num_warps = " << warps << ", ~"
       << out.registerEstimate.at(f.getName().str())
       << " registers per thread for tiles (estimate), cap "
       << (cap ? cap.getInt() : 255) << "\n";
    llvm::SetVector<RankedTensorType> types;
    f.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        if (auto rt = dyn_cast<RankedTensorType>(t))
          types.insert(rt);
      for (Region &r : op->getRegions())
        for (Block &b : r)
          for (Type t : b.getArgumentTypes())
            if (auto rt = dyn_cast<RankedTensorType>(t))
              types.insert(rt);
    });
    for (RankedTensorType t : types) {
      layout::Shape shape(t.getShape().begin(), t.getShape().end());
      os << "  [";
      for (size_t i = 0; i < shape.size(); ++i)
        os << (i ? ", " : "") << shape[i];
      std::string elem;
      {
        llvm::raw_string_ostream es(elem);
        t.getElementType().print(es);
      }
      os << "] " << elem << "  ";
      auto l = tile::tileLayoutOf(t);
      if (!l) {
        os << "(no layout)\n";
        continue;
      }
      os << printAttr(t.getEncoding()) << "  " << l->numRegisters(shape)
         << " registers per thread\n";
      if (full) {
        std::istringstream map(layout::describeOwnership(*l, shape, warps));
        for (std::string line; std::getline(map, line);)
          os << "    " << line << "\n";
      }
    }
    f.walk([&](tile::ConvertLayoutOp op) {
      if (auto shared = tile::sharedLayoutOf(op->getAttr(tile::attr::kShared)))
        os << describeSharedConversion(op, *shared, warps);
    });
    for (const ReductionGroupInfo &g : describeReductionGroups(f))
      os << describeReductionGroup(g);
  });
  return os.str();
}

} // namespace megac
