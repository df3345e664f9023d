"""The Qwen3.5 wave-1 kernels as slots: each slot's megac kernel(s), its PyTorch stock path, its capability
check and its per-call bounds, under the runtime's slot contract (megac.slots, docs/runtime.md).

    from megac import qwen35, slots
    reg = qwen35.registry("out/bundles")                # every slot of KERNELS.md
    plan = slots.build_plan(reg, slots="skv2_cp,hop")   # or MEGAC_SLOTS, or a recipe ("TP8")
    plan.run("hop", **args)                             # args: the kernel's parameters by name

A call passes the parameters of the slot's kernels by name, as megac.reference's inputs() builds them; the slot
picks the kernel variant from them (FP8 or bf16 output, f32 or bf16 logits, plain weight, UE8M0 scales, swizzled
scales, residual). The attention slots allocate their split-KV workspace (megac.reference.attn_decode_cp
.split_plan) per shape on first use, so run each shape once before capturing a CUDA graph.

Capability: a slot is available when its bundle holds its kernels and the GPU is one the bundles target
(sm_90, sm_100, sm_103); otherwise the plan refuses it as a configuration (a requested slot raises SlotError,
the default plan falls back to stock with an INFO line). Bounds as production validated them: the attention
slots take batches up to 32 (KERNELS.md), gdn_verify up to 896 rows (B * T); larger calls run stock.
"""
import os

from . import slots as _slots

TARGET_ARCHS = ("sm_90", "sm_100", "sm_103")
ATTENTION_MAX_BATCH = 32
VERIFY_MAX_ROWS = 896


def _fp8(t):
    return "float8" in str(t.dtype)


class Slot:
    """One slot: `choose(call)` names the reference kernel a call runs (megac.reference / megac.stock names);
    `batch_of(call)` its batch for the bound `max_batch` (-1: unbounded)."""

    def __init__(self, name, choose, batch_of, max_batch=-1):
        self.name, self.choose, self.batch_of, self.max_batch = name, choose, batch_of, max_batch


SLOTS = [
    Slot("shared_act_quant", lambda c: "shared_act_quant", lambda c: c["M"]),
    Slot("hop", lambda c: "hop_fp8" if _fp8(c["out"]) else ("hop_plain" if c.get("plain") else "hop"),
         lambda c: c["M"]),
    Slot("hop_mid", lambda c: "hop_mid", lambda c: c["M"]),
    Slot("route", lambda c: "route_f32" if str(c["logits"].dtype) == "torch.float32" else "route",
         lambda c: c["M"]),
    Slot("nvfp4_quant", lambda c: "nvfp4_quant_swizzled" if c.get("swizzled") else "nvfp4_quant",
         lambda c: c["M"]),
    Slot("group_quant", lambda c: "group_quant_ue8m0" if c.get("ue8m0") else "group_quant", lambda c: c["M"]),
    Slot("gdn_conv", lambda c: "gdn_conv", lambda c: c["B"]),
    Slot("gdn_core", lambda c: "gdn_core", lambda c: c["B"]),
    Slot("gdn_verify", lambda c: "gdn_verify", lambda c: c["B"] * c["T"], VERIFY_MAX_ROWS),
    Slot("gdn_norm_gate", lambda c: "gdn_norm_gate_fp8" if _fp8(c["y"]) else "gdn_norm_gate", lambda c: c["M"]),
    Slot("skv2_cp", lambda c: "attn_decode_verify", lambda c: c["B"], ATTENTION_MAX_BATCH),
    Slot("draft_q1_cp", lambda c: "attn_decode_q1", lambda c: c["B"], ATTENTION_MAX_BATCH),
    Slot("draft_fin", lambda c: "draft_fin_residual" if c.get("residual") is not None else "draft_fin",
         lambda c: c["M"]),
]
BY_NAME = {s.name: s for s in SLOTS}


def reference_names(slot):
    """Every reference kernel a slot may run (its variants)."""
    from . import reference
    return sorted(n for n in reference.NAMES if _variant_of(n) == slot)


def _variant_of(name):
    families = {"hop_fp8": "hop", "hop_plain": "hop", "route_f32": "route",
                "nvfp4_quant_swizzled": "nvfp4_quant", "group_quant_ue8m0": "group_quant",
                "gdn_norm_gate_fp8": "gdn_norm_gate", "attn_decode_verify": "skv2_cp",
                "attn_decode_q1": "draft_q1_cp", "draft_fin_residual": "draft_fin"}
    return families.get(name, name)


class _KernelPath:
    """A slot's megac path: loads the bundles lazily (no GPU needed to build a registry) and launches the
    chosen reference kernel's kernels in order, arguments bound by name."""

    def __init__(self, slot, index):
        self.slot, self.index = slot, index
        self._launchers = {}
        self._modules = {}
        self._workspaces = {}

    def _launcher(self, name):
        if name not in self._launchers:
            from . import load, reference
            kernels = []
            for k in reference.get(name).launches:
                path = self.index[k]
                if path not in self._modules:
                    self._modules[path] = load(path)
                kernels.append(self._modules[path].kernel(k))
            self._launchers[name] = kernels
        return self._launchers[name]

    def _with_workspace(self, name, call):
        """The attention kernels' split-KV workspace, per shape (allocated on the first call of a shape)."""
        if not name.startswith("attn_decode"):
            return call
        import torch
        from .reference.attn_decode_cp import D, split_plan
        q = call["q"]
        B, Hq = q.shape[0], q.shape[-2]
        T = q.shape[1] if q.dim() == 4 else 1
        max_pages = call["page_table"].shape[1]
        sms = torch.cuda.get_device_properties(q.device).multi_processor_count
        split_pages, nsplit = split_plan(B, T, Hq, max_pages, sms)
        rows = (B, T, Hq) if q.dim() == 4 else (B, Hq)
        key = (rows, nsplit, str(q.device))
        if key not in self._workspaces:
            self._workspaces[key] = (torch.empty(rows + (nsplit, D), device=q.device, dtype=torch.float32),
                                     torch.empty(rows + (nsplit,), device=q.device, dtype=torch.float32))
        o_part, lse_part = self._workspaces[key]
        return dict(call, split_pages=split_pages, nsplit=nsplit, o_part=o_part, lse_part=lse_part)

    def __call__(self, **call):
        name = self.slot.choose(call)
        args = self._with_workspace(name, call)
        for k in self._launcher(name):
            k(**{p["name"]: args[p["name"]] for p in k.params if p["name"] in args})


def _stock_path(slot):
    def run(**call):
        from . import stock
        stock.EAGER[slot.choose(call)](call)
    return run


def bundle_index(bundles):
    """{kernel name: .mgb path} over the bundles in the directory `bundles` (empty when it is not one); the
    manifests are read once, when a registry is built."""
    from . import bundle
    index = {}
    if not bundles or not os.path.isdir(bundles):
        return index
    for f in sorted(os.listdir(bundles)):
        if f.endswith(".mgb"):
            path = os.path.join(bundles, f)
            try:
                for k in bundle.read_file(path).manifest.get("kernels", []):
                    index.setdefault(k["name"], path)
            except Exception:  # an unreadable bundle holds nothing; the check names what is missing
                continue
    return index


def _check(slot, bundles, index):
    """available() when every kernel the slot may run has a bundle and the GPU is a target; else why not."""
    from . import reference

    def check(ctx):
        missing = [k for name in reference_names(slot.name) for k in reference.get(name).launches
                   if k not in index]
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


def registry(bundles):
    """A slots.Registry with every Qwen3.5 wave-1 slot: megac kernels from the bundles in `bundles`, stock
    paths from megac.stock, checks and bounds as described in the module docstring."""
    reg = _slots.Registry()
    index = bundle_index(bundles)
    for s in SLOTS:
        reg.add(s.name, _KernelPath(s, index), _stock_path(s), check=_check(s, bundles, index),
                max_batch=s.max_batch, batch_of=_batch_of(s))
    return reg
