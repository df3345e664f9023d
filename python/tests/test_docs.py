"""docs/python.md must work as written: its ```python cpu blocks run here, in order, in one namespace, from the
repository root; its ```python gpu blocks run after them where CUDA is available."""
import contextlib
import io
import os
import re

import pytest

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
DOC = os.path.join(ROOT, "docs", "python.md")
_FENCE = re.compile(r"^```python[ \t]+(cpu|gpu)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks(kind):
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    out = []
    for m in _FENCE.finditer(text):
        if m.group(1) == kind:
            line = text.count("\n", 0, m.start()) + 2
            out.append((line, m.group(2)))
    return out


def _run(kind, namespace):
    for line, code in blocks(kind):
        # pad with newlines so that a traceback's line numbers are docs/python.md's
        compiled = compile("\n" * (line - 1) + code, DOC, "exec")
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compiled, namespace)


def _needs_compiler():
    pytest.importorskip("megac._compiler", reason="megac._compiler not built: the doc's compile part needs it")
    pytest.importorskip("megac._runtime", reason="megac._runtime not built")


@pytest.fixture
def in_root(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MEGAC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MEGAC_SLOTS", raising=False)


def test_doc_has_cpu_and_gpu_blocks():
    assert len(blocks("cpu")) >= 4
    assert len(blocks("gpu")) >= 3


def test_cpu_blocks_run(in_root):
    _needs_compiler()
    ns = {"__name__": "docs_python_md"}
    _run("cpu", ns)
    assert ns["cm"].ptx["sm_90a"]


def test_gpu_blocks_run(in_root):
    _needs_compiler()
    torch = pytest.importorskip("torch", reason="torch not installed: GPU part of docs/python.md skipped")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device: GPU part of docs/python.md skipped")
    ns = {"__name__": "docs_python_md"}
    _run("cpu", ns)
    _run("gpu", ns)


def test_documented_testing_helpers_exist():
    """Every megac.testing name docs/python.md mentions exists."""
    from megac import testing
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    names = set(re.findall(r"testing\.([A-Za-z_]\w*)", text))
    assert {"assert_close", "check_close", "bench", "compare", "assert_bytes_equal"} <= names
    missing = sorted(n for n in names if not hasattr(testing, n))
    assert not missing, f"docs/python.md names megac.testing.{missing} which does not exist"
