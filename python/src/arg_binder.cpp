//===- arg_binder.cpp - megac._runtime.ArgBinder: a launch's fast path ----===//
//
// What megac/module.py's Kernel.bind does for every launch, for the common
// case only, in one call: arguments by position and name to the manifest's
// parameters, each torch CUDA tensor on the launch's device with an accepted
// dtype to (data_ptr, the parameter's dtype, shape, strides), each int or
// float to its scalar, each scalar left out to be inferred. Anything else (a
// RawTensor, a tensor on another device or of another dtype, a name that is
// no parameter, a tensor given for a scalar, an int too large for int64, ...)
// returns None, and the Python path binds the launch and gives its error. So
// the checks and messages live in one place, module.py; this only skips the
// interpreter's per-argument work (12-26 us a launch of 5-14 arguments on
// the H200 machine's host, results/tuning_eager_launch_c906607.md). Attributes
// are read by name, so this extension still needs no torch headers.
//
//===----------------------------------------------------------------------===//
#include "bindings.h"

#include "megac/runtime/args.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace py = pybind11;
using namespace megac::rt;

namespace megac::python {

namespace {

struct ParamSpec {
  std::string name;
  bool tensor = false;
  DType dtype = DType::i64;
  std::vector<std::string> accepted;  // tensor dtype names the parameter takes
};

// The attribute names a launch reads, interned once (the GIL is held).
struct Names {
  PyObject *isCuda = PyUnicode_InternFromString("is_cuda");
  PyObject *getDevice = PyUnicode_InternFromString("get_device");
  PyObject *dtype = PyUnicode_InternFromString("dtype");
  PyObject *dataPtr = PyUnicode_InternFromString("data_ptr");
  PyObject *shape = PyUnicode_InternFromString("shape");
  PyObject *stride = PyUnicode_InternFromString("stride");
};

const Names &names() {
  static const Names n;  // kept for the process's life
  return n;
}

// obj.name() or obj.name, or nullopt (the error cleared) when obj has none.
std::optional<py::object> attr(py::handle obj, PyObject *name, bool call) {
  PyObject *r = call ? PyObject_CallMethodNoArgs(obj.ptr(), name) : PyObject_GetAttr(obj.ptr(), name);
  if (!r) {
    PyErr_Clear();
    return std::nullopt;
  }
  return py::reinterpret_steal<py::object>(r);
}

// A sequence of Python ints (torch.Size, a tuple) as int64s, or false.
bool int64s(py::handle seq, std::vector<int64_t> &out) {
  PyObject *fast = PySequence_Fast(seq.ptr(), "");
  if (!fast) {
    PyErr_Clear();
    return false;
  }
  py::object keep = py::reinterpret_steal<py::object>(fast);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  out.resize(size_t(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *item = PySequence_Fast_GET_ITEM(fast, i);
    if (!PyLong_CheckExact(item))
      return false;
    int overflow = 0;
    out[size_t(i)] = PyLong_AsLongLongAndOverflow(item, &overflow);
    if (overflow || PyErr_Occurred()) {
      PyErr_Clear();
      return false;
    }
  }
  return true;
}

// The UTF-8 of a Python str, or nullopt for anything else (the error
// cleared).
std::optional<std::string_view> utf8(PyObject *s) {
  if (!PyUnicode_Check(s))
    return std::nullopt;
  Py_ssize_t len = 0;
  const char *text = PyUnicode_AsUTF8AndSize(s, &len);
  if (!text) {
    PyErr_Clear();
    return std::nullopt;
  }
  return std::string_view(text, size_t(len));
}

class ArgBinder {
public:
  ArgBinder(std::vector<ParamSpec> params, py::dict dtypeNames)
      : params(std::move(params)), dtypeNames(std::move(dtypeNames)) {}

  // The launch's arguments in manifest order (BoundArgs), or None for the
  // Python path. device: a callable giving torch's current device, called
  // once, at the first tensor.
  py::object bind(const py::tuple &args, const py::dict &kwargs, const py::object &device) const {
    size_t n = params.size();
    if (size_t(args.size()) > n)
      return py::none();
    std::vector<PyObject *> values(n, nullptr);
    for (size_t i = 0; i < size_t(args.size()); ++i)
      values[i] = args[i].ptr();
    for (auto item : kwargs) {
      size_t i = indexOf(item.first);
      if (i == n || values[i])
        return py::none();  // no such parameter, or given twice
      values[i] = item.second.ptr();
    }
    std::vector<Arg> out;
    out.reserve(n);
    std::optional<long long> current;
    std::vector<int64_t> shape, strides;
    for (size_t i = 0; i < n; ++i) {
      const ParamSpec &p = params[i];
      PyObject *v = values[i];
      if (p.tensor) {
        if (!v || v == Py_None)
          return py::none();
        py::handle t(v);
        auto isCuda = attr(t, names().isCuda, false);
        if (!isCuda || isCuda->ptr() != Py_True)
          return py::none();
        if (!current) {
          py::object d = device();
          current = d.cast<long long>();
        }
        auto onDevice = attr(t, names().getDevice, true);
        if (!onDevice || !PyLong_CheckExact(onDevice->ptr()) ||
            PyLong_AsLongLong(onDevice->ptr()) != *current)
          return py::none();
        auto dtype = attr(t, names().dtype, false);
        if (!dtype)
          return py::none();
        PyObject *name = PyDict_GetItemWithError(dtypeNames.ptr(), dtype->ptr());
        if (!name) {
          PyErr_Clear();
          return py::none();  // a dtype megac has not named yet: the Python path names it
        }
        if (!accepts(p, name))
          return py::none();
        auto ptr = attr(t, names().dataPtr, true);
        auto dims = attr(t, names().shape, false);
        auto steps = attr(t, names().stride, true);
        if (!ptr || !dims || !steps || !PyLong_CheckExact(ptr->ptr()) || !int64s(*dims, shape) ||
            !int64s(*steps, strides) || shape.size() != strides.size())
          return py::none();
        uint64_t address = PyLong_AsUnsignedLongLong(ptr->ptr());
        if (PyErr_Occurred()) {
          PyErr_Clear();
          return py::none();
        }
        out.push_back(Arg::tensor(address, p.dtype, shape.data(), int(shape.size()), strides.data()));
      } else if (!v || v == Py_None) {
        out.push_back(Arg::infer());
      } else if (isFloat(p.dtype) && (PyFloat_CheckExact(v) || PyLong_CheckExact(v))) {
        double d = PyFloat_CheckExact(v) ? PyFloat_AS_DOUBLE(v) : PyLong_AsDouble(v);
        if (PyErr_Occurred()) {
          PyErr_Clear();
          return py::none();
        }
        out.push_back(Arg::floatScalar(p.dtype, d));
      } else if (!isFloat(p.dtype) && PyLong_CheckExact(v)) {
        int overflow = 0;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (overflow || PyErr_Occurred()) {
          PyErr_Clear();
          return py::none();
        }
        // The runtime's own checks of the value against the dtype, as
        // megac._runtime.scalar_arg makes them.
        out.push_back(Arg::intScalar(p.dtype, x));
      } else {
        return py::none();
      }
    }
    return py::cast(BoundArgs{std::move(out)});
  }

private:
  size_t indexOf(py::handle key) const {
    std::optional<std::string_view> name = utf8(key.ptr());
    for (size_t i = 0; name && i < params.size(); ++i)
      if (params[i].name == *name)
        return i;
    return params.size();
  }

  static bool accepts(const ParamSpec &p, PyObject *dtypeName) {
    std::optional<std::string_view> name = utf8(dtypeName);
    return name && std::find(p.accepted.begin(), p.accepted.end(), *name) != p.accepted.end();
  }

  std::vector<ParamSpec> params;
  // {torch dtype: manifest name}, the dict megac.dtypes fills as it names
  // dtypes (the same object, so it sees the names added after this was made).
  py::dict dtypeNames;
};

} // namespace

void bindArgBinder(py::module_ &m) {
  py::class_<BoundArgs>(m, "BoundArgs", "A launch's arguments as ArgBinder bound them (Module.launch takes them).")
      .def("__len__", [](const BoundArgs &b) { return b.args.size(); })
      .def("__getitem__", [](const BoundArgs &b, size_t i) {
        if (i >= b.args.size())
          throw py::index_error();
        return b.args[i];
      })
      .def("to_list", [](const BoundArgs &b) { return b.args; }, "The arguments as a list of Arg.");
  py::class_<ArgBinder>(m, "ArgBinder",
                        "A kernel's launch arguments bound in one call for the common case "
                        "(torch CUDA tensors, ints, floats); None where the Python path must bind them.")
      .def(py::init([](const std::vector<std::tuple<std::string, bool, std::string, std::vector<std::string>>>
                           &params,
                       py::dict dtypeNames) {
             std::vector<ParamSpec> specs;
             for (const auto &[name, tensor, dtype, accepted] : params)
               specs.push_back({name, tensor, dtypeFromName(dtype), accepted});
             return ArgBinder(std::move(specs), std::move(dtypeNames));
           }),
           py::arg("params"), py::arg("dtype_names"),
           "params: (name, is a tensor, manifest dtype, tensor dtype names accepted) each; dtype_names: "
           "{torch dtype: manifest name}, read at each launch")
      .def("bind", &ArgBinder::bind, py::arg("args"), py::arg("kwargs"), py::arg("device"));
}

} // namespace megac::python
