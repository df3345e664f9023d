//===- launch_bindings.cpp - megac._runtime: load modules, launch ---------===//
//
// Binds module.h. A launch takes the arguments megac/module.py bound (a list
// of Arg, or ArgBinder's BoundArgs) and a raw CUstream handle (torch's
// current stream by default), so the extension needs no torch headers and
// launches stay graph-capturable.
//
//===----------------------------------------------------------------------===//
#include "bindings.h"

#include "megac/runtime/module.h"

#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;
using namespace megac::rt;

namespace megac::python {

namespace {

void launch(const Module &mod, const std::string &kernel, const std::vector<Arg> &args, uint64_t stream,
            const py::object &grid) {
  auto g = gridFromPython(grid);
  mod.kernel(kernel).launch(args.data(), args.size(), reinterpret_cast<void *>(uintptr_t(stream)), g.get());
}

} // namespace

void bindLaunch(py::module_ &m) {
  m.attr("HAS_LAUNCH") = true;

  py::class_<Module, std::shared_ptr<Module>>(m, "Module",
      "A bundle loaded into a CUDA context (the device's primary context, which PyTorch shares).")
      .def_property_readonly("kernels", [](const Module &mod) {
        std::vector<std::string> names;
        for (const auto &k : mod.manifest().kernels)
          names.push_back(k.name);
        return names;
      })
      .def("loaded_image", &Module::loadedImage)
      // ArgBinder's arguments first: a launch's common case, tried before the list overload.
      .def("launch", [](const Module &mod, const std::string &kernel, const BoundArgs &bound,
                        uint64_t stream, const py::object &grid) {
        launch(mod, kernel, bound.args, stream, grid);
      }, py::arg("kernel"), py::arg("args"), py::arg("stream") = 0,
         py::arg("grid") = py::none())
      .def("launch", &launch, py::arg("kernel"), py::arg("args"), py::arg("stream") = 0,
         py::arg("grid") = py::none(),
         "Launch on a CUstream handle (0: the legacy default stream); no synchronization.");

  m.def("check_choose_variants_as", [](const std::string &module, int64_t sms, int64_t l2Mb) {
    checkChooseVariantsAs(DeviceFacts{sms, l2Mb}, module);
  }, py::arg("module"), py::arg("sms"), py::arg("l2_mb"),
     "Raise ArgError where (sms, l2_mb) are no device's, as load_module's choose_variants_as does.");
  m.def("load_module", [](const Bundle &bundle, int device, bool allowPtxJit, bool earlyLaunch,
                          std::optional<std::pair<int64_t, int64_t>> chooseVariantsAs) {
    LoadOptions options;
    options.device = device;
    options.allowPtxJit = allowPtxJit;
    options.earlyLaunch = earlyLaunch;
    if (chooseVariantsAs)
      options.chooseVariantsAs = DeviceFacts{chooseVariantsAs->first, chooseVariantsAs->second};
    return Module::load(bundle, bundle.manifest.module, options);
  }, py::arg("bundle"), py::arg("device") = -1, py::arg("allow_ptx_jit") = true,
     py::arg("early_launch") = true, py::arg("choose_variants_as") = py::none(),
     "Load a bundle into the current context (or device `device`'s primary context); early_launch: "
     "launch @early_launch kernels with programmatic stream serialization; choose_variants_as: "
     "(sms, l2_mb) of another device, whose variants the launches run.");
}

} // namespace megac::python
