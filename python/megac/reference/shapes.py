"""Every reference kernel's shapes: the listed ones (shared/KERNELS.md; the correctness suite runs each) and the
benchmark's. Plain Python, no torch: code that only needs the shapes - the variant-choice test, tools listing
them - reads them here without importing the references, which need torch for their tensors.

    SHAPES[name]   list of dicts of shape parameters
    BENCH[name]    the benchmark's shapes (empty for kernels that are not benchmarked)
    every_shape(name)  the listed shapes, then the benchmarked ones not among them: every shape megac runs at
"""

M_LIST = [1, 2, 3, 8, 16, 33, 64, 128, 256, 1024, 4096, 16384]
# gdn_core's and gdn_conv's batch sizes
B_LIST = (1, 2, 4, 8, 16, 32, 64, 128, 256)
# gdn_core's (HV, HK): 397B TP8 (8, 2), TP16 (4, 1), TP4 (16, 4); 35B/80B TP4 (8, 4)
GDN_HEADS = ((4, 1), (8, 2), (16, 4), (8, 4))
HOP_H = (2048, 3072, 4096)
HOP_MID_M = [64, 96, 128, 200, 256, 384, 512]  # the slot of hop_mid
REDUCE_T = (1, 2, 3, 8, 33, 128, 1024, 4096)

SHAPES = {}
BENCH = {}


def listed_then_benchmarked(listed, bench):
    """The listed shapes, then the benchmarked ones not among them, each once: every shape the correctness
    suite must check so that no timed shape runs code nothing checked (a variant only a benchmark shape
    reaches: vector_add's vec4 at n = 2^24)."""
    return list(listed) + [s for s in bench if s not in listed]


def every_shape(name):
    """listed_then_benchmarked of reference kernel `name`'s shapes."""
    return listed_then_benchmarked(SHAPES[name], BENCH[name])


def _add(names, shapes, bench):
    for name in names:
        SHAPES[name] = [dict(s) for s in shapes]
        BENCH[name] = [dict(s) for s in bench]


_add(["vector_add"],
     [dict(n=n) for n in (1, 7, 16, 1000, 1024, 4097, 65536, 1 << 20, (1 << 24) + 3)],
     [dict(n=n) for n in (1 << 16, 1 << 20, 1 << 24, 1 << 26)])

_add(["shared_act_quant"],
     [dict(M=m, I=i) for i in (128, 256, 512, 1024) for m in M_LIST] + [dict(M=m, I=14336) for m in (1, 128, 4096)],
     [dict(M=m, I=i) for i in (512, 1024, 14336) for m in (1, 16, 128, 1024, 4096, 16384) if m * i <= 16384 * 1024])

# C = 1152 (a multiple of 128, not of 512): the one-channel-a-thread variants at every grid, `many_ctas` at B = 256
# (the listed C take `wide` there).
_add(["gdn_conv"],
     [dict(B=b, C=c) for c in (1024, 1536, 2048, 3072) for b in B_LIST] + [dict(B=b, C=1152) for b in (1, 64, 256)],
     [dict(B=b, C=c) for c in (1536, 3072) for b in (1, 16, 64, 256)])

# 96 heads (B = 24, 12, 6 at HV = 4, 8, 16): 384 CTAs, between two and three waves, the only grids that launch
# the register-capped `cap168` (no power-of-two batch falls there).
_add(["gdn_core"],
     [dict(B=b, HV=hv, HK=hk) for hv, hk in GDN_HEADS for b in B_LIST]
     + [dict(B=96 // hv, HV=hv, HK=hk) for hv, hk in ((4, 1), (8, 2), (16, 4))],
     [dict(B=b, HV=hv, HK=hk) for hv, hk in ((8, 2), (16, 4)) for b in (1, 8, 32, 128, 256)])

_add(["gdn_verify"],
     [dict(B=b, T=t, HV=hv, HK=hk) for hv, hk in ((8, 2), (16, 4), (8, 4)) for t in (2, 3, 4, 8)
      for b in (1, 2, 4, 16, 32, 64, 112) if b * t <= 896],
     [dict(B=b, T=4, HV=8, HK=2) for b in (1, 8, 32, 112)])

for _name, _m_list in (("hop", M_LIST), ("hop_mid", HOP_MID_M), ("hop_plain", M_LIST), ("hop_fp8", M_LIST)):
    _add([_name],
         [dict(M=m, H=h) for h in HOP_H for m in _m_list],
         [dict(M=m, H=h) for h in (2048, 4096) for m in (1, 16, 128, 512, 4096) if m in _m_list])

_add(["route", "route_f32"],
     [dict(M=m, E=e, k=k) for e, k in ((256, 8), (512, 10)) for m in M_LIST],
     [dict(M=m, E=512, k=10) for m in (1, 16, 128, 1024, 4096)])

_NVFP4_BENCH = [dict(M=m, K=k) for k in (2048, 4096) for m in (1, 16, 128, 1024, 4096, 16384)]
_NVFP4_BENCH.insert(_NVFP4_BENCH.index(dict(M=16384, K=4096)), dict(M=8192, K=4096))
# M = 2049: past 2048 rows and not a multiple of 128, the only rows that launch the swizzled kernel's
# `two_blocks` (the padded row tile with two 16-row blocks a program).
_add(["nvfp4_quant", "nvfp4_quant_swizzled"],
     [dict(M=m, K=k) for k in (256, 1024, 2048, 4096) for m in M_LIST + [2049]],
     _NVFP4_BENCH)

_add(["group_quant", "group_quant_ue8m0"],
     [dict(M=m, K=k) for k in (512, 2048, 4096, 7168) for m in M_LIST],
     [dict(M=m, K=k) for k in (2048, 4096) for m in (1, 16, 128, 1024, 4096, 16384)])

_add(["gdn_norm_gate", "gdn_norm_gate_fp8"],
     [dict(M=m, HV=hv) for hv in (4, 8, 16) for m in M_LIST if m <= 4096],
     [dict(M=m, HV=8) for m in (1, 16, 128, 1024, 4096)])

_ATTN_HEADS = ((4, 1), (8, 1))
_ATTN_CTX = (1, 63, 64, 65, 1000, 8192)
_add(["attn_decode_q1"],
     [dict(B=b, ctx=c, Hq=hq, Hkv=hk) for hq, hk in _ATTN_HEADS for b in (1, 4, 32) for c in _ATTN_CTX]
     + [dict(B=b, ctx=131072, Hq=8, Hkv=1) for b in (1, 4)] + [dict(B=32, ctx=32768, Hq=4, Hkv=1)],
     [dict(B=b, ctx=c, Hq=8, Hkv=1) for b in (1, 8, 32) for c in (4096, 32768, 131072) if b * c <= 2**20])
_add(["attn_decode_verify"],
     [dict(B=b, ctx=c, Hq=hq, Hkv=hk, T=t) for hq, hk in _ATTN_HEADS for t in (2, 4, 8)
      for b in (1, 4, 32) for c in _ATTN_CTX + (32768,) if c >= t],
     [dict(B=b, ctx=c, Hq=8, Hkv=1, T=4) for b in (1, 8, 32) for c in (4096, 32768)])

_add(["draft_fin", "draft_fin_residual"],
     [dict(M=m, H=h, k=k) for h, k in ((2048, 8), (4096, 10)) for m in M_LIST if m <= 4096],
     [dict(M=m, H=4096, k=10) for m in (1, 16, 128, 1024)])

_add(["reduce_rows", "reduce_cols"],
     [dict(T=t) for t in REDUCE_T],
     [dict(T=t) for t in (8, 1024, 4096, 16384)])

_add(["softmax"],
     [dict(M=m, N=n) for n in (256, 1024, 2048, 4096) for m in M_LIST],
     [dict(M=m, N=4096) for m in (1, 128, 4096, 16384)])
_add(["softmax_small"],
     [dict(M=m, N=n) for n in (16, 128, 256, 512, 1008, 1024) for m in M_LIST],  # N = 512: the n512 variant
     [dict(M=m, N=n) for n in (256, 1024) for m in (1, 128, 4096, 16384)])

# M and N include partial tiles of the kernel's 64 x 64; K is a multiple of its step of 32. Not benchmarked.
_add(["matmul", "matmul_nt"],
     [dict(M=m, N=n, K=k) for m, n, k in
      ((64, 64, 32), (1, 8, 32), (100, 72, 64), (128, 192, 256), (257, 130, 96), (512, 512, 512))],
     [])
# matmul_f16: K = 64 (one step), N a multiple of 8.
_add(["matmul_f16"], [dict(M=m, N=n, K=64) for m, n in ((64, 64), (1, 8), (100, 72), (257, 136))], [])
