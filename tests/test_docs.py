"""Every Python snippet in the README and docs/ runs as written (the API guide's against a real server)."""

import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SNIPPET = re.compile(r"```python\n(.*?)```", re.DOTALL)


def snippets():
    for path in DOCS:
        for k, code in enumerate(SNIPPET.findall(path.read_text())):
            yield pytest.param(path, code, id=f"{path.name}-{k}")


@pytest.mark.parametrize(("path", "code"), list(snippets()))
def test_the_snippet_runs_as_written(path, code):
    if "AtollClient(" in code:
        spec = importlib.util.spec_from_file_location("server_conftest", ROOT / "tests" / "server" / "conftest.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        server = module.ServerProcess(Path(tempfile.mkdtemp()) / "games.sqlite3").start()
        try:
            code = code.replace("127.0.0.1:50051", server.address)
            run(code)
        finally:
            server.stop()
    else:
        run(code)


def run(code: str) -> None:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
