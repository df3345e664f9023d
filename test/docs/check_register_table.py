#!/usr/bin/env python3
"""docs/benchmarks.md's table of registers per target is what the compiler produces now.

Compiles every kernels-dsl/*.mega for every target with ptxas (megac's report: one row per kernel, variant and
target) and compares each kernel and variant's "registers / spills" on sm_90a, sm_100a and sm_103a with the row
of the table under "## Registers per target". A kernel or variant missing from either side, a differing cell, a
spill anywhere, or a warning of megac's (a tile too wide, a register cap ptxas did not meet) fails, naming them.
Exit 77 (skipped) where megac finds no ptxas (its report says so).
usage: check_register_table.py --megac build/compiler/tools/megac [--doc docs/benchmarks.md] [--kernels DIR]
"""
import argparse
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGETS = ("sm_90a", "sm_100a", "sm_103a")
# kernel, variant (maybe "name (cap N)"), target, estimate, registers, spills
REPORT_ROW = re.compile(r"^(\w+)\s+(\w+(?: \(cap \d+\))?)\s+(sm_\d+a)\s+\d+\s+(\d+)\s+(\d+)\s")
SKIPPED = 77


def compiled(megac, kernels_dir):
    """{(kernel, variant): {target: "regs / spills"}} from megac's report of every file (one call, as build.sh);
    None when megac found no ptxas (its rows end in "no ptxas")."""
    paths = sorted(glob.glob(os.path.join(kernels_dir, "*.mega")))
    out = subprocess.run([megac, *paths, "--target", "all", "--emit", "report"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"megac failed:\n{out.stdout}{out.stderr}")
    if out.stdout.rstrip().endswith("no ptxas"):
        return None
    if "warning:" in out.stderr:
        sys.exit(f"megac warns about the kernels of {kernels_dir}:\n{out.stderr}")
    rows = {}
    for line in out.stdout.splitlines():
        m = REPORT_ROW.match(line)
        if m:
            kernel, variant, target, regs, spills = m.groups()
            rows.setdefault((kernel, variant), {})[target] = f"{regs} / {spills}"
    return rows


def documented(doc):
    """The same mapping, from the table under '## Registers per target'."""
    text = open(doc, encoding="utf-8").read()
    start = text.find("## Registers per target")
    if start < 0:
        sys.exit(f"{doc}: no '## Registers per target' section")
    rows = {}
    for line in text[start:].split("\n## ", 1)[0].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 + len(TARGETS) or cells[0] in ("kernel", "") or set(cells[0]) <= {"-"}:
            continue
        rows[(cells[0], cells[1])] = {t: cells[2 + i].split(" (")[0] for i, t in enumerate(TARGETS)}
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--megac", required=True)
    p.add_argument("--doc", default=os.path.join(ROOT, "docs", "benchmarks.md"))
    p.add_argument("--kernels", default=os.path.join(ROOT, "kernels-dsl"))
    a = p.parse_args()
    got, doc = compiled(a.megac, a.kernels), documented(a.doc)
    if got is None:
        print("megac found no ptxas: skipped")
        return SKIPPED
    if not got:
        sys.exit("megac reported no registers: is ptxas running?")
    problems = []
    for key in sorted(set(got) | set(doc)):
        name = f"{key[0]} / {key[1]}"
        if key not in doc:
            problems.append(f"{name}: compiled, not in the table ({got[key]})")
        elif key not in got:
            problems.append(f"{name}: in the table, not compiled any more")
        elif got[key] != doc[key]:
            cells = [f"{t} {doc[key].get(t)} -> {got[key].get(t)}" for t in TARGETS if doc[key].get(t) != got[key].get(t)]
            problems.append(f"{name}: table -> compiler: " + ", ".join(cells))
        for target, cell in got.get(key, {}).items():
            if not cell.endswith(" / 0"):
                problems.append(f"{name}: spills on {target} ({cell})")
    if problems:
        print(f"{a.doc}: the registers table is out of date (./scripts/build.sh prints the report):")
        print("\n".join("  " + x for x in problems))
        return 1
    print(f"{len(got)} kernels and variants: the table matches on {', '.join(TARGETS)}, no spills")
    return 0


if __name__ == "__main__":
    sys.exit(main())
