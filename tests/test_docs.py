"""The docs hold: every Python snippet in the README and docs/ runs as written (the API guide's against a real
server), every link lands on a file and a heading, the benchmark reference stays a reference, and the project speaks of
itself by dates and commits."""

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


EXPERIMENTS = sorted(p for p in (ROOT / "docs" / "experiments").glob("*.md") if p.name != "README.md")
INDEX = ("<!-- index -->\n", "<!-- /index -->\n")


def headings(text: str) -> list[tuple[int, str, str]]:
    """(level, title, anchor) of every heading, code blocks left out."""
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    seen: dict[str, int] = {}
    return [(len(m[1]), m[2], anchor(m[2], seen)) for m in re.finditer(r"^(#+) (.+)$", text, re.MULTILINE)]


def index_block(text: str) -> str:
    """An experiment page's index as it should read: every entry (level 2) and its parts (level 3), linked."""
    lines = [INDEX[0].strip()]
    for level, title, link in headings(text):
        if level in (2, 3):
            lines.append(f"{'  ' * (level - 2)}- [{title}](#{link})")
    return "\n".join([*lines, INDEX[1]])


@pytest.mark.parametrize("page", EXPERIMENTS, ids=lambda p: p.name)
def test_each_experiment_page_indexes_its_entries_in_order(page):
    text = page.read_text()
    start, end = text.index(INDEX[0]), text.index(INDEX[1]) + len(INDEX[1])
    assert text[start:end] == index_block(text), (
        f"{page.name}'s index is out of date; replace it with:\n" + index_block(text)
    )


@pytest.mark.parametrize("page", EXPERIMENTS, ids=lambda p: p.name)
def test_each_experiment_entry_is_dated_and_names_its_commit(page):
    for level, title, _ in headings(page.read_text()):
        if level == 2:
            assert re.search(r"\b20\d\d-\d\d-\d\d\b.*\bcommit [0-9a-f]{7}", title), f"{page.name}: {title!r}"


def test_the_benchmark_reference_is_a_reference():
    """docs/benchmarks.md holds the current figures with their commands; the stories live in docs/experiments/."""
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    assert len(text.splitlines()) <= 700
    assert max(len(cell) for line in text.splitlines() if line.startswith("|") for cell in line.split("|")) <= 200


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize(
    "page", [*DOCS, *EXPERIMENTS, ROOT / "docs" / "experiments" / "README.md"], ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_link_lands_on_a_file_and_a_heading(page):
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        assert file.exists(), f"{page.name} links to {target}: no such file"
        if fragment and file.suffix == ".md":
            anchors = {a for _, _, a in headings(file.read_text())}
            assert fragment in anchors, f"{page.name} links to {target}: no such heading"


# The ordinal words that numbered the project's work periods, spelled in pieces so that this file names none.
_TENS = "twenty|thirty|forty|fifty|sixty|seventy"
_UNITS = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth"
_TEENS = "ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth"
NAMED_WORK_PERIOD = re.compile(
    rf"({_TENS})-({_UNITS})|\b({_UNITS}|tenth|eleventh|twelfth|[0-9]+(st|nd|rd|th)) ses" + r"sion|\bses" + r"sions?\b"
    rf"|[(,] ({_TEENS}|twentieth|thirtieth|fortieth)[;:),]|\(({_TEENS}|twentieth|thirtieth|fortieth)[;:),]",
    re.IGNORECASE,
)
# What is not a work period: a gRPC or HTTP connection's, a tmux terminal's, pytest's scope.
OTHER_MEANINGS = re.compile(r"grpc|http|tmux|pytest|scope=.session|session-scoped|sqlalchemy|psycopg", re.IGNORECASE)


def test_the_project_speaks_of_itself_by_dates_and_commits():
    """No figure, comment or test names a numbered work period ("the forty-..." or "this ses..."): a reader cannot
    know what it was. A figure is dated and cites the commit or record file that produced it."""
    tracked = subprocess.run(
        ["git", "ls-files", "docs", "benchmarks", "engine_ext", "search", "server", "tests", "README.md"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout: nothing to list")
    found = []
    for name in tracked:
        path = ROOT / name
        if path.suffix not in {".md", ".py", ".pyx", ".pxd", ".sh", ".proto", ".txt", ".toml"} or not path.exists():
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if NAMED_WORK_PERIOD.search(line) and not OTHER_MEANINGS.search(line):
                found.append(f"{name}:{number}: {line.strip()[:100]}")
    assert not found, "work periods named (date the figure and cite its commit instead):\n" + "\n".join(found)


def test_every_module_keeps_to_one_role_within_1500_lines():
    """STYLE's rule: a module past about 1,500 lines has grown several roles; split it by role (a hot path's parts
    as ``.pxi`` files its module includes, docs/architecture.md). Tests and records are not modules."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    if not tracked:
        pytest.skip("not a git checkout: nothing to list")
    sources = [n for n in tracked if n.endswith((".py", ".pyx", ".pxd", ".pxi")) and not n.startswith("tests/")]
    sources = [n for n in sources if not n.startswith("benchmarks/records/") and (ROOT / n).exists()]
    long = {n: lines for n in sources if (lines := len((ROOT / n).read_text().splitlines())) > 1500}
    assert not long, f"modules over 1,500 lines: {long}"
