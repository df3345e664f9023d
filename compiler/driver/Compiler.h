// The whole compilation of one .mega module: frontend, tile IR, passes,
// lowering, PTX, ptxas and the bundle. The megac tool and the Python
// extension both call this.
#ifndef MEGAC_DRIVER_COMPILER_H
#define MEGAC_DRIVER_COMPILER_H

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "../codegen/Ptxas.h"

namespace megac {

struct CompileOptions {
  std::string path;                // file to compile, or the name of `text`
  std::optional<std::string> text; // source in memory (Python), else read path
  std::map<std::string, std::string> defines; // -D NAME=VALUE
  std::vector<std::string> targets;           // empty: all targets
  // Compile only these kernels of the file (with their variants); empty: all.
  // The whole file is still checked.
  std::vector<std::string> kernels;
  bool runPtxas = true;           // when ptxas is installed
  bool keepIR = false;            // fill ast, tileIR and TargetOutput::tileIR/llvmDialect/llvmIR
  bool printIRAfterAll = false;   // dump every stage to stderr
  bool timePhases = false;        // print where compile time goes to stderr
  // Fill TargetOutput::layouts: every kernel's tile types after layout
  // assignment; `Full` adds which thread and register hold each element.
  enum class Layouts { None, Summary, Full } layouts = Layouts::None;
  // The last stage to run. `Ast`: parse and check the file (its variants
  // too); `TileIR`: and build the tile IR; `TilePasses`: and run the tile
  // passes for each target (layouts, register estimates). Neither lowers,
  // runs LLVM or ptxas, nor builds a bundle: for --emit ast, tile,
  // tile-layout and layouts, which print no later stage.
  enum class Stage { Ast, TileIR, TilePasses, All } lastStage = Stage::All;
};

struct TargetOutput {
  std::string target;
  std::string tileIR;      // after the tile passes (keepIR)
  std::string llvmDialect; // after lowering (keepIR)
  std::string llvmIR;      // after LLVM's optimizer (keepIR)
  std::string ptx;
  std::string cubin;       // empty when ptxas did not run or failed
  bool ptxasRan = false;
  std::string ptxasLog;
  std::map<std::string, KernelResources> resources; // by kernel symbol
  std::map<std::string, int64_t> registerEstimate;  // by symbol, from layouts
  std::string layouts; // --emit layouts (CompileOptions::layouts)
  double compileMs = 0; // frontend share + passes + PTX (+ ptxas separately)
  double ptxasMs = 0;
};

struct CompileResult {
  bool ok = false;
  std::string diagnostics; // formatted: file:line:col: error: ... with caret
  bool internalError = false; // an "internal: ..." error among them: megac's own bug
  unsigned warnings = 0;      // warnings among them (megac -Werror refuses the output)
  std::string moduleName;
  std::string ast;    // --emit ast (keepIR)
  std::string tileIR; // straight from the frontend, before any pass (keepIR)
  std::vector<TargetOutput> targets;
  std::vector<std::string> kernelNames;
  std::map<std::string, std::vector<std::string>> symbols; // kernel -> symbols
  std::map<std::string, int> maxnreg;                      // symbol -> cap (0 none)
  std::string manifestJson;
  std::string bundle; // the .mgb bytes
};

CompileResult compile(const CompileOptions &options);

const char *compilerVersion();

} // namespace megac

#endif
