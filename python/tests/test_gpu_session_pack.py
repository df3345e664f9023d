"""scripts/gpu-session.sh part 1 packs what it wrote after each stage and when `timeout` stops it, so that a part 1
cut short on the GPU machine still brings back the stages it ran (and never a stale one from an earlier run).
Run here on stand-in stages: the script is copied into a scratch tree whose scripts/gpu-check.sh and
scripts/gpu-final.sh only write a line (the second then waits to be stopped)."""
import os
import shutil
import subprocess
import tarfile

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "gpu-session.sh")


def scratch_tree(root, final_stage_waits):
    scripts = root / "scripts"
    scripts.mkdir()
    shutil.copy(SCRIPT, scripts / "gpu-session.sh")
    (scripts / "gpu-check.sh").write_text('#!/usr/bin/env bash\nmkdir -p "$OUT"; echo check ran > "$OUT/check.log"\n')
    wait = 'exec python3 -c "import time; time.sleep(60)"\n' if final_stage_waits else ""
    (scripts / "gpu-final.sh").write_text('#!/usr/bin/env bash\nmkdir -p "$OUT"; echo final started\n' + wait)
    for path in scripts.iterdir():
        path.chmod(0o755)
    (root / "test" / "gpu").mkdir(parents=True)
    (root / "test" / "gpu" / "run_qwen35_slots.py").write_text("print('kernel-path failures: 0')\n")
    # What an earlier part 1 on the same machine left: it must not be packed as this run's.
    stale = root / "out" / "session" / "slots"
    stale.mkdir(parents=True)
    (root / "out" / "session" / "slots.txt").write_text("stale\n")
    out = root / "outdir"
    out.mkdir()
    return out


def names(tarball):
    with tarfile.open(tarball) as tar:
        return {name.lstrip("./") for name in tar.getnames()} - {""}


def run_part1(root, out, seconds):
    env = dict(os.environ, OUT=str(out))
    env.pop("MEGAC_CARD", None)
    return subprocess.run(["timeout", str(seconds), str(root / "scripts" / "gpu-session.sh"), "1"], env=env,
                          capture_output=True, text=True)


def test_a_part1_stopped_by_timeout_packs_the_stages_it_ran(tmp_path):
    out = scratch_tree(tmp_path, final_stage_waits=True)
    result = run_part1(tmp_path, out, 5)
    assert result.returncode == 124, result.stdout + result.stderr
    assert "packed what part 1 wrote" in result.stdout
    packed = names(out / "session_part1.tgz")
    assert {"check", "check/check.log", "check.txt", "final", "final.txt"} <= packed
    assert not {"slots", "slots.txt", "pytest.txt"} & packed, packed
    with tarfile.open(out / "session_part1.tgz") as tar:
        final_txt = tar.extractfile([m for m in tar.getmembers() if m.name.endswith("final.txt")][0]).read()
    assert b"final started" in final_txt


def test_a_whole_part1_packs_every_stage(tmp_path):
    out = scratch_tree(tmp_path, final_stage_waits=False)
    result = run_part1(tmp_path, out, 120)
    assert result.returncode == 0, result.stdout + result.stderr
    packed = names(out / "session_part1.tgz")
    assert {"check.txt", "final.txt", "slots.txt", "pytest.txt"} <= packed
    with tarfile.open(out / "session_part1.tgz") as tar:
        slots = tar.extractfile([m for m in tar.getmembers() if m.name.endswith("slots.txt")][0]).read()
    assert b"kernel-path failures: 0" in slots
