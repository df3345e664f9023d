"""The access bounds megac writes into a bundle (docs/runtime.md, Bounds) against brute force.

Random kernels store through offsets affine in the program ids, two tile indices and a loop counter, with
scalar parameters, their products and quotients as coefficients. For each, the offsets every CTA, element and
trip reaches are enumerated here, and the runtime (Signature.prepare, no GPU) must accept a tensor that holds
exactly the highest offset reached and refuse one element fewer, or refuse any tensor when an offset is
negative: the bounds must be exact, never wider and never narrower. Needs the compiler (no ptxas, no GPU).
"""
import random

import pytest

import megac

pytest.importorskip("megac._compiler", reason="megac._compiler not built (needs the compiler)")

ROWS, COLS = 16, 8


def c_div(x, y):
    """Truncating division, as the kernels and the runtime divide."""
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def c_mod(x, y):
    return x - y * c_div(x, y)


# Scalar coefficients: (source text, value from the launch's scalars a, b).
COEFFICIENTS = [
    ("1", lambda a, b: 1), ("3", lambda a, b: 3), ("-2", lambda a, b: -2), ("a", lambda a, b: a),
    ("b", lambda a, b: b), ("(a * b)", lambda a, b: a * b), ("(a / 2)", lambda a, b: c_div(a, 2)),
    ("(b % 3)", lambda a, b: c_mod(b, 3)), ("(a - b + 4)", lambda a, b: a - b + 4),
]
# What a term varies with: (source text, key of the value in an enumerated point).
ATOMS = [("program_id(0)", "p0"), ("program_id(1)", "p1"), ("rows", "r0"), ("cols", "r1"), ("i", "i")]


def random_case(rng, index):
    """One kernel's source and a function of (a, b, g) giving the offsets it reaches (None: none)."""
    grid = [rng.choice(["1", "2", "3", "g"]), rng.choice(["1", "2", "g"])]
    loop = rng.random() < 0.5
    bounds = (rng.choice(["0", "1", "a", "b + 2"]), rng.choice(["3", "a", "b + 4"]), rng.choice([1, 2, 3]))
    terms = []
    for _ in range(rng.randint(1, 4)):
        atom = rng.choice(ATOMS if loop else ATOMS[:4])
        terms.append((rng.choice(COEFFICIENTS), atom))
    constant = rng.randint(-4, 8)
    offset = " + ".join(f"{c[0]} * {atom[0]}" for c, atom in terms) + f" + {constant}"
    store = f"store(x + ({offset}), 1.0);"
    body = f"for i in range({bounds[0]}, {bounds[1]}, {bounds[2]}) {{ {store} }}" if loop else store
    source = f"""
@grid({grid[0]}, {grid[1]})
kernel k{index}(x: *f32[n], a: i32, b: i32, g: i32, n: i32) {{
    let rows = arange(0, {ROWS})[:, None];
    let cols = arange(0, {COLS})[None, :];
    {body}
}}
"""

    def reached(a, b, g):
        env = {"a": a, "b": b, "g": g}
        grid_value = [eval(d, {}, env) for d in grid]
        if loop:
            lo, hi = (eval(e, {}, env) for e in bounds[:2])
            trips = list(range(lo, hi, bounds[2]))
        else:
            trips = [0]
        offsets = set()
        tile = any(atom[1] in ("r0", "r1") for _, atom in terms)
        for p0 in range(grid_value[0]):
            for p1 in range(grid_value[1]):
                for i in trips:
                    for r0 in range(ROWS if tile else 1):
                        for r1 in range(COLS if tile else 1):
                            point = {"p0": p0, "p1": p1, "r0": r0, "r1": r1, "i": i}
                            offsets.add(sum(c[1](a, b) * point[atom[1]] for c, atom in terms) + constant)
        return (min(offsets), max(offsets)) if offsets else None

    return source, reached


def compile_cases(sources, name, prefix):
    """The kernels `prefix`0, `prefix`1, ... of `sources`, loaded, after checking that megac bounded each (every
    access of these tests can be bounded exactly: else the test would say nothing)."""
    compiled = megac.compile("\n".join(sources), ptxas=False, cache=False, name=name)
    bounded = {k["name"]: bool(k["variants"][0].get("bounds")) for k in compiled.manifest["kernels"]}
    for i, source in enumerate(sources):
        assert bounded[f"{prefix}{i}"], source
    module = compiled.load()
    return [getattr(module, f"{prefix}{i}") for i in range(len(sources))]


def refused(kernel, n, *scalars):
    """Whether the runtime refuses the launch with a tensor of n elements, for the bounds."""
    x = megac.RawTensor(0x10000, "f32", (n,))
    try:
        kernel.prepare(x, *scalars, n)
    except megac._runtime.ArgError as e:
        assert "would" in str(e), str(e)
        return True
    return False


def check_exact(kernel, span, scalars, what):
    """The runtime's verdicts at the edge of `span`, the offsets (lowest, highest) the launch reaches (None: none):
    it accepts a tensor that holds exactly the highest and refuses one element fewer, refuses any when an offset is
    negative, and accepts an empty tensor when nothing is reached. Returns which case it was."""
    if span is None:
        assert not refused(kernel, 0, *scalars), what
        return "empty"
    lo, hi = span
    if lo < 0:
        assert refused(kernel, max(hi + 1, 64), *scalars), (what, span)
        return "negative"
    assert not refused(kernel, hi + 1, *scalars), (what, span)
    assert refused(kernel, hi, *scalars), (what, span)
    return "exact"


@pytest.mark.parametrize("seed", [20261203, 1, 2, 3])
def test_bounds_are_exact(seed):
    rng = random.Random(seed)
    cases = [random_case(rng, i) for i in range(48)]
    kernels = compile_cases([source for source, _ in cases], f"bounds{seed}", "k")
    seen = []
    for kernel, (source, reached) in zip(kernels, cases):
        for a, b, g in [(rng.randint(-3, 6), rng.randint(-3, 6), rng.randint(1, 3)) for _ in range(4)]:
            seen.append(check_exact(kernel, reached(a, b, g), (a, b, g), (source, a, b, g)))
    assert seen.count("exact") > 60


# Masked accesses: an index along the rows (program id and tile) and one along the columns (tile, or a loop's
# counter plus the tile), each bounded by a random conjunction of comparisons with scalars, scaled by a random
# coefficient into the offset.
# A comparison of the 2-D index, or of the 1-D one expanded after it (r1, c1: `(c1 < m1)[None, :]`).
ROW_MASKS = [("r < m0", lambda v, e: v < e["m0"]), ("r <= m0", lambda v, e: v <= e["m0"]),
             ("r >= s1", lambda v, e: v >= e["s1"]), ("(r1 < m0)[:, None]", lambda v, e: v < e["m0"]),
             ("(r1 >= s1)[:, None]", lambda v, e: v >= e["s1"])]
COL_MASKS = [("c < m1", lambda v, e: v < e["m1"]), ("c >= s1", lambda v, e: v >= e["s1"]),
             ("c > s1", lambda v, e: v > e["s1"]), ("c <= m0", lambda v, e: v <= e["m0"]),
             ("(c1 < m1)[None, :]", lambda v, e: v < e["m1"]), ("(c1 > s1)[None, :]", lambda v, e: v > e["s1"])]
SCALAR_MASKS = [("a > 0", lambda e: e["a"] > 0), ("b <= 3", lambda e: e["b"] <= 3)]


def random_masked_case(rng, index):
    """A masked store's kernel source and a function of the scalars giving the offsets it reaches."""
    rows = rng.choice([1, 4, 8])
    cols = rng.choice([4, 8])
    loop = rng.random() < 0.5
    step = rng.choice([1, 2, 4])
    start, stop = rng.choice(["0", "1", "a"]), rng.choice(["8", "b + 9"])
    k_row, k_col = rng.choice(COEFFICIENTS), rng.choice(COEFFICIENTS)
    masks = rng.sample(ROW_MASKS, rng.randint(0, 2)) + rng.sample(COL_MASKS, rng.randint(0, 2))
    scalar = rng.sample(SCALAR_MASKS, rng.randint(0, 1))
    if not masks and not scalar:
        masks = [rng.choice(ROW_MASKS + COL_MASKS)]
    constant = rng.randint(-4, 8)
    mask = " && ".join([m[0] for m in masks] + [m[0] for m in scalar])
    store = f"let c1 = i + arange(0, {cols}); let c = c1[None, :]; " if loop else ""
    store += f"store(x + ({k_row[0]} * r + {k_col[0]} * c + {constant}), 1.0, {mask});"
    body = f"for i in range({start}, {stop}, {step}) {{ {store} }}" if loop else store
    source = f"""
@grid(g)
kernel m{index}(x: *f32[n], a: i32, b: i32, g: i32, m0: i32, m1: i32, s1: i32, n: i32) {{
    let r1 = program_id(0) * {rows} + arange(0, {rows});
    let r = r1[:, None];
    {"" if loop else f"let c1 = arange(0, {cols}); let c = c1[None, :];"}
    {body}
}}
"""

    def reached(env):
        a, b = env["a"], env["b"]
        if not all(m[1](env) for m in scalar):
            return None
        trips = list(range(eval(start, {}, env), eval(stop, {}, env), step)) if loop else [0]
        offsets = set()
        for p in range(env["g"]):
            for t in range(rows):
                r = p * rows + t
                for i in trips:
                    for j in range(cols):
                        c = i + j
                        if all(m[1](r, env) for m in masks if m in ROW_MASKS) and \
                                all(m[1](c, env) for m in masks if m in COL_MASKS):
                            offsets.add(k_row[1](a, b) * r + k_col[1](a, b) * c + constant)
        return (min(offsets), max(offsets)) if offsets else None

    return source, reached


@pytest.mark.parametrize("seed", [20261204, 5, 6])
def test_masked_bounds_are_exact(seed):
    rng = random.Random(seed)
    cases = [random_masked_case(rng, i) for i in range(48)]
    kernels = compile_cases([source for source, _ in cases], f"masked{seed}", "m")
    seen = []
    for kernel, (source, reached) in zip(kernels, cases):
        for _ in range(8):
            env = {"a": rng.randint(-3, 6), "b": rng.randint(-3, 6), "g": rng.randint(1, 3),
                   "m0": rng.randint(-1, 20), "m1": rng.randint(0, 12), "s1": rng.randint(-3, 6)}
            scalars = [env[k] for k in ("a", "b", "g", "m0", "m1", "s1")]
            seen.append(check_exact(kernel, reached(env), scalars, (source, env)))
    assert seen.count("exact") > 80 and seen.count("empty") > 5, seen


# A program id read as rows of d programs: its quotient and remainder by d (a constant or a scalar), alone or
# both, with random coefficients, beside a tile index and the other program id. Grids of any size: the last row
# of programs may be partial.
DIVISORS = [("2", lambda a, b: 2), ("3", lambda a, b: 3), ("a", lambda a, b: a), ("(b + 4)", lambda a, b: b + 4)]


SUBDIVISORS = [("2", lambda a, b: 2), ("(a + 1)", lambda a, b: a + 1)]


def random_quotient_case(rng, index):
    divisor, subdivisor = rng.choice(DIVISORS), rng.choice(SUBDIVISORS)
    # q: the quotient, r: the remainder, rq: the remainder's quotient by the subdivisor
    parts = rng.choice([("q",), ("r",), ("q", "r"), ("q", "r"), ("rq",), ("q", "rq")])
    terms = [(rng.choice(COEFFICIENTS), part) for part in parts]
    terms += [(rng.choice(COEFFICIENTS), extra) for extra in rng.sample(["rows", "p1"], rng.randint(0, 2))]
    constant = rng.randint(-4, 8)
    text = {"q": f"(program_id(0) / {divisor[0]})", "r": f"(program_id(0) % {divisor[0]})", "rows": "rows",
            "p1": "program_id(1)", "rq": f"(program_id(0) % {divisor[0]} / {subdivisor[0]})"}
    offset = " + ".join(f"{c[0]} * {text[part]}" for c, part in terms) + f" + {constant}"
    source = f"""
@grid(g, 2)
kernel q{index}(x: *f32[n], a: i32, b: i32, g: i32, n: i32) {{
    let rows = arange(0, {ROWS})[:, None];
    store(x + ({offset}), 1.0);
}}
"""

    def reached(a, b, g):
        d, e = divisor[1](a, b), subdivisor[1](a, b)
        offsets = set()
        for p0 in range(g):
            for p1 in range(2):
                for row in range(ROWS):
                    point = {"q": c_div(p0, d), "r": c_mod(p0, d), "rows": row, "p1": p1,
                             "rq": c_div(c_mod(p0, d), e) if "rq" in parts else 0}
                    offsets.add(sum(c[1](a, b) * point[part] for c, part in terms) + constant)
        return min(offsets), max(offsets)

    return source, reached, lambda a, b: min(divisor[1](a, b), subdivisor[1](a, b) if "rq" in parts else 1)


@pytest.mark.parametrize("seed", [20261205, 7, 8])
def test_quotient_bounds_are_exact(seed):
    rng = random.Random(seed)
    cases = [random_quotient_case(rng, i) for i in range(48)]
    kernels = compile_cases([source for source, _, _ in cases], f"quotient{seed}", "q")
    seen = []
    for kernel, (source, reached, divisor) in zip(kernels, cases):
        for _ in range(8):
            a, b, g = rng.randint(-2, 6), rng.randint(-5, 6), rng.randint(1, 14)
            if divisor(a, b) <= 0:  # the kernel divides by zero or a negative: the bound does not apply
                assert not refused(kernel, 1 << 20, a, b, g), source
                continue
            seen.append(check_exact(kernel, reached(a, b, g), (a, b, g), (source, a, b, g)))
    assert seen.count("exact") > 80, seen
