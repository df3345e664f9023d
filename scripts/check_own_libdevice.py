#!/usr/bin/env python3
"""megac's own copies of libdevice functions (compiler/codegen/LibdeviceInHouse.cpp) print the PTX that linking
them from libdevice prints: every kernel of kernels-dsl/ and test/gpu/, on every target, compiled as it is and
with MEGAC_OWN_LIBDEVICE=none (every libdevice function linked from libdevice.10.bc); exit 1 if any PTX differs.
Run by ctest as own_libdevice_identity.
  usage: scripts/check_own_libdevice.py [--megac build/compiler/tools/megac] [--jobs N]
"""
import argparse
import concurrent.futures
import os
import sys

from find_pass_skips import ROOT, TARGETS, all_ptx, differing


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = p.parse_args()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        own = all_ptx(a.megac, TARGETS, None, pool)
        linked = all_ptx(a.megac, TARGETS, None, pool, extra_env={"MEGAC_OWN_LIBDEVICE": "none"})
    failed = [k for k, text in own.items() if text.startswith("megac failed")]
    for src, target in failed:
        print(f"megac failed on {os.path.relpath(src, ROOT)} ({target}): {own[(src, target)]}")
    bad = differing(own, linked)
    for name in bad:
        print(f"PTX differs from libdevice's: {name}")
    print(f"{len(own)} PTX images compared (megac's own libdevice functions against libdevice's): "
          f"{'identical' if not bad else str(len(bad)) + ' differ'}")
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
