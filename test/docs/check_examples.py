#!/usr/bin/env python3
"""Compiles every example of docs/language.md with megac.

* a ```mega block must compile to PTX (sm_90a, --no-ptxas --emit ptx: every stage but ptxas);
* a ```mega-error block must be rejected: exit status 1 and 'error:' in the
  output;
* a block whose first line is `// file: NAME.mega` is also written under NAME
  next to the others, so that an example can import it;
* fewer than --min-blocks blocks is a failure (the doc or the fence syntax
  changed and the test would otherwise pass on nothing).
Failures name the block's line in the doc and show megac's message.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\S*)\s*$")
FILE_TAG = re.compile(r"^//\s*file:\s*(\S+\.mega)\s*$")


def extract(doc):
    """Yields (kind, first line number of the code, text) for mega blocks."""
    blocks = []
    lines = open(doc, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i + 1
        j = start
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if j == len(lines):
            sys.exit(f"{doc}:{i + 1}: unterminated code block")
        if lang in ("mega", "mega-error"):
            blocks.append((lang, start + 1, "\n".join(lines[start:j]) + "\n"))
        i = j + 1
    return blocks


def to_doc_lines(output, path, doc, first_line):
    """Rewrites `example.mega:L:C:` locations to the line in the doc."""
    name = re.escape(path)
    return re.sub(name + r":(\d+):",
                  lambda m: f"{doc}:{first_line + int(m.group(1)) - 1}:", output)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--megac", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--target", default="sm_90a")
    ap.add_argument("--min-blocks", type=int, default=20)
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print the first error of each mega-error block")
    args = ap.parse_args()

    blocks = extract(args.doc)
    failures = []
    with tempfile.TemporaryDirectory(prefix="megac-docs-") as tmp:
        paths = []
        for n, (kind, line, text) in enumerate(blocks):
            first = text.split("\n", 1)[0].strip()
            tag = FILE_TAG.match(first)
            name = tag.group(1) if tag else f"example_{line}.mega"
            path = os.path.join(tmp, name)
            if os.path.exists(path):
                sys.exit(f"{args.doc}:{line}: a second block names {name}")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            paths.append(path)
        for (kind, line, text), path in zip(blocks, paths):
            cmd = [args.megac, path, "--target", args.target, "--no-ptxas",
                   "--emit", "ptx"]
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, timeout=120)
            r.stdout = to_doc_lines(r.stdout, path, args.doc, line)
            if kind == "mega" and r.returncode != 0:
                failures.append(f"{args.doc}:{line}: example does not compile "
                                f"(exit {r.returncode}):\n{r.stdout}")
            elif kind == "mega-error" and (r.returncode != 1 or "error:" not in r.stdout):
                failures.append(f"{args.doc}:{line}: error example was not rejected "
                                f"with 'error:' (exit {r.returncode}):\n{r.stdout[-2000:]}")
            elif kind == "mega-error" and args.verbose:
                first = next(l for l in r.stdout.splitlines() if "error:" in l)
                print(f"{args.doc}:{line}: rejected: {first}")
    n_ok = sum(1 for b in blocks if b[0] == "mega")
    n_err = len(blocks) - n_ok
    for f in failures:
        print("FAIL " + f)
    print(f"{len(blocks)} blocks ({n_ok} mega, {n_err} mega-error), "
          f"{len(failures)} failed")
    if len(blocks) < args.min_blocks:
        print(f"FAIL: found {len(blocks)} blocks, expected at least {args.min_blocks}")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
