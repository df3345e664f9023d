//===- bindings.h - Pieces shared by the megac._runtime sources -*- C++ -*-===//
#ifndef MEGAC_PYTHON_BINDINGS_H
#define MEGAC_PYTHON_BINDINGS_H

#include "megac/runtime/args.h"
#include "megac/runtime/dtype.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <string>
#include <vector>

namespace megac::python {

/// A launch's arguments bound by ArgBinder, kept native: a launch reads them
/// without a Python object an argument (arg_binder.cpp).
struct BoundArgs {
  std::vector<rt::Arg> args;
};

/// Throws megac::rt::ArgError for a name that is not a manifest dtype.
rt::DType dtypeFromName(const std::string &name);
/// None -> nullptr; (x[, y[, z]]) -> a Grid.
std::unique_ptr<rt::Grid> gridFromPython(const pybind11::object &grid);

void bindRuntime(pybind11::module_ &m);
/// ArgBinder: a launch's arguments bound in one call for the common case.
void bindArgBinder(pybind11::module_ &m);
/// Slot registry, plan requests, plans and communicators (slots.h).
void bindSlots(pybind11::module_ &m);
/// Module loading and launching; a stub that says what is missing when the
/// runtime has no module.h yet.
void bindLaunch(pybind11::module_ &m);

} // namespace megac::python

#endif // MEGAC_PYTHON_BINDINGS_H
