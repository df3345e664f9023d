#!/usr/bin/env python3
"""Every file of this repository that README.md, docs/*.md, fuzz/README.md and kernels-dsl/*.mega (in their
comments) name exists.

The docs cite their evidence by path (`results/checks_1435232.md`, `bench/cuda/early_launch_steps.cu`, ...), and
they are edited by hand after each GPU run: a path mistyped, or a file renamed or never committed, would leave a
claim pointing at nothing. The kernels' comments cite the measurements behind each choice the same way. A path
here is a word starting with one of the repository's top-level folders and a slash, not preceded by another path's
characters (so `build/compiler/tools/megac`, a build output, is not read as `compiler/tools/megac`) and not followed
by `<`, `*` or `{` (a pattern: `results/bench_<sha>.json`).
Exit 1 naming each missing path with its file and line; 0 when all exist.
usage: check_paths.py [--root DIR] [FILE ...]
  (default: README.md, docs/*.md, fuzz/README.md and kernels-dsl/*.mega under the root)
"""
import argparse
import glob
import os
import re
import sys

FOLDERS = ("results", "bench", "scripts", "test", "python", "compiler", "dialects", "runtime", "kernels-dsl", "fuzz",
           "docs", r"\.ci")
PATH = re.compile(r"(?<![\w./$-])((?:%s)/[\w./-]*\w)" % "|".join(FOLDERS))
PATTERN_MARKS = "<*{"


def cited_paths(text):
    """(line number, path) of every repository path the text names, patterns left out."""
    for number, line in enumerate(text.splitlines(), 1):
        for match in PATH.finditer(line):
            after = line[match.end(1):match.end(1) + 1]
            if after and after in PATTERN_MARKS:
                continue
            yield number, match.group(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    def under(folder, pattern):
        return sorted(os.path.relpath(p, args.root) for p in glob.glob(os.path.join(args.root, folder, pattern)))
    files = args.files or (["README.md"] + under("docs", "*.md") + ["fuzz/README.md"]
                           + under("kernels-dsl", "*.mega"))
    missing, cited = [], 0
    for name in files:
        with open(os.path.join(args.root, name), encoding="utf-8") as f:
            for number, path in cited_paths(f.read()):
                cited += 1
                if not os.path.exists(os.path.join(args.root, path)):
                    missing.append(f"{name}:{number}: {path} does not exist")
    for line in missing:
        print(line)
    print(f"{cited} paths cited in {len(files)} files, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
