//===- slot_bindings.cpp - megac._runtime: slots, plans, communicators ----===//
//
// Binds slots.h and communicator.h so that a Python host registers slots with
// Python callables (a megac kernel, a torch stock function, a capability
// check) and the runtime's own SlotPlan decides and dispatches: MEGAC_SLOTS
// parsing, the four outcomes of the contract, the cross-rank agreement and
// the per-call bounds are all the C++ code's. megac/slots.py is the Pythonic
// face over these.
//
// A call's keyword arguments travel through SlotCall::user as a PyCall, and
// whichever callable ran leaves its return value there.
//
//===----------------------------------------------------------------------===//
#include "bindings.h"

#include "megac/runtime/communicator.h"
#include "megac/runtime/error.h"
#include "megac/runtime/slots.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace megac::rt;

namespace megac::python {
namespace {

struct PyCall {
  py::dict kwargs;
  py::object result = py::none();
};

/// Holds a Python callable; takes the GIL to copy or drop it so that a
/// std::function holding one may be destroyed anywhere.
struct PyFn {
  std::shared_ptr<py::object> fn;
  explicit PyFn(py::object f)
      : fn(new py::object(std::move(f)), [](py::object *p) {
          py::gil_scoped_acquire gil;
          delete p;
        }) {}
};

std::function<void(const SlotCall &)> slotFunction(py::object f) {
  PyFn held(std::move(f));
  return [held](const SlotCall &call) {
    py::gil_scoped_acquire gil;
    auto *c = static_cast<PyCall *>(call.user);
    c->result = (*held.fn)(**c->kwargs);
  };
}

const char *refusalName(Refusal r) {
  switch (r) {
  case Refusal::None: return "available";
  case Refusal::Configuration: return "configuration";
  case Refusal::State: return "state";
  }
  return "available";
}

/// A check may return a Capability, None or True (available).
Capability toCapability(const py::object &r, const std::string &slot) {
  if (r.is_none() || (py::isinstance<py::bool_>(r) && r.cast<bool>()))
    return Capability::available();
  if (py::isinstance<Capability>(r))
    return r.cast<Capability>();
  throw SlotError("megac: slot '" + slot +
                  "': the capability check returned " +
                  std::string(py::str(py::repr(r))) +
                  "; return megac.slots.available(), configuration(condition, "
                  "fix) or state(condition)");
}

class PyCommunicator : public Communicator {
public:
  using Communicator::Communicator;
  int rank() const override {
    PYBIND11_OVERRIDE_PURE(int, Communicator, rank, );
  }
  int size() const override {
    PYBIND11_OVERRIDE_PURE(int, Communicator, size, );
  }
  void allReduceMin(std::vector<int32_t> &values) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(this, "all_reduce_min");
    if (!f)
      throw SlotError("megac: communicator has no all_reduce_min(values)");
    py::list in = py::cast(values);
    py::object out = f(in);
    std::vector<int32_t> reduced =
        out.is_none() ? in.cast<std::vector<int32_t>>()
                      : py::list(out).cast<std::vector<int32_t>>();
    if (reduced.size() != values.size())
      throw SlotError("megac: communicator all_reduce_min returned " +
                      std::to_string(reduced.size()) + " values for " +
                      std::to_string(values.size()));
    values = std::move(reduced);
  }
};

py::dict decisionToDict(const SlotDecision &d) {
  py::dict out;
  out["name"] = d.name;
  out["active"] = d.active;
  out["reason"] = d.reason;
  return out;
}

int slotIndex(const SlotPlan &plan, const py::object &slot) {
  if (py::isinstance<py::int_>(slot)) {
    int i = slot.cast<int>();
    if (i < 0 || size_t(i) >= plan.decisions().size())
      throw SlotError("megac: slot index " + std::to_string(i) +
                      " is outside this plan");
    return i;
  }
  return plan.index(slot.cast<std::string>());
}

} // namespace

void bindSlots(py::module_ &m) {
  py::class_<Capability>(m, "Capability",
                         "What a capability check answers: available, a "
                         "configuration refusal (condition, fix) or a state "
                         "refusal (condition).")
      .def_static("available", &Capability::available)
      .def_static("configuration", &Capability::configuration,
                  py::arg("condition"), py::arg("fix"))
      .def_static("state", &Capability::state, py::arg("condition"))
      .def_property_readonly("refusal", [](const Capability &c) {
        return refusalName(c.refusal);
      })
      .def_readonly("condition", &Capability::condition)
      .def_readonly("fix", &Capability::fix)
      .def("__repr__", [](const Capability &c) {
        std::string s = std::string("Capability.") + refusalName(c.refusal);
        if (c.refusal != Refusal::None)
          s += "('" + c.condition + "'" +
               (c.fix.empty() ? "" : ", '" + c.fix + "'") + ")";
        return s;
      });

  py::class_<PlanContext>(m, "PlanContext",
                          "What capability checks learn about the deployment.")
      .def(py::init([](std::string arch, int64_t sms, int rank, int worldSize,
                       std::string topology) {
             PlanContext c;
             c.arch = std::move(arch);
             c.sms = sms;
             c.rank = rank;
             c.worldSize = worldSize;
             c.topology = std::move(topology);
             return c;
           }),
           py::arg("arch") = "", py::arg("sms") = 0, py::arg("rank") = 0,
           py::arg("world_size") = 1, py::arg("topology") = "")
      .def_readwrite("arch", &PlanContext::arch)
      .def_readwrite("sms", &PlanContext::sms)
      .def_readwrite("rank", &PlanContext::rank)
      .def_readwrite("world_size", &PlanContext::worldSize)
      .def_readwrite("topology", &PlanContext::topology)
      .def("__repr__", [](const PlanContext &c) {
        return "PlanContext(arch='" + c.arch + "', sms=" +
               std::to_string(c.sms) + ", rank=" + std::to_string(c.rank) +
               ", world_size=" + std::to_string(c.worldSize) +
               ", topology='" + c.topology + "')";
      });

  py::class_<SlotRegistry>(m, "SlotRegistry")
      .def(py::init<>())
      .def("add",
           [](SlotRegistry &r, const std::string &name, py::object kernel,
              py::object stock, py::object check, int64_t maxBatch,
              py::object enable) {
             SlotSpec s;
             s.name = name;
             if (!kernel.is_none())
               s.kernel = slotFunction(kernel);
             if (!stock.is_none())
               s.stock = slotFunction(stock);
             if (!check.is_none()) {
               PyFn held(check);
               s.check = [held, name](const PlanContext &ctx) {
                 py::gil_scoped_acquire gil;
                 return toCapability((*held.fn)(ctx), name);
               };
             }
             s.bounds.maxBatch = maxBatch;
             if (!enable.is_none()) {
               PyFn held(enable);
               s.enable = [held] {
                 py::gil_scoped_acquire gil;
                 (*held.fn)();
               };
             }
             r.add(std::move(s));
           },
           py::arg("name"), py::arg("kernel"), py::arg("stock"),
           py::arg("check") = py::none(), py::arg("max_batch") = -1,
           py::arg("enable") = py::none())
      .def("find", &SlotRegistry::find, py::arg("name"))
      .def("names", [](const SlotRegistry &r) {
        std::vector<std::string> out;
        for (const SlotSpec &s : r.slots())
          out.push_back(s.name);
        return out;
      })
      .def("__len__", [](const SlotRegistry &r) { return r.slots().size(); });

  py::class_<PlanRequest>(m, "PlanRequest")
      .def(py::init([](std::vector<std::string> slots, bool explicitRequest,
                       std::string origin) {
             PlanRequest r;
             r.slots = std::move(slots);
             r.explicitRequest = explicitRequest;
             r.origin = std::move(origin);
             return r;
           }),
           py::arg("slots"), py::arg("explicit") = true,
           py::arg("origin") = "the API")
      .def_readwrite("slots", &PlanRequest::slots)
      .def_readwrite("explicit", &PlanRequest::explicitRequest)
      .def_readwrite("origin", &PlanRequest::origin)
      .def("__repr__", [](const PlanRequest &r) {
        std::string s;
        for (const std::string &n : r.slots)
          s += (s.empty() ? "" : ", ") + n;
        return "PlanRequest([" + s + "], explicit=" +
               (r.explicitRequest ? "True" : "False") + ", origin='" +
               r.origin + "')";
      });

  m.def("default_plan_request", &defaultPlanRequest, py::arg("registry"),
        py::arg("recipe") = "");
  m.def("parse_plan_request", &parsePlanRequest, py::arg("text"),
        py::arg("registry"), py::arg("default_recipe") = "");
  m.def("plan_request_from_env", &planRequestFromEnv, py::arg("registry"),
        py::arg("default_recipe") = "");
  m.def("known_slot_names", &knownSlotNames);
  m.def("recipes", [] {
    py::dict out;
    for (const Recipe &r : recipes())
      out[py::str(r.name)] = r.slots;
    return out;
  });
  m.def("find_recipe", [](const std::string &name) -> py::object {
    const Recipe *r = findRecipe(name);
    if (!r)
      return py::none();
    return py::make_tuple(r->name, r->slots);
  });

  py::class_<Communicator, PyCommunicator>(
      m, "Communicator",
      "Subclass and define rank(), size() and all_reduce_min(values: list[int]) "
      "-> list[int] (element-wise minimum over all ranks).")
      .def(py::init<>())
      .def("rank", &Communicator::rank)
      .def("size", &Communicator::size)
      .def("all_reduce_min", [](Communicator &c, std::vector<int32_t> values) {
        c.allReduceMin(values);
        return values;
      });

  py::class_<FakeCommunicator, Communicator>(
      m, "FakeCommunicator",
      "`size` ranks in one process: this object is rank `rank`; peer p "
      "contributes this rank's values as edited by set_peer(p, edit).")
      .def(py::init<int, int>(), py::arg("rank"), py::arg("size"))
      .def("set_peer",
           [](FakeCommunicator &c, int peer, py::object edit) {
             PyFn held(edit);
             c.setPeer(peer, [held](std::vector<int32_t> &v) {
               py::gil_scoped_acquire gil;
               py::list l = py::cast(v);
               py::object out = (*held.fn)(l);
               v = out.is_none() ? l.cast<std::vector<int32_t>>()
                                 : py::list(out).cast<std::vector<int32_t>>();
             });
           },
           py::arg("peer"), py::arg("edit"),
           "edit(values: list) returns the peer's values or edits the list "
           "in place.")
      .def_property_readonly("calls", &FakeCommunicator::calls)
      .def_property_readonly("last_local", &FakeCommunicator::lastLocal);

  py::class_<SlotPlan>(m, "SlotPlan")
      .def_static(
          "build",
          [](const SlotRegistry &registry, const PlanRequest &request,
             const PlanContext &context, Communicator *comm,
             py::object log) {
            LogSink sink;
            if (!log.is_none()) {
              PyFn held(log);
              sink = [held](const std::string &line) {
                py::gil_scoped_acquire gil;
                (*held.fn)(line);
              };
            }
            return std::make_unique<SlotPlan>(
                SlotPlan::build(registry, request, context, comm, sink));
          },
          py::arg("registry"), py::arg("request"), py::arg("context"),
          py::arg("comm") = nullptr, py::arg("log") = py::none(),
          "Runs the checks, agrees across ranks through `comm`, logs one line "
          "per slot (to `log(line)`, else stderr), calls the enable hooks.")
      .def("index", &SlotPlan::index, py::arg("name"))
      .def("active", [](const SlotPlan &p, py::object slot) {
        return p.active(slotIndex(p, slot));
      }, py::arg("slot"))
      .def_property_readonly("decisions", [](const SlotPlan &p) {
        py::list out;
        for (const SlotDecision &d : p.decisions())
          out.append(decisionToDict(d));
        return out;
      })
      .def("bounded_fallbacks", [](const SlotPlan &p, py::object slot) {
        return p.boundedFallbacks(slotIndex(p, slot));
      }, py::arg("slot"))
      .def("run",
           [](const SlotPlan &p, py::object slot, int64_t batch,
              py::dict kwargs) {
             int i = slotIndex(p, slot);
             PyCall c{std::move(kwargs)};
             SlotCall call;
             call.batch = batch;
             call.user = &c;
             SlotPath path = p.run(i, call);
             return py::make_tuple(path == SlotPath::Kernel ? "kernel"
                                                            : "stock",
                                   c.result);
           },
           py::arg("slot"), py::arg("batch"), py::arg("kwargs"),
           "Runs the kernel, or stock when the slot is inactive or batch "
           "exceeds its bound; returns (path, what the callable returned).");
}

} // namespace megac::python
