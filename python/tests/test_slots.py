"""The slot contract from Python (megac.slots over the runtime's SlotPlan): no GPU, Python callables for the
kernel and stock paths."""
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("megac._runtime", reason="megac._runtime not built (set MEGAC_PYTHON_BUILD=<build>/python)")

import megac  # noqa: E402
from megac import slots  # noqa: E402


class Calls:
    """Records which path ran, with its arguments."""

    def __init__(self):
        self.log = []

    def kernel(self, name):
        def run(**call):
            self.log.append((name, "kernel", call))
            return ("kernel", name, call.get("x"))
        return run

    def stock(self, name):
        def run(**call):
            self.log.append((name, "stock", call))
            return ("stock", name, call.get("x"))
        return run


def registry(calls, specs):
    """specs: {name: dict(check=..., max_batch=..., enable=...)}"""
    reg = slots.Registry()
    for name, spec in specs.items():
        reg.add(name, calls.kernel(name), calls.stock(name), **spec)
    return reg


def build(reg, request=None, **kw):
    lines = []
    plan = slots.build_plan(reg, request, log=lines.append, **kw)
    return plan, lines


def test_default_plan_unavailable_runs_stock_with_one_info_line(monkeypatch):
    monkeypatch.delenv("MEGAC_SLOTS", raising=False)
    c = Calls()
    reg = registry(c, {
        "hop": {},
        "nvfp4_quant": {"check": lambda ctx: slots.configuration(
            f"fp4 conversion needs sm_100a, the device is {ctx.arch}", "run on a B200")},
    })
    plan, lines = build(reg, context=slots.PlanContext(arch="sm_90"))
    assert lines == ["slot 'hop': kernel (default plan)",
                     "slot 'nvfp4_quant': stock (default plan, unavailable: fp4 conversion needs sm_100a, "
                     "the device is sm_90)"]
    assert plan.run("hop", x=1) == ("kernel", "hop", 1)
    assert plan.run("nvfp4_quant", x=2) == ("stock", "nvfp4_quant", 2)
    assert plan.dispatch("nvfp4_quant", x=3)[0] == "stock"
    assert plan.path("hop") == "kernel" and plan.path("nvfp4_quant") == "stock"
    assert [d["active"] for d in plan.decisions] == [True, False]


def test_explicit_configuration_refusal_raises_with_condition_and_fix():
    c = Calls()
    reg = registry(c, {"hop": {"check": lambda ctx: slots.configuration(
        f"world size {ctx.world_size} is odd", "run with an even tensor-parallel size")}})
    with pytest.raises(slots.SlotError) as e:
        build(reg, "hop", context=slots.PlanContext(world_size=3))
    msg = str(e.value)
    assert msg == ("megac: slot 'hop' was requested by MEGAC_SLOTS=hop but cannot run: world size 3 is odd; "
                   "fix: run with an even tensor-parallel size")
    assert isinstance(e.value, megac._runtime.Error)
    # an explicit list from the API names its origin
    with pytest.raises(slots.SlotError, match=r"requested by the API \(hop\) but cannot run"):
        build(reg, ["hop"])


def test_explicit_state_refusal_falls_back_with_info_line():
    c = Calls()
    reg = registry(c, {"route": {"check": lambda ctx: slots.state("expert weights are not quantized")}})
    plan, lines = build(reg, "route")
    assert lines == ["slot 'route': stock (requested by MEGAC_SLOTS=route, refused for runtime state: expert "
                     "weights are not quantized)"]
    assert plan.run("route", x=0)[0] == "stock"


def test_per_call_bounds_send_that_call_to_stock():
    c = Calls()
    reg = registry(c, {"gdn_core": {"max_batch": 32}})
    plan, lines = build(reg, "gdn_core")
    assert lines == ["slot 'gdn_core': kernel (requested by MEGAC_SLOTS=gdn_core); calls with batch > 32 run stock"]
    assert plan.dispatch("gdn_core", batch=32, x=1)[0] == "kernel"
    assert plan.dispatch("gdn_core", batch=33, x=2)[0] == "stock"
    assert plan.dispatch("gdn_core", batch=1, x=3)[0] == "kernel"   # the slot stays active
    assert plan.bounded_fallbacks("gdn_core") == 1
    assert plan.active("gdn_core")
    # the callables get every keyword argument, batch included
    assert c.log[1] == ("gdn_core", "stock", {"batch": 33, "x": 2})


def test_batch_of_derives_the_batch_from_the_call():
    c = Calls()
    reg = slots.Registry()
    reg.add("gdn_core", c.kernel("gdn_core"), c.stock("gdn_core"), max_batch=4, batch_of=lambda x: len(x))
    plan, _ = build(reg, ["gdn_core"])
    assert plan.dispatch("gdn_core", x=[0] * 4)[0] == "kernel"
    assert plan.dispatch("gdn_core", x=[0] * 5)[0] == "stock"
    assert plan.dispatch(0, x=[0] * 5)[0] == "stock"   # by index too


def test_megac_slots_environment(monkeypatch):
    c = Calls()
    reg = registry(c, {"hop": {}, "route": {}, "group_quant": {}})
    monkeypatch.setenv("MEGAC_SLOTS", "route")
    plan, lines = build(reg)
    assert lines == ["slot 'hop': stock (not in MEGAC_SLOTS=route)",
                     "slot 'route': kernel (requested by MEGAC_SLOTS=route)",
                     "slot 'group_quant': stock (not in MEGAC_SLOTS=route)"]
    monkeypatch.setenv("MEGAC_SLOTS", "none")
    plan, _ = build(reg)
    assert not any(d["active"] for d in plan.decisions)
    monkeypatch.setenv("MEGAC_SLOTS", "tp2")   # a recipe, case-insensitive: a default plan
    plan, lines = build(reg)
    assert [d["active"] for d in plan.decisions] == [True, False, True]
    assert lines[0] == "slot 'hop': kernel (default plan TP2)"
    monkeypatch.setenv("MEGAC_SLOTS", "hop,nope")
    with pytest.raises(slots.SlotError, match=r"unknown slot 'nope' \(registered slots: hop, route, group_quant"):
        build(reg)
    monkeypatch.setenv("MEGAC_SLOTS", "hop,TP8")
    with pytest.raises(slots.SlotError, match="names a whole plan"):
        build(reg)
    monkeypatch.delenv("MEGAC_SLOTS")
    plan, _ = build(reg, default_recipe="TP2")
    assert [d["active"] for d in plan.decisions] == [True, False, True]
    with pytest.raises(slots.SlotError, match="unknown recipe 'TP3'"):
        build(reg, default_recipe="TP3")


def test_explicit_list_and_request_objects():
    c = Calls()
    reg = registry(c, {"hop": {}, "route": {}})
    plan, lines = build(reg, ["route", "route"])
    assert lines[1] == "slot 'route': kernel (requested by the API (route))"
    with pytest.raises(slots.SlotError, match="unknown slot 'hp'"):
        build(reg, ["hp"])
    plan, lines = build(reg, slots.PlanRequest(["hop"], explicit=False, origin="my host"))
    assert lines == ["slot 'hop': kernel (my host)", "slot 'route': stock (not in my host)"]


def test_registry_refusals_and_recipes():
    c = Calls()
    reg = registry(c, {"hop": {}})
    with pytest.raises(slots.SlotError, match="registered twice"):
        reg.add("hop", c.kernel("hop"), c.stock("hop"))
    with pytest.raises(slots.SlotError, match="needs both a kernel and a stock"):
        reg.add("route", c.kernel("route"), None)
    assert "hop" in reg and "route" not in reg and len(reg) == 1
    # what is not callable is refused where it is registered, not when a call first reaches it
    with pytest.raises(TypeError, match="megac: slot 'route': kernel must be callable, got int"):
        reg.add("route", 1, c.stock("route"))
    with pytest.raises(TypeError, match="megac: slot 'route': batch_of must be callable, got str"):
        reg.add("route", c.kernel("route"), c.stock("route"), batch_of="M")
    with pytest.raises(TypeError, match="megac: slots must be None, a MEGAC_SLOTS-style string, a list of slot "
                                        "names or a PlanRequest, got 5"):
        slots.build_plan(reg, 5)
    assert "route" not in reg
    r = slots.recipes()
    assert set(r) == {"TP2", "TP4", "TP8", "TEP8", "DEP8", "PD_PREFILL", "PD_DECODE"}
    assert "shared_act_quant" in r["TP8"] and "shared_act_quant" not in r["TP4"]
    assert "hop" in slots.known_slot_names()


def test_check_sees_the_context_and_bad_answers_are_refused():
    seen = []
    c = Calls()
    reg = registry(c, {"hop": {"check": lambda ctx: seen.append((ctx.arch, ctx.sms, ctx.rank, ctx.world_size,
                                                                 ctx.topology))}})
    build(reg, context=slots.PlanContext(arch="sm_90a", sms=132, rank=1, world_size=8, topology="TP8"))
    assert seen == [("sm_90a", 132, 1, 8, "TP8")]   # and None means available
    reg = registry(c, {"hop": {"check": lambda ctx: "yes"}})
    with pytest.raises(slots.SlotError, match="capability check returned 'yes'"):
        build(reg)


def test_exceptions_from_callables_propagate():
    def broken(**call):
        raise ValueError("stock failed")

    reg = slots.Registry()
    reg.add("hop", broken, broken, check=lambda ctx: slots.state("no weights"))
    plan, _ = build(reg)
    with pytest.raises(ValueError, match="stock failed"):
        plan.run("hop", x=1)
    with pytest.raises(slots.SlotError, match="no slot 'nope' in this plan"):
        plan.run("nope")


def test_fake_communicator_agreement_and_enable_hooks():
    enabled = []
    c = Calls()
    reg = registry(c, {name: {"enable": (lambda n=name: enabled.append(n))} for name in ("hop", "route", "gdn_core")})
    comm = slots.FakeCommunicator(0, 2)

    def peer(values):       # rank 1 cannot run 'route' (its vote is index 1)
        values[1] = 0
    comm.set_peer(1, peer)
    plan, lines = build(reg, comm=comm)
    assert comm.calls == 1 and comm.last_local == [1, 1, 1, 1]   # one vote per slot + "no error here"
    assert [d["active"] for d in plan.decisions] == [True, False, True]
    assert lines[1] == "slot 'route': stock (disabled on another rank: every rank must enable it)"
    assert enabled == ["hop", "gdn_core"]                           # enable only after agreement
    assert plan.run("route", x=1)[0] == "stock"


def test_configuration_error_on_another_rank_stops_every_rank():
    c = Calls()
    reg = registry(c, {"hop": {}})
    comm = slots.FakeCommunicator(1, 4)
    comm.set_peer(3, lambda v: [0] * len(v))   # rank 3 votes "configuration error"
    with pytest.raises(slots.SlotError, match="refused on another rank"):
        build(reg, ["hop"], comm=comm)
    assert comm.calls == 1
    with pytest.raises(megac._runtime.Error, match="not a peer rank"):
        comm.set_peer(1, lambda v: v)


def test_python_communicator_subclass():
    class Half(slots.Communicator):
        """Two ranks; the other one refuses the first slot."""

        def __init__(self):
            super().__init__()
            self.seen = []

        def rank(self):
            return 0

        def size(self):
            return 2

        def all_reduce_min(self, values):
            self.seen.append(list(values))
            other = list(values)
            other[0] = 0
            return [min(a, b) for a, b in zip(values, other)]

    c = Calls()
    reg = registry(c, {"hop": {}, "route": {}})
    comm = Half()
    plan, _ = build(reg, comm=comm)
    assert comm.seen == [[1, 1, 1]]
    assert [d["active"] for d in plan.decisions] == [False, True]

    class Wrong(Half):
        def all_reduce_min(self, values):
            return [1]

    with pytest.raises(slots.SlotError, match="returned 1 values for 3"):
        build(reg, comm=Wrong())


def test_default_log_goes_to_stderr():
    code = textwrap.dedent("""
        from megac import slots
        reg = slots.Registry()
        reg.add("hop", lambda **c: 1, lambda **c: 2, check=lambda ctx: slots.state("cold"))
        slots.build_plan(reg, "hop")
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stderr.strip() == ("megac INFO: slot 'hop': stock (requested by MEGAC_SLOTS=hop, refused for "
                                "runtime state: cold)")


def test_megac_kernel_as_slot_kernel():
    """A megac Kernel plugs in as the kernel callable; prepare() stands in for the launch without a GPU."""
    from test_bundle import MANIFEST, PTX  # the hand-written vector_add bundle
    from megac import bundle
    mod = megac.load_bytes(bundle.write_bytes(MANIFEST, [PTX]))
    x = megac.RawTensor(0x10000, "f32", [4096])
    reg = slots.Registry()
    reg.add("vector_add", kernel=lambda x, y, out: mod.vector_add.prepare(x, y, out),
            stock=lambda x, y, out: "stock", max_batch=4096, batch_of=lambda x, y, out: x.shape[0])
    plan, _ = build(reg, ["vector_add"])
    assert plan.run("vector_add", x=x, y=x, out=x)["grid"] == (4, 1, 1)
    big = megac.RawTensor(0x10000, "f32", [8192])
    assert plan.run("vector_add", x=big, y=big, out=big) == "stock"


def test_torch_distributed_communicator_lazy_and_two_ranks(tmp_path):
    import importlib
    torch = pytest.importorskip("torch", reason="torch not installed: TorchDistributedCommunicator untested")
    assert importlib.import_module("megac.slots").TorchDistributedCommunicator.__name__ == \
        "TorchDistributedCommunicator"
    if not torch.distributed.is_available():
        pytest.skip("torch.distributed is not available in this torch build")
    code = textwrap.dedent("""
        import os, sys
        import torch.distributed as dist
        rank = int(sys.argv[1])
        dist.init_process_group("gloo", init_method="file://" + sys.argv[2], rank=rank, world_size=2)
        from megac import slots
        comm = slots.TorchDistributedCommunicator()
        assert comm.rank() == rank and comm.size() == 2
        reg = slots.Registry()
        reg.add("hop", lambda **c: "k", lambda **c: "s")
        reg.add("route", lambda **c: "k", lambda **c: "s",
                check=(lambda ctx: slots.state("no weights")) if rank == 1 else None)
        lines = []
        plan = slots.build_plan(reg, comm=comm, log=lines.append)
        print(rank, plan.run("hop"), plan.run("route"), lines[1], flush=True)
        dist.destroy_process_group()
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    store = str(tmp_path / "store")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(r), store], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env) for r in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert outs[0][0].strip() == "0 k s slot 'route': stock (disabled on another rank: every rank must enable it)"
    assert outs[1][0].strip().startswith("1 k s slot 'route': stock (default plan, refused for runtime state")
