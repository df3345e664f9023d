"""Launch expressions mean the same to the compiler and to the runtime, at random.

A kernel's grid, shapes and variant conditions are written in the language, printed into the manifest by megac,
and parsed and evaluated by the runtime at every launch: a printer that dropped a needed parenthesis, or a runtime
that read an operator otherwise, would launch the wrong grid or variant without a word. This draws expressions
(integers and conditions over scalar parameters, `ctas`, `sms` and `early`), compiles each into a kernel's grid,
shape and `when`, and checks `Kernel.prepare` at random arguments against a plain evaluation of the expression as
written: 64-bit integers, `/` and `%` truncating as in C, `cdiv` rounding up, `&&` and `||` short-circuiting, a
division by zero or an overflow refused. Needs both extensions, no GPU.
"""
import random

import pytest

pytest.importorskip("megac._compiler", reason="megac._compiler not built")
rt = pytest.importorskip("megac._runtime", reason="megac._runtime not built")

import megac  # noqa: E402

INT64_MAX = (1 << 63) - 1
SMS = 132


class Refused(Exception):
    """The expression fails to evaluate: the runtime must refuse the launch."""


def _check(v):
    if not -INT64_MAX - 1 <= v <= INT64_MAX:
        raise Refused("overflow")
    return v


def _div(a, b, op):
    if b == 0:
        raise Refused("division by zero")
    q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # truncated, as in C
    if op == "/":
        return _check(q)
    if op == "%":
        return a - b * q
    return _check(-((-a) // b))  # cdiv: rounded up


# Binding strength in the language (C's): the loosest first.
LEVELS = [("||",), ("&&",), ("==", "!="), ("<", "<=", ">", ">="), ("+", "-"), ("*", "/", "%")]
PREC = {op: i for i, ops in enumerate(LEVELS) for op in ops}


class Gen:
    """Random expressions as (text, tree); an i32 family (a, b) and an i64 one (c, ctas, sms), which the
    language does not mix without a cast."""

    def __init__(self, rng, when):
        self.rng = rng
        self.when = when  # ctas, sms and early exist only in a variant's condition

    def names(self, family):
        if family == "i32":
            return ["a", "b"]
        return ["c", "ctas", "sms"] if self.when else ["c"]

    def integer(self, family, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            if r.random() < 0.6:
                return ("name", r.choice(self.names(family)))
            return ("lit", r.choice([0, 1, 2, 3, 7, 16, 100, 1024, 65535, 1 << 30]))
        kind = r.random()
        if kind < 0.55:
            op = r.choice(["+", "-", "*", "/", "%"])
            lhs = self.integer(family, depth - 1)
            # A divisor is a positive literal or names something: a constant zero is a compile error.
            rhs = (("lit", r.randint(1, 9)) if op in "/%" and r.random() < 0.5 else self.named(family, depth - 1))
            return ("bin", op, lhs, rhs)
        if kind < 0.7:
            return ("neg", self.integer(family, depth - 1))
        fn = r.choice(["cdiv", "min", "max"])
        rhs = ("lit", r.randint(1, 9)) if fn == "cdiv" and r.random() < 0.5 else self.named(family, depth - 1)
        return ("call", fn, self.integer(family, depth - 1), rhs)

    def named(self, family, depth):
        e = self.integer(family, depth)
        return e if _has_name(e) else ("bin", "+", e, ("name", self.names(family)[0]))

    def condition(self, depth):
        r = self.rng
        kind = r.random()
        if depth <= 0 or kind < 0.5:
            if self.when and r.random() < 0.1:
                return ("name", "early")
            if r.random() < 0.05:
                return ("bool", r.random() < 0.5)
            family = r.choice(["i32", "i64"])
            op = r.choice(["==", "!=", "<", "<=", ">", ">="])
            return ("bin", op, self.integer(family, depth - 1), self.integer(family, depth - 1))
        if kind < 0.8:
            return ("bin", r.choice(["&&", "||"]), self.condition(depth - 1), self.condition(depth - 1))
        if kind < 0.9:
            return ("not", self.condition(depth - 1))
        # two conditions compared: the parentheses the runtime's grammar needs
        return ("bin", r.choice(["==", "!="]), self.condition(depth - 1), self.condition(depth - 1))


def _has_name(e):
    return e[0] == "name" or any(_has_name(x) for x in e[1:] if isinstance(x, tuple))


def render(e, full):
    """The source text: with every parenthesis (full) or only those the language's precedence needs."""
    kind = e[0]
    if kind == "name":
        return e[1]
    if kind == "lit":
        return str(e[1])
    if kind == "bool":
        return "true" if e[1] else "false"
    if kind in ("neg", "not"):
        inner = render(e[1], full)
        if full or e[1][0] not in ("name", "lit", "bool", "call"):
            inner = f"({inner})"
        return ("-" if kind == "neg" else "!") + inner
    if kind == "call":
        return f"{e[1]}({render(e[2], full)}, {render(e[3], full)})"
    op, lhs, rhs = e[1], e[2], e[3]
    p = PREC[op]

    def side(x, right):
        text = render(x, full)
        if x[0] != "bin":
            return f"({text})" if full else text
        q = PREC[x[1]]
        need = q < p or (right and q == p) or (q == p and p in (2, 3))  # comparisons do not chain
        return f"({text})" if full or need else text

    return f"{side(lhs, False)} {op} {side(rhs, True)}"


def evaluate(e, env):
    kind = e[0]
    if kind == "name":
        return env[e[1]]
    if kind in ("lit", "bool"):
        return int(e[1])
    if kind == "neg":
        return _check(-evaluate(e[1], env))
    if kind == "not":
        return int(evaluate(e[1], env) == 0)
    if kind == "call":
        a, b = evaluate(e[2], env), evaluate(e[3], env)
        return _div(a, b, "cdiv") if e[1] == "cdiv" else (min(a, b) if e[1] == "min" else max(a, b))
    op = e[1]
    if op == "&&":
        return int(evaluate(e[2], env) != 0 and evaluate(e[3], env) != 0)
    if op == "||":
        return int(evaluate(e[2], env) != 0 or evaluate(e[3], env) != 0)
    a, b = evaluate(e[2], env), evaluate(e[3], env)
    if op in ("/", "%"):
        return _div(a, b, op)
    if op in PREC and PREC[op] in (2, 3):
        return int({"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op])
    return _check({"+": a + b, "-": a - b, "*": a * b}[op])


def _draw_env(rng):
    def i32():
        return rng.choice([rng.randint(-20, 20), rng.randint(0, 5000), (1 << 31) - 1, -(1 << 31), 0, 1])

    return {"a": i32(), "b": i32(), "c": rng.choice([rng.randint(-50, 50), 1 << 40, -(1 << 40), 3])}


def _value(what, expr, env):
    try:
        return evaluate(expr, env), None
    except Refused as e:
        return None, ("refused", f"{what}: {e}")


def _expected(grid, shape, when, env):
    """What prepare() must do: ("refused", why) or ("ok", grid, variant)."""
    g, refused = _value("grid", grid, env)
    if refused:
        return refused
    env = dict(env, ctas=g, sms=SMS, early=1)
    s, refused = _value("shape", shape, env)
    if refused:
        return refused
    if not 0 <= s <= (1 << 31) - 1:
        return ("refused", "negative shape, or past 32-bit offsets")
    holds, refused = _value("when", when, env)
    if refused:
        return refused
    if not 0 <= g <= (1 << 31) - 1:
        return ("refused", "grid out of range")
    return ("ok", g, "v" if holds else "default")


# The store's mask skips values (2 * i), so megac writes no access bound for it: this test is about the grid,
# shape and variant expressions; test_access_bounds.py is about the bounds.
KERNEL = """@num_warps(1)
@grid({grid})
@variant(v, when = {when})
kernel k(x: *i32[{shape}], a: i32, b: i32, c: i64) {{
    store(x + arange(0, 16), zeros(16, i32), arange(0, 16) * 2 < a);
}}
"""


@pytest.mark.parametrize("seed", range(6))
def test_compiler_and_runtime_agree(seed):
    rng = random.Random(seed)
    compiled = launches = 0
    for _ in range(40):
        grid = Gen(rng, when=False).integer(rng.choice(["i32", "i64"]), 3)
        shape = Gen(rng, when=False).integer("i32", 2)
        when = Gen(rng, when=True).condition(3)
        full = rng.random() < 0.5
        source = KERNEL.format(grid=render(grid, full), shape=render(shape, full), when=render(when, full))
        try:
            module = megac.compile(source, ptxas=False, cache=False).load()
        except megac.MegacError as e:
            # Only a constant that overflows is refused at compile time.
            assert "overflow in constant expression" in str(e), source + str(e)
            continue
        compiled += 1
        manifest = module.manifest["kernels"][0]
        for _ in range(25):
            env = _draw_env(rng)
            want = _expected(grid, shape, when, env)
            # the shape of x as the caller gives it: what the expression says, where it says something
            try:
                n = max(evaluate(shape, dict(env, ctas=0, sms=SMS, early=1)), 0)
            except Refused:
                n = 0
            x = megac.RawTensor(0x10000, "i32", (n,))
            try:
                got = module.k.prepare(x, env["a"], env["b"], env["c"], sms=SMS)
            except rt.ArgError as e:
                assert want[0] == "refused", (f"refused, expected {want}: {e}\n{source}manifest: "
                                              f"{manifest['grid']} {manifest['params'][0]['shape']} "
                                              f"{manifest['variants'][0]['when']}\nenv {env}")
                continue
            assert want[0] == "ok" and (got["grid"][0], got["variant"]) == want[1:], (
                f"got grid {got['grid']} variant {got['variant']}, expected {want}\n{source}manifest: "
                f"{manifest['grid']} {manifest['params'][0]['shape']} {manifest['variants'][0]['when']}\n"
                f"env {env}")
            launches += 1
    assert compiled >= 30 and launches >= 100, (compiled, launches)
