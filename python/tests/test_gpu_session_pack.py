"""scripts/gpu-session.sh packs what each part wrote after each stage and when `timeout` stops it, so that a part
cut short on the GPU machine still brings back the stages it ran (and never a stale one from an earlier run).
Run here on stand-in stages: the script is copied into a scratch tree whose stages only write a line (the one a
test stops then waits): for part 1 scripts/gpu-check.sh and scripts/gpu-final.sh; for part 2 a portable megac,
scripts/compile_times.py and scripts/gpu-bench.sh, with build-gpu/ present so that no runtime is built."""
import gzip
import os
import shutil
import subprocess
import tarfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu-session.sh")


WAIT = 'exec python3 -c "import time; time.sleep(60)"\n'


def scratch_tree(root, last_stage_waits):
    scripts = root / "scripts"
    scripts.mkdir()
    shutil.copy(SCRIPT, scripts / "gpu-session.sh")
    wait = WAIT if last_stage_waits else ""
    (scripts / "gpu-check.sh").write_text('#!/usr/bin/env bash\nmkdir -p "$OUT"\n'
                                          'echo check ran > "$OUT/check.log"\n')
    (scripts / "gpu-final.sh").write_text('#!/usr/bin/env bash\nmkdir -p "$OUT"; echo final started\n' + wait)
    (scripts / "gpu-bench.sh").write_text('#!/usr/bin/env bash\nmkdir -p "$OUT"; echo "{}" > "$OUT/bench.json"\n'
                                          'echo bench started\n' + wait)
    (scripts / "compile_times.py").write_text('print(\'{"gdn_core": 1.0}\')\n')
    for path in scripts.iterdir():
        path.chmod(0o755)
    (root / "test" / "gpu").mkdir(parents=True)
    (root / "test" / "gpu" / "run_qwen35_slots.py").write_text("print('kernel-path failures: 0')\n")
    (root / "build-gpu").mkdir()
    (root / "out" / "portable").mkdir(parents=True)
    with gzip.open(root / "out" / "portable" / "megac.gz", "wb") as megac:
        megac.write(b"#!/bin/sh\n")
    # What an earlier run of each part on the same machine left: it must not be packed as this run's.
    session = root / "out" / "session"
    (session / "slots").mkdir(parents=True)
    (session / "slots.txt").write_text("stale\n")
    (session / "bench").mkdir()
    (session / "bench" / "stale.json").write_text("{}\n")
    out = root / "outdir"
    out.mkdir()
    return out


def names(tarball):
    with tarfile.open(tarball) as tar:
        return {name.lstrip("./") for name in tar.getnames()} - {""}


def run_part(part, root, stopped):
    """Runs part `part` in a scratch tree under `root`, stopped by `timeout` in its last stage or left to finish;
    checks how it ended and returns its tarball and the names in it."""
    out = scratch_tree(root, last_stage_waits=stopped)
    env = dict(os.environ, OUT=str(out))
    env.pop("MEGAC_CARD", None)
    result = subprocess.run(["timeout", "5" if stopped else "120", str(root / "scripts" / "gpu-session.sh"),
                             str(part)], env=env, capture_output=True, text=True)
    assert result.returncode == (124 if stopped else 0), result.stdout + result.stderr
    assert (f"packed what part {part} wrote" in result.stdout) == stopped, result.stdout
    tarball = out / f"session_part{part}.tgz"
    return tarball, names(tarball)


def member(tarball, suffix):
    with tarfile.open(tarball) as tar:
        return tar.extractfile([m for m in tar.getmembers() if m.name.endswith(suffix)][0]).read()


def test_a_part1_stopped_by_timeout_packs_the_stages_it_ran(tmp_path):
    tarball, packed = run_part(1, tmp_path, stopped=True)
    assert {"check", "check/check.log", "check.txt", "final", "final.txt"} <= packed
    assert not {"slots", "slots.txt", "pytest.txt"} & packed, packed
    assert b"final started" in member(tarball, "final.txt")


def test_a_whole_part1_packs_every_stage(tmp_path):
    tarball, packed = run_part(1, tmp_path, stopped=False)
    assert {"check.txt", "final.txt", "slots.txt", "pytest.txt"} <= packed
    assert b"kernel-path failures: 0" in member(tarball, "slots.txt")


def test_a_part2_stopped_by_timeout_packs_the_compile_times_and_the_bench_so_far(tmp_path):
    tarball, packed = run_part(2, tmp_path, stopped=True)
    assert {"compile_host.txt", "compile_ms_host.json", "bench", "bench/bench.json", "bench.txt"} <= packed
    assert "bench/stale.json" not in packed and "megac" not in packed, packed
    assert b"bench started" in member(tarball, "bench.txt")
    assert b"gdn_core" in member(tarball, "compile_ms_host.json")


def test_a_whole_part2_packs_its_outputs_and_not_the_unpacked_megac(tmp_path):
    tarball, packed = run_part(2, tmp_path, stopped=False)
    assert {"compile_host.txt", "compile_ms_host.json", "bench/bench.json", "bench.txt"} <= packed
    assert "bench/stale.json" not in packed and "megac" not in packed, packed
