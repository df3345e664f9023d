//===- runtime_bindings.cpp - megac._runtime: the runtime for Python ------===//
//
// Binds bundles, manifests, launch arguments and kernel signatures. Tensors
// cross as (data_ptr, dtype name, shape, strides) so that this extension needs
// no torch headers; the pure-Python package (megac/module.py) does the torch
// side. Launching (module.h) is bound in launch_bindings.cpp.
//
//===----------------------------------------------------------------------===//
#include "bindings.h"

#include "megac/runtime/args.h"
#include "megac/runtime/bundle.h"
#include "megac/runtime/dtype.h"
#include "megac/runtime/error.h"
#include "megac/runtime/manifest.h"
#include "megac/runtime/signature.h"

#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace megac::rt;

namespace megac::python {

DType dtypeFromName(const std::string &name) {
  if (auto t = parseDType(name))
    return *t;
  throw ArgError("megac: unknown dtype '" + name + "'");
}

namespace {

Arg tensorArg(uint64_t ptr, const std::string &dtype,
              const std::vector<int64_t> &shape,
              const std::vector<int64_t> &strides) {
  if (!strides.empty() && strides.size() != shape.size())
    throw ArgError("megac: a tensor argument has " +
                   std::to_string(shape.size()) + " dimensions but " +
                   std::to_string(strides.size()) + " strides");
  return Arg::tensor(ptr, dtypeFromName(dtype), shape.data(), int(shape.size()),
                     strides.empty() ? nullptr : strides.data());
}

Arg scalarArg(const std::string &dtype, py::object value) {
  DType t = dtypeFromName(dtype);
  if (!isScalarDType(t))
    throw ArgError("megac: dtype '" + dtype + "' cannot be a scalar argument");
  // bool is an int in Python: keep it an integer.
  if (isFloat(t))
    return Arg::floatScalar(t, value.cast<double>());
  return Arg::intScalar(t, value.cast<int64_t>());
}

py::dict paramToDict(const ParamInfo &p) {
  py::dict d;
  d["name"] = p.name;
  d["kind"] = p.kind == ParamKind::Tensor ? "tensor" : "scalar";
  d["dtype"] = std::string(dtypeName(p.dtype));
  d["align"] = p.align;
  d["shape"] = p.shape;
  d["multiple_of"] = p.multipleOf;
  return d;
}

py::dict prepareToDict(const KernelSignature &sig, const LaunchConfig &c) {
  py::dict d;
  d["grid"] = py::make_tuple(c.grid[0], c.grid[1], c.grid[2]);
  d["block"] = py::make_tuple(c.block[0], c.block[1], c.block[2]);
  d["shared_bytes"] = c.sharedBytes;
  d["variant"] = sig.info().variants.empty()
                     ? std::string()
                     : sig.info().variants[size_t(c.variant)].name;
  d["empty"] = c.empty();
  // Compiled to be launched early (megac.load(early_launch=False) still launches it plainly).
  d["early_launch"] = launchesEarly(sig.info(), size_t(c.variant));
  return d;
}

std::unique_ptr<Grid> optionalGrid(const py::object &grid) {
  if (grid.is_none())
    return nullptr;
  auto g = std::make_unique<Grid>();
  auto v = grid.cast<std::vector<int64_t>>();
  if (v.empty() || v.size() > 3)
    throw ArgError("megac: grid must have 1 to 3 dimensions");
  g->x = v[0];
  g->y = v.size() > 1 ? v[1] : 1;
  g->z = v.size() > 2 ? v[2] : 1;
  return g;
}

} // namespace

std::unique_ptr<Grid> gridFromPython(const py::object &grid) {
  return optionalGrid(grid);
}

void bindRuntime(py::module_ &m) {
  // Every runtime error keeps its C++ kind; all derive from megac._runtime.Error.
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<BundleError> bundleError(m, "BundleError", error.ptr());
  static py::exception<ManifestError> manifestError(m, "ManifestError", error.ptr());
  static py::exception<ExprError> exprError(m, "ExprError", error.ptr());
  static py::exception<ArgError> argError(m, "ArgError", error.ptr());
  static py::exception<DriverError> driverError(m, "DriverError", error.ptr());
  static py::exception<SlotError> slotError(m, "SlotError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const BundleError &e) {
      bundleError(e.what());
    } catch (const ManifestError &e) {
      manifestError(e.what());
    } catch (const ExprError &e) {
      exprError(e.what());
    } catch (const ArgError &e) {
      argError(e.what());
    } catch (const DriverError &e) {
      driverError(e.what());
    } catch (const SlotError &e) {
      slotError(e.what());
    } catch (const Error &e) {
      error(e.what());
    }
  });

  m.def("dtype_size", [](const std::string &name) {
    return dtypeSize(dtypeFromName(name));
  });

  py::class_<Arg>(m, "Arg", "One launch argument (tensor, scalar, or a scalar to infer).")
      .def_property_readonly("kind", [](const Arg &a) {
        return a.kind == Arg::Kind::Tensor ? "tensor"
               : a.kind == Arg::Kind::Scalar ? "scalar" : "infer";
      })
      .def_property_readonly("dtype", [](const Arg &a) {
        return std::string(dtypeName(a.dtype));
      });
  m.def("tensor_arg", &tensorArg, py::arg("ptr"), py::arg("dtype"),
        py::arg("shape"), py::arg("strides") = std::vector<int64_t>{},
        "A device tensor: data pointer, manifest dtype name, shape and strides in elements.");
  m.def("scalar_arg", &scalarArg, py::arg("dtype"), py::arg("value"));
  m.def("infer_arg", &Arg::infer, "A scalar the runtime infers from a tensor dimension.");

  py::class_<Bundle, std::shared_ptr<Bundle>>(m, "Bundle")
      .def_static("from_file", [](const std::string &path) {
        return std::make_shared<Bundle>(readBundleFile(path));
      }, py::arg("path"))
      .def_static("from_bytes", [](const py::bytes &data, const std::string &name) {
        std::string s = data;
        return std::make_shared<Bundle>(readBundle(s.data(), s.size(), name));
      }, py::arg("data"), py::arg("name") = "<bytes>")
      .def_property_readonly("module", [](const Bundle &b) { return b.manifest.module; })
      .def_property_readonly("manifest_json", [](const Bundle &b) {
        return manifestToJson(b.manifest);
      })
      .def_property_readonly("kernels", [](const Bundle &b) {
        std::vector<std::string> names;
        for (const auto &k : b.manifest.kernels)
          names.push_back(k.name);
        return names;
      })
      .def("params", [](const Bundle &b, const std::string &kernel) {
        const KernelInfo *k = b.manifest.findKernel(kernel);
        if (!k)
          throw ArgError("megac: module '" + b.manifest.module + "' has no kernel '" + kernel + "'");
        py::list out;
        for (const auto &p : k->params)
          out.append(paramToDict(p));
        return out;
      }, py::arg("kernel"))
      .def("image", [](const Bundle &b, const std::string &target, const std::string &kind) {
        for (const auto &im : b.manifest.images)
          if (im.target == target && imageKindName(im.kind) == kind)
            return py::bytes(b.imageData(im));
        throw ArgError("megac: module '" + b.manifest.module + "' has no " + kind +
                       " image for " + target);
      }, py::arg("target"), py::arg("kind") = "ptx")
      .def("to_bytes", [](const Bundle &b) { return py::bytes(writeBundle(b)); });

  // The launch decisions without a GPU: checks, inferred scalars, grid, variant.
  py::class_<KernelSignature, std::shared_ptr<KernelSignature>>(m, "Signature")
      .def(py::init([](const Bundle &b, const std::string &kernel) {
        const KernelInfo *k = b.manifest.findKernel(kernel);
        if (!k)
          throw ArgError("megac: module '" + b.manifest.module + "' has no kernel '" + kernel + "'");
        return std::make_shared<KernelSignature>(*k);
      }), py::arg("bundle"), py::arg("kernel"))
      .def_property_readonly("name", &KernelSignature::name)
      .def("prepare", [](const KernelSignature &sig, const std::vector<Arg> &args,
                         int64_t sms, const py::object &grid, bool early, int64_t l2Mb) {
        auto g = optionalGrid(grid);
        LaunchConfig config;
        sig.prepare(args.data(), args.size(), DeviceFacts{sms, l2Mb}, g.get(), config, early);
        return prepareToDict(sig, config);
      }, py::arg("args"), py::arg("sms") = 132, py::arg("grid") = py::none(),
         py::arg("early") = false, py::arg("l2_mb") = 60,
         "Grid, block, shared bytes and variant a launch with these arguments would use on a device of "
         "`sms` SMs and `l2_mb` MiB of L2 (an H200's by default).");
}

} // namespace megac::python

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "megac runtime: load module bundles and launch their kernels";
  megac::python::bindRuntime(m);
  megac::python::bindArgBinder(m);
  megac::python::bindLaunch(m);
  megac::python::bindSlots(m);
}
