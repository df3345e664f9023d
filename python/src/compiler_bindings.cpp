//===- compiler_bindings.cpp - megac._compiler: the compiler for Python ---===//
//
// One function over megac::compile (compiler/driver/Compiler.h): the whole
// pipeline, with the GIL released while it runs, returning plain Python data
// (dicts, str, bytes). The Python side (megac/compiler.py) turns that into a
// CompiledModule, raises MegacError on diagnostics and caches results.
//
// Built only with the compiler (MegacDriver, MLIR/LLVM). Only Compiler.h and
// Ptxas.h are included here: no MLIR header, so this file may use RTTI while
// the driver is built without it.
//
//===----------------------------------------------------------------------===//
#include "../../compiler/driver/Compiler.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

// Calls of megac::compile made through this extension: lets tests (and users)
// see that a cache hit did not run the compiler.
std::atomic<uint64_t> compileCount{0};

py::dict resourcesToDict(const megac::KernelResources &r) {
  py::dict d;
  d["registers"] = r.registers;
  d["spills"] = r.spills();
  d["spill_stores"] = r.spillStores;
  d["spill_loads"] = r.spillLoads;
  d["stack"] = r.stack;
  d["shared"] = r.shared;
  return d;
}

py::dict compileRaw(const std::string &path,
                    const std::optional<std::string> &text,
                    const std::map<std::string, std::string> &defines,
                    const std::vector<std::string> &targets, bool runPtxas,
                    bool keepIR) {
  megac::CompileOptions options;
  options.path = path;
  options.text = text;
  options.defines = defines;
  options.targets = targets;
  options.runPtxas = runPtxas;
  options.keepIR = keepIR;
  megac::CompileResult r;
  {
    py::gil_scoped_release release;
    ++compileCount;
    r = megac::compile(options);
  }

  py::dict out;
  out["ok"] = r.ok;
  out["diagnostics"] = r.diagnostics;
  out["module"] = r.moduleName;
  out["kernels"] = r.kernelNames;
  out["symbols"] = r.symbols;
  out["maxnreg"] = r.maxnreg;
  out["manifest_json"] = r.manifestJson;
  out["bundle"] = py::bytes(r.bundle);
  out["ast"] = r.ast;
  out["tile"] = r.tileIR;
  py::list targetList;
  for (const megac::TargetOutput &t : r.targets) {
    py::dict d;
    d["target"] = t.target;
    d["tile-layout"] = t.tileIR;
    d["llvm"] = t.llvmDialect;
    d["llvm-ir"] = t.llvmIR;
    d["ptx"] = t.ptx;
    d["cubin"] = py::bytes(t.cubin);
    d["ptxas_ran"] = t.ptxasRan;
    d["ptxas_log"] = t.ptxasLog;
    py::dict res;
    for (const auto &[symbol, k] : t.resources)
      res[py::str(symbol)] = resourcesToDict(k);
    d["resources"] = res;
    d["compile_ms"] = t.compileMs;
    d["ptxas_ms"] = t.ptxasMs;
    targetList.append(d);
  }
  out["targets"] = targetList;
  return out;
}

} // namespace

PYBIND11_MODULE(_compiler, m) {
  m.doc() = "megac compiler: .mega source -> PTX, IR stages, ptxas resources, "
            "bundle (use megac.compile)";
  m.def("compile_raw", &compileRaw, py::arg("path"), py::arg("text"),
        py::arg("defines"), py::arg("targets"), py::arg("ptxas"),
        py::arg("keep_ir"),
        "Runs the whole pipeline (GIL released); returns a dict of plain "
        "data. `text` None reads `path`.");
  m.def("version", [] { return std::string(megac::compilerVersion()); });
  m.def("find_ptxas", [] { return megac::findPtxas(); },
        "The ptxas the compiler would run, or None.");
  m.def("compile_count", [] { return compileCount.load(); },
        "How many times this process ran the compiler through this module.");
}
