#!/usr/bin/env python3
"""A megac switch that must not change what megac prints: every kernel of kernels-dsl/ and test/gpu/, on every
target, compiled as megac is built (its pass-skip lists included) and with the environment variable given; exit 1
if any output differs. Run by ctest:
  own_libdevice_identity   MEGAC_OWN_LIBDEVICE=none: megac's own copies of libdevice functions
                           (compiler/codegen/LibdeviceInHouse.cpp) print the PTX that linking them from
                           libdevice.10.bc prints
  direct_to_llvm_identity  MEGAC_DIRECT_TO_LLVM=none --emit llvm ptx --plain MEGAC_DIRECT_TO_LLVM=check: the
                           one-walk rewrites of scf into cf (compiler/conversion/StructuredToCF.h) and of arith,
                           math and cf into the LLVM dialect (compiler/conversion/DirectToLLVM.h) give the LLVM
                           dialect, and so the PTX, that MLIR's SCF-to-ControlFlow pass and dialect conversion
                           give; and the plain compiles, in check mode, also translate each module with MLIR and
                           fail where megac's translation into LLVM IR (compiler/codegen/DirectTranslation.h)
                           prints differently
  usage: scripts/check_identity.py VAR=VALUE [--emit ptx] [--emit llvm] [--plain VAR=VALUE]
                                   [--megac build/compiler/tools/megac] [--jobs N]
  --plain: a variable for the plain compiles too, one that must not change their output (a check mode)
"""
import argparse
import concurrent.futures
import os
import sys

from find_pass_skips import AS_BUILT, ROOT, TARGETS, all_ptx, differing


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("switch", help="VAR=VALUE, the environment of the compiles compared with the plain ones")
    p.add_argument("--emit", action="append", choices=("ptx", "llvm"),
                   help="what to compare (repeatable; default ptx): llvm is the LLVM dialect after the lowering")
    p.add_argument("--plain", action="append", default=[],
                   help="VAR=VALUE for the plain compiles as well (repeatable): a check mode that must not change "
                        "what megac prints")
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = p.parse_args()
    var, _, value = a.switch.partition("=")
    plain_env = {**AS_BUILT, **dict(v.partition("=")[::2] for v in a.plain)}
    bad = failed = 0
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        for emit in a.emit or ["ptx"]:
            plain = all_ptx(a.megac, TARGETS, None, pool, extra_env=plain_env, emit=emit)
            switched = all_ptx(a.megac, TARGETS, None, pool, extra_env={**plain_env, var: value}, emit=emit)
            for (src, target), text in list(plain.items()) + list(switched.items()):
                if text.startswith("megac failed"):
                    failed += 1
                    print(f"megac failed on {os.path.relpath(src, ROOT)} ({target}): {text}")
            differ = differing(plain, switched)
            for name in differ:
                print(f"{emit} differs with {a.switch}: {name}")
            bad += len(differ)
            print(f"{len(plain)} {emit} outputs compared (as built, and with {a.switch}): "
                  f"{'identical' if not differ else str(len(differ)) + ' differ'}")
    return 1 if bad or failed else 0


if __name__ == "__main__":
    sys.exit(main())
