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


def test_every_search_setting_is_documented_in_the_architecture_guide():
    from dataclasses import fields

    import search
    from engine_ext import SearchDefaults

    text = (ROOT / "docs" / "architecture.md").read_text()
    table = text[text.index("| field |", text.index("## Search settings")) :]
    rows = table[: table.index("\n\n")].splitlines()
    documented = {name for row in rows for name in re.findall(r"`(\w+)`", row.split("|")[1])}
    missing = [f.name for f in fields(search.SearchConfig) if f.name not in documented]
    assert not missing, f"SearchConfig fields missing from docs/architecture.md's table: {missing}"
    # every per-game default is a search setting (a default the search cannot be told to change would be a typo),
    # but for the ones that say how the others apply: greedy's own evaluation and depth, and defaults by seat count
    how = {"greedy_heuristic", "greedy_playout_depth", "by_players", "by_budget"}
    settings = {f.name for f in fields(search.SearchConfig)}
    assert {f.name for f in fields(SearchDefaults)} - how <= settings
    for name in how:
        assert re.search(rf"`[\w.]*{name}`", text), f"{name} is not described in docs/architecture.md"
    import engine_ext

    for game in engine_ext.GAMES:
        defaults = engine_ext.game_info(game).search_defaults
        budgets = [budget.settings for budget in defaults.by_budget]
        for overrides in [*(defaults.by_players or {}).values(), *budgets]:
            assert set(overrides) <= settings - {"algorithm", "iterations", "time_ms", "seed"}, game


def anchor(title: str, seen: dict[str, int]) -> str:
    """The anchor a Markdown renderer (GitHub's rule) gives a heading: lower case, punctuation and symbols dropped,
    spaces as hyphens, a repeated one numbered in the document's order."""
    slug = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
    count = seen.get(slug, 0)
    seen[slug] = count + 1
    return f"{slug}-{count}" if count else slug


CONTENTS = ("<!-- contents -->\n", "<!-- /contents -->\n")


def contents_block(text: str) -> str:
    """docs/benchmarks.md's list of contents as it should read: every section and subsection after it, in order,
    each linked to its heading."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)  # a line in a code block is no heading
    after = text.index(CONTENTS[1]) if CONTENTS[1] in text else text.index("\n## Engine speed")
    seen: dict[str, int] = {}
    lines = [CONTENTS[0].strip(), "Contents (the table above gives the latest figure of each target):", ""]
    for match in re.finditer(r"^(#+) (.+)$", text, re.MULTILINE):
        level, title = match.groups()
        link = anchor(title, seen)
        if match.start() > after and len(level) >= 2:
            lines.append(f"{'  ' * (len(level) - 2)}- [{title}](#{link})")
    return "\n".join([*lines, CONTENTS[1]])


def test_the_benchmarks_contents_list_every_section_in_order():
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    start, end = text.index(CONTENTS[0]), text.index(CONTENTS[1]) + len(CONTENTS[1])
    assert text[start:end] == contents_block(text), (
        "docs/benchmarks.md's contents are out of date; replace them with:\n" + contents_block(text)
    )
