"""Slots from Python: a megac kernel, a stock (PyTorch) implementation and a capability check per slot; the
runtime's own SlotPlan (runtime/include/megac/runtime/slots.h, docs/runtime.md) decides once which runs.

    from megac import slots
    reg = slots.Registry()
    reg.add("vector_add", kernel=lambda x, y, out: mod.vector_add(x, y, out),
            stock=lambda x, y, out: torch.add(x, y, out=out),
            check=lambda ctx: slots.available() if ctx.arch == "sm_90" else
                              slots.configuration(f"arch {ctx.arch} is not sm_90", "run on an H100/H200"),
            max_batch=32, batch_of=lambda x, y, out: x.shape[0])
    plan = slots.build_plan(reg)                          # MEGAC_SLOTS, else the default plan
    plan.run("vector_add", x=x, y=y, out=out)             # kernel, or stock per the contract

The decisions are the C++ code's, bound through megac._runtime (no re-implementation here):
  1. default plan, slot unavailable          -> stock, one INFO line;
  2. requested slot, configuration refusal   -> megac._runtime.SlotError (slot, condition, fix);
  3. requested slot, state refusal           -> stock, one INFO line;
  4. a call beyond the slot's bounds (batch > max_batch) -> that call runs stock; the slot stays active.
Across ranks, a Communicator (TorchDistributedCommunicator, FakeCommunicator for tests) makes every rank
enable a slot or none, before any enable() hook runs.
"""
from . import _runtime as _rt

Capability = _rt.Capability
PlanContext = _rt.PlanContext
PlanRequest = _rt.PlanRequest
Communicator = _rt.Communicator
FakeCommunicator = _rt.FakeCommunicator
SlotError = _rt.SlotError

available = Capability.available
configuration = Capability.configuration
state = Capability.state


def recipes():
    """{recipe name: [slot names]} (TP2, TP4, TP8, TEP8, DEP8, PD_PREFILL, PD_DECODE)."""
    return _rt.recipes()


def known_slot_names():
    return list(_rt.known_slot_names())


class Registry:
    """Slots of one host: name -> kernel, stock, check, bounds, enable hook."""

    def __init__(self):
        self._native = _rt.SlotRegistry()
        self._batch_of = {}

    def add(self, name, kernel, stock, check=None, max_batch=-1, enable=None, batch_of=None):
        """Register a slot.

        kernel, stock  callables receiving the call's keyword arguments (plan.run(name, **call)); a megac
                       Kernel (megac.load(...).vector_add) works as is when the call names its parameters
        check          check(PlanContext) -> available() | configuration(condition, fix) | state(condition)
                       (None or True mean available); runs once, when a plan is built; None: always available
        max_batch      the largest batch the kernel was validated for (-1: unbounded); larger calls run stock
        batch_of       batch_of(**call) -> the call's batch; default: call["batch"] (0 when absent)
        enable         enable() runs once per enabled slot after the ranks agree (allocate workspace here)
        """
        for role, f in (("kernel", kernel), ("stock", stock), ("check", check), ("enable", enable),
                        ("batch_of", batch_of)):
            if f is not None and not callable(f):
                raise TypeError(f"megac: slot '{name}': {role} must be callable, got {type(f).__name__}")
        self._native.add(name, kernel, stock, check, int(max_batch), enable)
        self._batch_of[name] = batch_of
        return self

    def names(self):
        return list(self._native.names())

    def __contains__(self, name):
        return self._native.find(name) >= 0

    def __len__(self):
        return len(self._native)

    def request(self, slots=None, default_recipe=""):
        """A PlanRequest from: None (MEGAC_SLOTS, else the default plan), a MEGAC_SLOTS-style string
        ("default", "none", a recipe, "a,b"), a list of slot names (explicit), or a PlanRequest."""
        if isinstance(slots, PlanRequest):
            return slots
        if slots is None:
            return _rt.plan_request_from_env(self._native, default_recipe)
        if isinstance(slots, str):
            return _rt.parse_plan_request(slots, self._native, default_recipe)
        if not isinstance(slots, (list, tuple, set, frozenset)) or not all(isinstance(n, str) for n in slots):
            raise TypeError("megac: slots must be None, a MEGAC_SLOTS-style string, a list of slot names or a "
                            f"PlanRequest, got {slots!r}")
        names = list(dict.fromkeys(slots))
        origin = f"the API ({', '.join(names) or 'no slots'})"
        for n in names:
            if n not in self:
                raise SlotError(f"megac: {origin}: unknown slot '{n}' (registered slots: "
                                f"{', '.join(self.names()) or 'none'})")
        return PlanRequest(names, True, origin)


class Plan:
    """Which path each slot takes, decided once by the runtime's SlotPlan.build."""

    def __init__(self, registry, native):
        self._registry = registry
        self._native = native

    def run(self, slot, /, **call):
        """Run the slot's kernel, or its stock function when the slot is inactive or the call is beyond its
        bounds; returns what the callable returned. `slot` is a name or an index."""
        return self.dispatch(slot, **call)[1]

    def dispatch(self, slot, /, **call):
        """Like run(), returning ("kernel" | "stock", what the callable returned)."""
        name = slot if isinstance(slot, str) else self.decisions[slot]["name"]
        batch_of = self._registry._batch_of.get(name)
        batch = batch_of(**call) if batch_of else call.get("batch", 0)
        return self._native.run(slot, int(batch), call)

    def active(self, slot):
        return self._native.active(slot)

    def path(self, slot):
        """"kernel" or "stock": the path decided at build time (a call may still be bounded to stock)."""
        return "kernel" if self._native.active(slot) else "stock"

    @property
    def decisions(self):
        """[{"name", "active", "reason"}] in registry order; reason as logged."""
        return self._native.decisions

    def bounded_fallbacks(self, slot):
        """Calls of an active slot that its bounds sent to stock."""
        return self._native.bounded_fallbacks(slot)

    def __repr__(self):
        return "<megac slot plan: " + ", ".join(
            f"{d['name']}={'kernel' if d['active'] else 'stock'}" for d in self.decisions) + ">"


def build_plan(registry, slots=None, context=None, comm=None, log=None, default_recipe=""):
    """Decide every slot's path once (SlotPlan::build): runs the checks, agrees across ranks through `comm`,
    logs one line per slot (to log(line), else "megac INFO: ..." on stderr), calls the enable hooks.

    slots    None (MEGAC_SLOTS, else the default plan: `default_recipe`'s slots or every registered one), a
             MEGAC_SLOTS-style string, a list of names (an explicit request) or a PlanRequest
    context  a PlanContext (arch, sms, rank, world_size, topology); default: rank and size from `comm`
    Raises SlotError when an explicitly requested slot has a configuration refusal (on any rank).
    """
    request = registry.request(slots, default_recipe)
    if context is None:
        context = PlanContext(topology=default_recipe)
        if comm is not None:
            context.rank, context.world_size = comm.rank(), comm.size()
    return Plan(registry, _rt.SlotPlan.build(registry._native, request, context, comm, log))


def __getattr__(name):
    # torch is imported only when the adapter is asked for
    if name == "TorchDistributedCommunicator":
        from ._torch_comm import TorchDistributedCommunicator
        return TorchDistributedCommunicator
    raise AttributeError(f"module 'megac.slots' has no attribute {name!r}")


__all__ = ["Registry", "Plan", "build_plan", "Capability", "PlanContext", "PlanRequest", "Communicator",
           "FakeCommunicator", "TorchDistributedCommunicator", "SlotError", "available", "configuration",
           "state", "recipes", "known_slot_names"]
