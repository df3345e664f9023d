//===- launch_stub.cpp - megac._runtime without a launch API --------------===//
//
// Built when the runtime has no module.h (CMake checks): the extension still
// reads bundles and prepares launches, and says clearly why it cannot launch.
//
//===----------------------------------------------------------------------===//
#include "bindings.h"

#include "megac/runtime/error.h"

namespace megac::python {

void bindLaunch(pybind11::module_ &m) {
  m.attr("HAS_LAUNCH") = false;
  m.def("load_module", [](pybind11::args, pybind11::kwargs) -> pybind11::object {
    throw rt::Error("megac: this build of megac._runtime has no launch support (the runtime had no "
                    "megac/runtime/module.h when it was configured); rebuild against a newer runtime");
  });
}

} // namespace megac::python
