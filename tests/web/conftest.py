"""The page of ``atoll serve --web`` in a real browser: Debian's Chromium (``make test`` installs it) driven by
Playwright, against a real server process. Without Chromium or the built page the tests skip with one line; under
``CI=true`` they fail instead."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTEFACTS = ROOT / "test-artifacts"


def need(present: bool, what: str) -> None:
    if present:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what}; CI=true requires it (make test installs it)")
    pytest.skip(what)


@pytest.fixture(scope="module")
def web_server(tmp_path_factory):
    need(Path(CHROMIUM).exists(), "no Chromium at /usr/bin/chromium (make test installs Debian's chromium)")
    need((ROOT / "web" / "dist" / "app.js").exists(), "the page is not built (make web)")
    db = tmp_path_factory.mktemp("web") / "games.sqlite3"
    log = db.with_suffix(".log")
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(db), "--web", "--web-port", "0"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=open(log, "w"), text=True,  # noqa: SIM115 - the child's
    )  # fmt: skip
    first = proc.stdout.readline()
    assert first.startswith("Atoll listening on "), first + log.read_text()
    page_line = proc.stdout.readline()
    assert "the page: " in page_line, page_line
    url = page_line.split("the page: ")[1].split()[0]
    yield {"url": url, "db": db, "log": log}
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(web_server):
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, web_server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(web_server["url"])
    page.wait_for_selector("#game option", state="attached")
    yield page
    context.close()
    assert not errors, errors
