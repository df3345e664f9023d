"""attn_plan.split_plan, the host's split plan of paged decode attention (plain Python: runs without torch)."""
import pytest

from megac.reference import attn_plan as plan

SMS = 132
CASES = [(1, 1, 1), (1, 1, 64), (1, 1, 512), (1, 1, 2048), (4, 1, 2048), (8, 1, 64), (8, 1, 2048), (32, 1, 64),
         (32, 1, 512), (32, 2, 512), (5, 1, 512), (128, 1, 8), (300, 1, 512), (1, 1, 100000)]


@pytest.mark.parametrize("fill", [False, True])
@pytest.mark.parametrize("B, Hkv, pages", CASES)
def test_every_page_in_one_split(B, Hkv, pages, fill):
    split_pages, nsplit = plan.split_plan(B, Hkv, pages, sms=SMS, fill=fill)
    assert split_pages >= 1 and nsplit == plan.cdiv(pages, split_pages)
    assert (nsplit - 1) * split_pages < pages <= nsplit * split_pages   # no split starts past the table
    assert nsplit <= plan.MAX_SPLITS   # the merge reads a row's lse in one tile


@pytest.mark.parametrize("B, Hkv, pages", CASES)
def test_long_contexts_fill_the_gpu(B, Hkv, pages):
    _, nsplit = plan.split_plan(B, Hkv, pages, sms=SMS)
    # At least two programs an SM where the pages allow (rounded up), within MAX_SPLITS a request.
    assert B * Hkv * nsplit >= min(2 * SMS, B * Hkv * pages, B * Hkv * plan.MAX_SPLITS) // 2


@pytest.mark.parametrize("B, Hkv, pages", CASES)
def test_fill_never_past_two_waves_unless_the_batch_is(B, Hkv, pages):
    _, rounded_up = plan.split_plan(B, Hkv, pages, sms=SMS)
    _, nsplit = plan.split_plan(B, Hkv, pages, sms=SMS, fill=True)
    assert nsplit <= rounded_up
    if B * Hkv <= 2 * SMS:
        assert B * Hkv * nsplit <= 2 * SMS
    else:
        assert nsplit == 1


def test_fill_differs_only_where_the_programs_do_not_divide_two_waves():
    # B = 32 at 32768 tokens: 9 splits (288 programs, 24 past the 264 that fit two a SM) rounded up, 8 (256) filled.
    assert plan.split_plan(32, 1, 512, sms=SMS) == (57, 9)
    assert plan.split_plan(32, 1, 512, sms=SMS, fill=True) == (64, 8)
    # B = 8: 264 / 8 = 33 either way.
    assert plan.split_plan(8, 1, 2048, sms=SMS) == plan.split_plan(8, 1, 2048, sms=SMS, fill=True) == (63, 33)
