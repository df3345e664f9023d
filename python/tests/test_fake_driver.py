"""The Python launch path on a machine without a GPU, on the runtime's stand-in driver.

ctest `python_fake_driver` runs this file with test/unit/runtime/fake_cuda/'s libcuda.so.1 on LD_LIBRARY_PATH and
MEGAC_TEST_REQUIRE_DRIVER set; anywhere else it skips (a real driver shows no launch). The stand-in keeps "device"
memory on the host, runs a kernel named `fill` (out, value, n) on it, and keeps each thread's last launch
(fake_cuda/FakeLaunch.h), so that these tests see what a launch from Python hands the driver: megac.compile's
bundle loaded, arguments bound (torch-free: megac.RawTensor and raw stream handles), refusals before the driver
is touched, the grid, block and stream, and early launch.
"""
import ctypes
import os

import pytest

pytest.importorskip("megac._compiler", reason="megac._compiler not built")
pytest.importorskip("megac._runtime", reason="megac._runtime not built")

import megac  # noqa: E402


class FakeLaunch(ctypes.Structure):
    """test/unit/runtime/fake_cuda/FakeLaunch.h's struct, field for field."""
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared_bytes", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("ex", ctypes.c_bool), ("programmatic", ctypes.c_bool),
                ("function", ctypes.c_char * 64)]


FILL = """
@num_warps(4)
@grid(cdiv(n, 512))
kernel fill(out: *f32[n], value: f32, n: i32) {
    let offs = program_id(0) * 512 + arange(0, 512);
    store(out + offs, zeros(512, f32) + value, offs < n);
}
"""


@pytest.fixture(scope="module")
def fake():
    """The stand-in libcuda.so.1 (the one the runtime opens: the same soname, so the same library)."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.megacFakeLastLaunch.restype = ctypes.POINTER(FakeLaunch)
    except (OSError, AttributeError):
        if os.environ.get("MEGAC_TEST_REQUIRE_DRIVER"):
            pytest.fail("libcuda.so.1 is not the stand-in driver of test/unit/runtime/fake_cuda")
        pytest.skip("runs on the stand-in driver (ctest python_fake_driver)")
    lib.cuMemAlloc_v2.argtypes = [ctypes.POINTER(ctypes.c_uint64), ctypes.c_size_t]
    lib.cuMemFree_v2.argtypes = [ctypes.c_uint64]
    return lib


@pytest.fixture
def buffer(fake):
    """1024 floats of "device" memory (host memory under the stand-in): their address."""
    ptr = ctypes.c_uint64()
    assert fake.cuMemAlloc_v2(ctypes.byref(ptr), 4096) == 0
    yield ptr.value
    fake.cuMemFree_v2(ptr.value)


def last(fake):
    launch = fake.megacFakeLastLaunch().contents
    return {"grid": tuple(launch.grid), "block": tuple(launch.block), "stream": launch.stream or 0,
            "ex": launch.ex, "programmatic": launch.programmatic, "function": launch.function.decode()}


def floats(ptr, n):
    return list((ctypes.c_float * n).from_address(ptr))


def test_a_launch_runs_with_the_manifests_grid(fake, buffer):
    mod = megac.compile(FILL, ptxas=False, cache=False, name="fill").load()
    mod.fill(megac.RawTensor(buffer, "f32", (1000,)), 2.5, stream=0x5A)
    assert floats(buffer, 1000) == [2.5] * 1000
    assert last(fake) == {"grid": (2, 1, 1), "block": (128, 1, 1), "stream": 0x5A, "ex": False,
                          "programmatic": False, "function": "fill"}
    mod.fill(megac.RawTensor(buffer, "f32", (1000,)), -1.0, grid=(1,), stream=0)
    assert floats(buffer, 1000)[:3] == [-1.0] * 3
    assert last(fake)["grid"] == (1, 1, 1) and last(fake)["stream"] == 0


def test_refusals_reach_no_driver(fake, buffer):
    mod = megac.compile(FILL, ptxas=False, cache=False, name="fill").load()
    mod.fill(megac.RawTensor(buffer, "f32", (1024,)), 1.0, grid=(7,), stream=0)
    before = last(fake)
    with pytest.raises(TypeError, match="parameter 'out': expects f32, got f16"):
        mod.fill(megac.RawTensor(buffer, "f16", (1024,)), 1.0, stream=0)
    with pytest.raises(megac._runtime.ArgError, match="parameter 'out': shape \\[1024\\] given, \\[512\\] expected"):
        mod.fill(megac.RawTensor(buffer, "f32", (1024,)), 1.0, n=512, stream=0)
    with pytest.raises(TypeError, match="has no parameter 'm'"):
        mod.fill(megac.RawTensor(buffer, "f32", (1024,)), 1.0, m=3, stream=0)
    assert last(fake) == before


def test_a_launch_past_a_tensor_is_refused(fake, buffer):
    """Without its mask, fill writes whole blocks of 512: the runtime refuses an n that is no multiple of 512
    (the last block would write past the tensor), before the driver, naming the store."""
    unmasked = FILL.replace(", offs < n);", ");")
    assert unmasked != FILL
    mod = megac.compile(unmasked, ptxas=False, cache=False, name="fill").load()
    mod.fill(megac.RawTensor(buffer, "f32", (1024,)), 5.0, stream=0)
    assert floats(buffer, 1024) == [5.0] * 1024
    before = last(fake)
    with pytest.raises(megac._runtime.ArgError,
                       match=r"parameter 'out': the store at fill:6:5 would write element 1023, past its 1000 "
                             r"elements \(shape \[1000\]\) for these arguments \(grid \[2, 1, 1\], n = 1000\)"):
        mod.fill(megac.RawTensor(buffer, "f32", (1000,)), 6.0, stream=0)
    assert last(fake) == before and floats(buffer, 1024) == [5.0] * 1024


def test_a_mask_past_its_tensor_is_refused(fake, buffer):
    """fill whose mask compares with n while its tensor has m elements: a launch with n <= m runs, one with
    n > m is refused before the driver, and the refusal names the mask rather than asking for one."""
    mismatched = FILL.replace("kernel fill(out: *f32[n], value: f32, n: i32)",
                              "kernel fill(out: *f32[m], value: f32, n: i32, m: i32)")
    assert mismatched != FILL
    mod = megac.compile(mismatched, ptxas=False, cache=False, name="fill").load()
    mod.fill(megac.RawTensor(buffer, "f32", (1000,)), 7.0, n=1000, stream=0)
    assert floats(buffer, 1000) == [7.0] * 1000
    before = last(fake)
    with pytest.raises(megac._runtime.ArgError,
                       match=r"parameter 'out': the store at fill:6:5 would write element 1023, past its 1000 "
                             r"elements .*: its mask lets it past the tensor \(a mask that does not match the "
                             r"tensor's shape\)"):
        mod.fill(megac.RawTensor(buffer, "f32", (1000,)), 8.0, n=1024, stream=0)
    assert last(fake) == before and floats(buffer, 1000) == [7.0] * 1000


def test_early_launch_from_python(fake, buffer):
    compiled = megac.compile("@early_launch\n" + FILL, ptxas=False, cache=False, name="fill_early")
    compiled.load().fill(megac.RawTensor(buffer, "f32", (1000,)), 3.0, stream=0x77)
    assert last(fake)["ex"] and last(fake)["programmatic"] and last(fake)["stream"] == 0x77
    assert floats(buffer, 1000) == [3.0] * 1000
    compiled.load(early_launch=False).fill(megac.RawTensor(buffer, "f32", (1000,)), 4.0, stream=0x77)
    assert not last(fake)["ex"]
    assert floats(buffer, 1000) == [4.0] * 1000


def test_variants_chosen_as_on_another_device(fake, buffer):
    """choose_variants_as=(sms, l2_mb): a launch runs the variant a device of those facts would, here or on any
    card (the stand-in's device 0 has an H200's 132 SMs and 60 MiB of L2); facts no device has are refused."""
    compiled = megac.compile("@variant(small_l2, num_warps = 1, when = l2_mb < 55)\n" + FILL, ptxas=False,
                             cache=False, name="fill_l2")
    for facts, function, block in ((None, "fill", 128), ((132, 50), "fill__small_l2", 32),
                                   ((132, 60), "fill", 128)):
        compiled.load(choose_variants_as=facts).fill(megac.RawTensor(buffer, "f32", (1000,)), 5.0, stream=0)
        assert (last(fake)["function"], last(fake)["block"][0]) == (function, block), facts
    with pytest.raises(megac._runtime.ArgError, match=r"module 'fill_l2': variants chosen as on a device of "
                                                      r"sms = 0, l2_mb = 60: no such device"):
        compiled.load(choose_variants_as=(0, 60))
    for bad in ((132,), (132, 60.0), 132):
        with pytest.raises(TypeError, match=r"takes \(sms, l2_mb\), two integers"):
            compiled.load(choose_variants_as=bad)
