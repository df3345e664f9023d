"""The host's split plan of paged decode attention (attn_decode_cp): how many pages each split of a request
takes, and so how many splits the split kernel's grid has and the merge kernel combines. Plain Python, no torch:
the attention reference builds its workspace with it, and the variant-choice test (no torch in CI) reads the
plan the merge kernels are launched with."""

PAGE = 64          # tokens a page of the KV cache
MAX_SPLITS = 512   # the merge kernel reads a row's lse in one tile of this many


def cdiv(a, b):
    return -(-a // b)


def max_pages(ctx):
    """The page table's width for a batch whose longest context is `ctx` tokens (the references' inputs always
    hold one request of the shape's ctx)."""
    return cdiv(ctx, PAGE)


def split_plan(B, Hkv, max_pages, sms=132, waves=2, fill=False):
    """(split_pages, nsplit): pages per split and splits per request, so that the split kernel's
    B * Hkv * nsplit programs (one per request, kv head and split; each takes all query rows of its kv head)
    make about `waves` waves over the SMs (one program per SM fits). Uses only shapes, never lengths on the
    device, so a launch sequence can be captured in a CUDA graph.

    The splits a request wants are rounded up: at least waves * sms programs. With `fill`, down: at most that
    many where B * Hkv allows (B = 32, Hkv = 1: 8 splits, 256 programs, not 9 and 288, whose last 24 would run
    after the first 264, two a SM, as a tail; an alternative for bench/attn_splits_probe.py to time)."""
    programs = B * Hkv
    wanted = (waves * sms) // programs if fill else cdiv(waves * sms, programs)
    want = min(MAX_SPLITS, max(1, wanted))
    split_pages = max(1, cdiv(max_pages, want))
    return split_pages, cdiv(max_pages, split_pages)
