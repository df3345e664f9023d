// megac: compile .mega tile-language modules to PTX, cubins and bundles.
#include "../driver/Compiler.h"
#include "../target/Target.h"
#include "frontend/EditDistance.h"
#include "megac/runtime/bundle.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

const char *kUsage = R"(usage: megac FILE.mega... [options]

Compiles tile-language modules to PTX for NVIDIA GPUs.

options:
  --target T          sm_90a, sm_100a, sm_103a or all (default: all); repeatable
  -o OUT              write the output here (default: stdout, or a report)
  --emit KIND         ast | tile | tile-layout | layouts | llvm | llvm-ir |
                      ptx | cubin | bundle | header | manifest | report
                      (manifest: the bundle's manifest, JSON; ast, tile,
                      tile-layout and layouts stop at their stage: no LLVM,
                      no ptxas)
                      (default: bundle with -o FILE.mgb, else report)
  --print-layout[=full]  same as --emit layouts: every kernel's tile types with
                      their layouts and registers per thread; =full adds which
                      thread and register hold each element
  -D NAME=VALUE       override a compile-time constant; repeatable
  --kernel NAME       compile only this kernel of the file (and its variants);
                      repeatable; the whole file is still checked
  --no-ptxas          skip ptxas (no cubin, no register report)
  --print-ir-after-all  print the IR after every stage to stderr
  --time-phases       print where compile time goes, per target, to stderr
  -Werror             treat warnings as errors: print them, write nothing and
                      exit 1
  --help, --version

With no -o and no --emit, megac prints one row per kernel, variant and target:
the registers estimated from the tile layouts (est), then ptxas's registers,
spills, stack, shared memory and compile time.

Environment:
  MEGAC_THREADS       threads that analyze variants and compile a module's
                      kernels and its targets side by side (default: the
                      hardware's)
  MEGAC_PASS_SKIPS=none  LLVM's full pipelines, without the pass runs megac
                      skips because they change no PTX
  MEGAC_LARGE_PASS_SKIPS=none  without those it skips on large functions only
  MEGAC_COSTLY_PASS_SKIPS=none  without the runs it skips on large functions
                      for their compile time, which change the PTX
                      (each of the three also takes a comma-separated list of
                      runs to skip instead of megac's own: keys as
                      compiler/codegen/PassSkips.h names them)
  MEGAC_PASS_LOG=FILE  append each pass run megac asks about, with its key
                      (scripts/find_pass_skips.py reads it)
  MEGAC_MACHINE_OPT_MAX  kernels of more LLVM instructions after O3 are
                      generated at CodeGenOptLevel::None (default 2000)
  MEGAC_DIRECT_TO_LLVM=none  scf goes to cf, and arith, math and cf to the
                      LLVM dialect, through MLIR's pass and dialect conversion,
                      and the LLVM dialect to LLVM IR through MLIR's
                      translation, not megac's walks: the same IR;
                      =check: both translations, an error if they differ
  MEGAC_TIME_PASSES   1: LLVM's pass timers, a line a pass, to stderr; 2: a
                      line a pass run
  MEGAC_OWN_LIBDEVICE=none  link every libdevice function from libdevice,
                      none written by megac
  MEGAC_LIBDEVICE     libdevice.10.bc (default: CUDA_HOME's, then
                      /usr/local/cuda's)
  MEGAC_PTXAS         ptxas (default: CUDA_HOME's, /usr/local/cuda's, then
                      PATH's)
)";

struct Args {
  std::vector<std::string> files;
  std::vector<std::string> targets;
  std::string output;
  std::string emit;
  std::map<std::string, std::string> defines;
  std::vector<std::string> kernels;
  bool ptxas = true;
  bool printIR = false;
  bool timePhases = false;
  bool fullLayouts = false;
  bool werror = false;
};

[[noreturn]] void usageError(const std::string &msg,
                             const std::string &hint = "run 'megac --help'") {
  std::cerr << "megac: error: " << msg << "\nhint: " << hint << "\n";
  std::exit(1);
}

/// "did you mean" for a misspelt option or --emit kind, else the help.
std::string suggest(const std::string &given, const std::vector<std::string> &known) {
  std::string hint = megac::fe::didYouMean(given, known);
  return hint.empty() ? "run 'megac --help'" : hint;
}

Args parseArgs(int argc, char **argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string s = argv[i];
    auto value = [&](const char *flag) -> std::string {
      if (i + 1 >= argc)
        usageError(std::string(flag) + " needs a value");
      return argv[++i];
    };
    if (s == "--help" || s == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else if (s == "--version") {
      std::cout << "megac " << megac::compilerVersion() << "\n";
      std::exit(0);
    } else if (s == "--target") {
      std::string t = value("--target");
      if (t == "all")
        for (const auto &target : megac::allTargets())
          a.targets.push_back(target.name);
      else
        a.targets.push_back(t);
    } else if (s.rfind("--target=", 0) == 0) {
      a.targets.push_back(s.substr(9));
    } else if (s == "-o") {
      a.output = value("-o");
    } else if (s == "--emit") {
      a.emit = value("--emit");
    } else if (s.rfind("--emit=", 0) == 0) {
      a.emit = s.substr(7);
    } else if (s == "-D" || (s.rfind("-D", 0) == 0 && s.size() > 2)) {
      std::string def = s == "-D" ? value("-D") : s.substr(2);
      size_t eq = def.find('=');
      if (eq == std::string::npos || eq == 0)
        usageError("-D expects NAME=VALUE, got '" + def + "'");
      a.defines[def.substr(0, eq)] = def.substr(eq + 1);
    } else if (s == "--print-layout" || s == "--print-layout=summary") {
      a.emit = "layouts";
    } else if (s == "--print-layout=full") {
      a.emit = "layouts";
      a.fullLayouts = true;
    } else if (s.rfind("--print-layout=", 0) == 0) {
      usageError("--print-layout takes 'summary' or 'full', got '" +
                 s.substr(15) + "'");
    } else if (s == "--kernel") {
      a.kernels.push_back(value("--kernel"));
    } else if (s == "--no-ptxas") {
      a.ptxas = false;
    } else if (s == "--print-ir-after-all") {
      a.printIR = true;
    } else if (s == "--time-phases") {
      a.timePhases = true;
    } else if (s == "-Werror") {
      a.werror = true;
    } else if (!s.empty() && s[0] == '-') {
      usageError("unknown option '" + s + "'",
                 suggest(s.substr(0, s.find('=')),
                         {"--target", "--emit", "--print-layout", "--kernel", "--no-ptxas",
                          "--print-ir-after-all", "--time-phases", "-Werror", "--help",
                          "--version"}));
    } else {
      a.files.push_back(s);
    }
  }
  if (a.files.empty())
    usageError("no input file");
  static const std::vector<std::string> kinds = {
      "ast", "tile",  "tile-layout", "layouts", "llvm",     "llvm-ir",
      "ptx", "cubin", "bundle",      "header",  "manifest", "report"};
  if (!a.emit.empty() && std::find(kinds.begin(), kinds.end(), a.emit) == kinds.end())
    usageError("unknown --emit kind '" + a.emit + "'",
               a.emit == "asm" || a.emit == "sass"
                   ? "the assembly is --emit ptx, the machine code --emit cubin"
                   : suggest(a.emit, kinds));
  if (a.emit.empty()) {
    auto ends = [&](const char *ext) {
      return a.output.size() > strlen(ext) &&
             a.output.compare(a.output.size() - strlen(ext), strlen(ext), ext) == 0;
    };
    a.emit = ends(".ptx")     ? "ptx"
             : ends(".cubin") ? "cubin"
             : ends(".h")     ? "header"
             : ends(".mgb")   ? "bundle"
                              : "report";
  }
  bool perTarget = a.emit == "tile-layout" || a.emit == "layouts" || a.emit == "llvm" ||
                   a.emit == "llvm-ir" || a.emit == "ptx" || a.emit == "cubin";
  if (perTarget && a.targets.size() != 1)
    usageError("--emit " + a.emit + " needs exactly one --target");
  if (a.files.size() > 1 && a.emit != "report")
    usageError("several input files are only allowed for the report");
  return a;
}

/// The symbol of `--emit header`'s array: megac_bundle_ and the module name
/// with every character that a C identifier may not hold as '_' (a file
/// named attn-decode.mega gives megac_bundle_attn_decode).
std::string headerSymbol(const std::string &moduleName) {
  std::string symbol = "megac_bundle_" + moduleName;
  for (char &c : symbol)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      c = '_';
  return symbol;
}

void writeOutput(const Args &a, const std::string &data) {
  if (a.output.empty() || a.output == "-") {
    std::cout << data;
    return;
  }
  std::ofstream out(a.output, std::ios::binary);
  out << data;
  if (!out)
    usageError("cannot write '" + a.output + "'");
}

void printReportHeader() {
  std::printf("%-20s %-22s %-8s %5s %5s %7s %6s %7s %9s %9s\n", "kernel",
              "variant", "target", "est", "regs", "spills", "stack", "smem",
              "compile", "ptxas");
}

void printReport(const megac::CompileResult &r) {
  for (const auto &kernel : r.kernelNames)
    for (const auto &symbol : r.symbols.at(kernel))
      for (const auto &t : r.targets) {
        std::string variant = symbol == kernel ? "default" : symbol.substr(kernel.size() + 2);
        int cap = r.maxnreg.count(symbol) ? r.maxnreg.at(symbol) : 0;
        if (cap)
          variant += " (cap " + std::to_string(cap) + ")";
        auto est = t.registerEstimate.find(symbol);
        std::string estimate =
            est == t.registerEstimate.end() ? "-" : std::to_string(est->second);
        auto it = t.resources.find(symbol);
        if (it == t.resources.end()) {
          std::printf("%-20s %-22s %-8s %5s %5s %7s %6s %7s %7.1fms %9s\n",
                      kernel.c_str(), variant.c_str(), t.target.c_str(),
                      estimate.c_str(), "-", "-", "-", "-", t.compileMs,
                      "no ptxas");
          continue;
        }
        const auto &res = it->second;
        std::printf("%-20s %-22s %-8s %5s %5d %7d %6d %7d %7.1fms %7.1fms\n",
                    kernel.c_str(), variant.c_str(), t.target.c_str(),
                    estimate.c_str(), res.registers, res.spills(), res.stack,
                    res.shared, t.compileMs, t.ptxasMs);
      }
}

} // namespace

int main(int argc, char **argv) {
  Args a = parseArgs(argc, argv);
  bool anyError = false;
  bool headerPrinted = false;
  for (const std::string &file : a.files) {
    megac::CompileOptions opts;
    opts.path = file;
    opts.defines = a.defines;
    opts.kernels = a.kernels;
    opts.targets = a.targets;
    opts.runPtxas = a.ptxas;
    opts.keepIR = a.emit == "ast" || a.emit == "tile" || a.emit == "tile-layout" ||
                  a.emit == "llvm" || a.emit == "llvm-ir";
    // What --emit prints decides how far the compile goes (with
    // --print-ir-after-all, every stage runs).
    if (!a.printIR) {
      if (a.emit == "ast")
        opts.lastStage = megac::CompileOptions::Stage::Ast;
      else if (a.emit == "tile")
        opts.lastStage = megac::CompileOptions::Stage::TileIR;
      else if (a.emit == "tile-layout" || a.emit == "layouts")
        opts.lastStage = megac::CompileOptions::Stage::TilePasses;
    }
    opts.printIRAfterAll = a.printIR;
    opts.timePhases = a.timePhases;
    if (a.emit == "layouts")
      opts.layouts = a.fullLayouts ? megac::CompileOptions::Layouts::Full
                                   : megac::CompileOptions::Layouts::Summary;
    megac::CompileResult r = megac::compile(opts);
    std::cerr << r.diagnostics;
    if (!r.ok) {
      anyError = true;
      continue;
    }
    if (a.werror && r.warnings) {
      std::cerr << "megac: error: " << file << ": -Werror makes "
                << (r.warnings == 1 ? std::string("the warning above an error")
                                    : "the " + std::to_string(r.warnings) + " warnings above errors")
                << "; nothing written\n";
      anyError = true;
      continue;
    }
    const megac::TargetOutput *t = r.targets.empty() ? nullptr : &r.targets[0];
    if (a.emit == "report") {
      if (!headerPrinted)
        printReportHeader();
      headerPrinted = true;
      printReport(r);
    }
    else if (a.emit == "ast")
      writeOutput(a, r.ast);
    else if (a.emit == "tile")
      writeOutput(a, r.tileIR);
    else if (a.emit == "tile-layout")
      writeOutput(a, t->tileIR);
    else if (a.emit == "layouts")
      writeOutput(a, t->layouts);
    else if (a.emit == "llvm")
      writeOutput(a, t->llvmDialect);
    else if (a.emit == "llvm-ir")
      writeOutput(a, t->llvmIR);
    else if (a.emit == "ptx")
      writeOutput(a, t->ptx);
    else if (a.emit == "cubin") {
      if (t->cubin.empty()) {
        std::cerr << "megac: error: no cubin: ptxas was not found or --no-ptxas "
                     "was given\n";
        return 1;
      }
      writeOutput(a, t->cubin);
    } else if (a.emit == "bundle")
      writeOutput(a, r.bundle);
    else if (a.emit == "header")
      writeOutput(a, megac::rt::bundleToCppHeader(r.bundle, headerSymbol(r.moduleName)));
    else if (a.emit == "manifest")
      writeOutput(a, r.manifestJson + "\n");
  }
  return anyError ? 1 : 0;
}
