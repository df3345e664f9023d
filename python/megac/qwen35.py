"""The Qwen3.5 wave-1 kernels as slots: each slot's megac kernel(s), its PyTorch stock path, its capability
check and its per-call bounds, under the runtime's slot contract (megac.slots, docs/runtime.md).

    from megac import qwen35, slots
    reg = qwen35.registry("out/bundles")                # every slot of KERNELS.md
    plan = slots.build_plan(reg, slots="skv2_cp,hop")   # or MEGAC_SLOTS, or a recipe ("TP8")
    plan.run("hop", **args)                             # args: the kernel's parameters by name

A call passes the parameters of the slot's kernels by name, as megac.reference's inputs() builds them; the slot
picks the kernel variant from them (FP8 or bf16 output, f32 or bf16 logits, plain weight, UE8M0 scales, swizzled
scales, residual). The attention slots allocate their split-KV workspace (megac.reference.attn_plan
.split_plan) per shape on first use, so run each shape once before capturing a CUDA graph.

Capability: a slot is available when its bundle holds its kernels and the GPU is one the bundles target
(sm_90, sm_100, sm_103); otherwise the plan refuses it as a configuration (a requested slot raises SlotError,
the default plan falls back to stock with an INFO line). Bounds as production validated them: the attention
slots take batches up to 32 (KERNELS.md), gdn_verify up to 896 rows (B * T); larger calls run stock.

Early launch: gdn_conv and gdn_core are compiled with @early_launch, and the registry loads them to be launched
early (megac.load's default): each may start while the kernel before it on the stream still runs. gdn_core at
B * HV <= 16 (its `prefetch` variant) reads its slot, its state and A_log / dt_bias before it waits for that
kernel, so the kernel right before it on the stream must not write the state pool, the slot map or those
weights (in a decode step that kernel is gdn_conv, which writes none of them). `registry(..., early_launch=False)`
launches every kernel after the one before it has ended.
"""
from . import slots as _slots

TARGET_ARCHS = ("sm_90", "sm_100", "sm_103")
ATTENTION_MAX_BATCH = 32
VERIFY_MAX_ROWS = 896


def _fp8(t):
    return "float8" in str(t.dtype)


class Slot:
    """One slot: the reference kernels it may run (`variants`, megac.reference / megac.stock names),
    `choose(call)` the one a call runs, `batch_of(call)` its batch for the bound `max_batch` (-1: unbounded)."""

    def __init__(self, name, variants, choose, batch_of, max_batch=-1):
        self.name, self.variants, self.choose = name, tuple(variants), choose
        self.batch_of, self.max_batch = batch_of, max_batch


def _one(name):
    return (name,), lambda c: name


SLOTS = [
    Slot("shared_act_quant", *_one("shared_act_quant"), lambda c: c["M"]),
    Slot("hop", ("hop", "hop_plain", "hop_fp8"),
         lambda c: "hop_fp8" if _fp8(c["out"]) else ("hop_plain" if c.get("plain") else "hop"),
         lambda c: c["M"]),
    Slot("hop_mid", *_one("hop_mid"), lambda c: c["M"]),
    Slot("route", ("route", "route_f32"),
         lambda c: "route_f32" if str(c["logits"].dtype) == "torch.float32" else "route", lambda c: c["M"]),
    Slot("nvfp4_quant", ("nvfp4_quant", "nvfp4_quant_swizzled"),
         lambda c: "nvfp4_quant_swizzled" if c.get("swizzled") else "nvfp4_quant", lambda c: c["M"]),
    Slot("group_quant", ("group_quant", "group_quant_ue8m0"),
         lambda c: "group_quant_ue8m0" if c.get("ue8m0") else "group_quant", lambda c: c["M"]),
    Slot("gdn_conv", *_one("gdn_conv"), lambda c: c["B"]),
    Slot("gdn_core", *_one("gdn_core"), lambda c: c["B"]),
    Slot("gdn_verify", *_one("gdn_verify"), lambda c: c["B"] * c["T"], VERIFY_MAX_ROWS),
    Slot("gdn_norm_gate", ("gdn_norm_gate", "gdn_norm_gate_fp8"),
         lambda c: "gdn_norm_gate_fp8" if _fp8(c["y"]) else "gdn_norm_gate", lambda c: c["M"]),
    Slot("skv2_cp", *_one("attn_decode_verify"), lambda c: c["B"], ATTENTION_MAX_BATCH),
    Slot("draft_q1_cp", *_one("attn_decode_q1"), lambda c: c["B"], ATTENTION_MAX_BATCH),
    Slot("draft_fin", ("draft_fin", "draft_fin_residual"),
         lambda c: "draft_fin_residual" if c.get("residual") is not None else "draft_fin", lambda c: c["M"]),
]
BY_NAME = {s.name: s for s in SLOTS}


class _KernelPath:
    """A slot's megac path: the chosen reference kernel's launch sequence (megac.bundles), loaded on first
    use (no GPU needed to build a registry); the attention kernels get their split-KV workspace, allocated
    once per shape so that calls can be captured in a CUDA graph after a first call."""

    def __init__(self, slot, found, early_launch=True):
        self.slot, self.found, self.early_launch = slot, found, early_launch
        self._sequences, self._modules, self._workspaces = {}, {}, {}

    def _workspace(self, call):
        from .reference.attn_decode_cp import workspace
        key = (tuple(call["q"].shape), call["k_cache"].shape[1], call["page_table"].shape[1],
               str(call["q"].device))
        if key not in self._workspaces:
            self._workspaces[key] = workspace(call["q"], call["k_cache"].shape[1], call["page_table"].shape[1])
        return self._workspaces[key]

    def __call__(self, **call):
        from . import bundles, reference
        name = self.slot.choose(call)
        if name not in self._sequences:
            self._sequences[name] = bundles.sequence(reference.get(name), self.found, self._modules,
                                                     early_launch=self.early_launch)
        args = dict(call, **self._workspace(call)) if name.startswith("attn_decode") else call
        self._sequences[name](**args)


def _stock_path(slot):
    def run(**call):
        from . import stock
        stock.EAGER[slot.choose(call)](call)
    return run


def _check(slot, bundles, index):
    """available() when every kernel the slot may run has a bundle and the GPU is a target; else why not."""
    from . import reference

    def check(ctx):
        missing = [k for name in slot.variants for k in reference.get(name).launches if k not in index]
        if missing:
            return _slots.configuration(f"no bundle in {bundles!r} holds kernel(s) {', '.join(missing)}",
                                        "compile kernels-dsl/ into that directory (./scripts/build.sh)")
        if ctx.arch and not ctx.arch.startswith(TARGET_ARCHS):
            return _slots.configuration(f"arch {ctx.arch} is not one the bundles target "
                                        f"({', '.join(TARGET_ARCHS)})", "run on an H100/H200 or B200/B300")
        return _slots.available()
    return check


def _batch_of(slot):
    return lambda **call: slot.batch_of(call)


def registry(bundles, early_launch=True):
    """A slots.Registry with every Qwen3.5 wave-1 slot: megac kernels from the bundles in `bundles`, stock
    paths from megac.stock, checks and bounds as described in the module docstring; `early_launch` as
    megac.load's (there: what the kernel before gdn_core on the stream may write)."""
    from . import bundles as bundle_dir
    reg = _slots.Registry()
    index, _ = bundle_dir.index(bundles)
    for s in SLOTS:
        reg.add(s.name, _KernelPath(s, index, early_launch), _stock_path(s), check=_check(s, bundles, index),
                max_batch=s.max_batch, batch_of=_batch_of(s))
    return reg
