"""The browser page: a person creates a game of each board game against a bot, plays it to the end by clicking
(cells on the board, or the move buttons), asks a hint, and watches a game between bots; every screen of the seat
shows exactly that seat's view (its legal moves, and a board whose every label comes from its observation alone),
checked against the true game read from the server's store."""

import json
import random
import re
import sqlite3
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from engine_ext.render import svg
from server.hosting import _setup
from server.store import GameRecord, seed_value

ARTEFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"  # screenshots, kept by CI as artefacts

CELL = re.compile(r"\(-?\d+,-?\d+\)|\b(?:NW|NE|SW|SE)\b")
GAMES = ["survive", "islet", "small_islands"]


def true_state(db, game_id: str):
    """The hosted game as the server holds it, rebuilt from its stored seed and move log."""
    with sqlite3.connect(db) as con:
        row = con.execute(
            "SELECT id, game, players, seed, options, seats, token_hashes, seed_scheme FROM games WHERE id=?",
            (game_id,),
        ).fetchone()
        moves = [a for (a,) in con.execute("SELECT action FROM moves WHERE game_id=? ORDER BY n", (game_id,))]
    state = _setup(GameRecord(row[0], row[1], row[2], seed_value(row[3]), *(json.loads(x) for x in row[4:7]), row[7]))
    for action in moves:
        state.apply(action)
    return state


def board_labels(text: str) -> list[str]:
    return sorted("".join(t.itertext()) for t in ET.fromstring(text).iter("{http://www.w3.org/2000/svg}text"))


def wait_for_turn(page, limit: float = 60.0) -> str:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        status = page.inner_text("#status")
        if status.startswith("Game over") or "your turn" in status:
            return status
        time.sleep(0.05)
    raise AssertionError(f"no turn of mine within {limit} s: {status!r}")


def game_id_of(page, db) -> str:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT id FROM games ORDER BY rowid DESC LIMIT 1").fetchone()[0]


def check_screen(page, db, game_id: str) -> None:
    """The seat's screen is its view: its legal moves, and the board drawn from its observation alone."""
    state = true_state(db, game_id)
    observation = state.observation(0)
    moves = page.eval_on_selector_all("button.move", "els => els.map(e => e.textContent)")
    assert sorted(moves) == sorted(state.action_to_string(a) for a in state.legal_actions())
    shown = page.eval_on_selector_all("#board svg text", "els => els.map(e => e.textContent)")
    assert sorted(shown) == board_labels(svg(observation))


def click_a_move(page, rng: random.Random) -> None:
    """A random legal move, by a click on the board where a cell names it alone, else by its button."""
    moves = page.eval_on_selector_all("button.move", "els => els.map(e => e.textContent)")
    choice = rng.choice(moves)
    by_cell = {}
    for text in moves:
        for cell in CELL.findall(text):
            by_cell.setdefault(cell, []).append(text)
    unique = [c for c in CELL.findall(choice) if by_cell.get(c) == [choice]]
    if unique and page.locator(f'#board svg [data-cell="{unique[0]}"]').count():
        page.locator(f'#board svg [data-cell="{unique[0]}"]').first.click(force=True)
        return
    button = page.locator("button.move", has_text=choice).filter(has_text=re.compile(f"^{re.escape(choice)}$"))
    page.evaluate("() => document.querySelectorAll('#moves details').forEach(d => d.open = true)")
    button.first.click()


@pytest.mark.parametrize("game", GAMES)
def test_a_person_plays_a_whole_game_by_clicking_and_sees_only_their_seat(page, web_server, game):
    rng = random.Random(game)
    page.select_option("#game", game)
    page.select_option("#players", "2")
    page.select_option("#seat-1", "1")  # a random bot: a quick game
    page.click("#create")
    page.wait_for_selector("#board svg", timeout=60_000)
    game_id = game_id_of(page, web_server["db"])
    turns, hinted = 0, False
    started = time.monotonic()
    while True:
        status = wait_for_turn(page)
        if status.startswith("Game over"):
            break
        check_screen(page, web_server["db"], game_id)  # every screen of the seat: its view, nothing else
        if turns == 3:
            page.click("#hint")
            page.wait_for_selector("#advice table", timeout=60_000)
            assert page.locator("#advice td").count() >= 3 and "Expected line" in page.inner_text("#advice")
            hinted = True
            ARTEFACTS.mkdir(exist_ok=True)
            page.evaluate("() => window.scrollTo(0, 0)")
            page.screenshot(path=str(ARTEFACTS / f"page-{game}.png"))
        before = page.inner_text("#status")
        click_a_move(page, rng)
        page.wait_for_function("s => document.querySelector('#status').textContent !== s", arg=before, timeout=60_000)
        turns += 1
        assert time.monotonic() - started < 300, f"{game}: still playing after {turns} turns"
    assert hinted and turns > 3
    state = true_state(web_server["db"], game_id)
    assert state.is_terminal() and "Game over" in page.inner_text("#status")
    assert page.locator("#graph circle").count() >= 2  # the win-probability points of the game


def test_a_game_between_bots_is_watched_to_its_end(page):
    page.select_option("#game", "islet")
    page.select_option("#players", "3")
    for seat in range(3):
        page.select_option(f"#seat-{seat}", "1")
    page.click("#watch")
    page.wait_for_function("() => document.querySelector('#status').textContent.startsWith('Game over')",
                           timeout=120_000)  # fmt: skip
    assert page.locator("#board svg").count() == 1 and page.locator("#log li").count() > 50
    ARTEFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTEFACTS / "page-watch.png"))


def test_a_game_with_no_seat_for_the_person_is_not_created(page, web_server):
    with sqlite3.connect(web_server["db"]) as con:
        before = con.execute("SELECT count(*) FROM games").fetchone()[0]
    page.select_option("#game", "survive")
    page.select_option("#players", "2")
    page.select_option("#seat-0", "1")
    page.select_option("#seat-1", "1")
    page.click("#create")  # no seat for the person: the page says so, and asks the server for nothing
    page.wait_for_selector("#error:not([hidden])")
    assert "at least one seat for you" in page.inner_text("#error")
    with sqlite3.connect(web_server["db"]) as con:
        assert con.execute("SELECT count(*) FROM games").fetchone()[0] == before
