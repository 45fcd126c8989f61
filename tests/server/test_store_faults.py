"""A store that fails (a real SQLite refusing the write): the caller gets UNAVAILABLE, the game stays exactly as it
was for its readers and watchers, and a restart shows the same position. The SQLite faults here are real: a database
at its size limit (SQLITE_FULL, what a full disk gives) and a connection that is gone. (A write lock held by another
process, through a real server, is tests/server/test_statuses.py's UNAVAILABLE row.)"""

import asyncio

import pytest

from server.errors import RequestError
from server.hosting import GameHost
from server.scheduler import SearchQueue
from server.store import GameStore


def host_on(path) -> tuple[GameHost, asyncio.AbstractEventLoop]:
    return GameHost(GameStore(path), SearchQueue(2)), asyncio.new_event_loop()


def full_disk(store: GameStore) -> None:
    """The database may not grow by a page: the next write that needs one fails as on a full disk."""
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")


def dropped_connection(store: GameStore) -> None:
    store._db.close()


@pytest.mark.parametrize("fault", [full_disk, dropped_connection])
def test_a_store_that_fails_refuses_the_move_and_changes_nothing(tmp_path, fault):
    host, loop = host_on(tmp_path / "games.db")
    run = loop.run_until_complete
    created = run(host.create("survive", 2, 3, {}, [None, None]))
    tokens = created.tokens
    hosted = run(host._get(created.game_id))
    watched = hosted.changed
    fault(host.store)
    refused = None
    for _ in range(400):  # each human move is a write; sooner or later one needs a new page
        seat = hosted.position.state.current_player()
        before = run(host.view(created.game_id, seat, tokens[seat]))
        watched = hosted.changed
        try:
            run(host.act(created.game_id, seat, tokens[seat], before.legal[0][0], None))
        except RequestError as err:
            refused = err
            break
    assert refused is not None and refused.code == "UNAVAILABLE" and "nothing was played" in str(refused)
    after = run(host.view(created.game_id, seat, tokens[seat]))
    assert after == before  # the same position, for every reader
    assert not watched.is_set()  # no watcher was woken by a move that was not stored
    restarted, loop2 = host_on(tmp_path / "games.db")
    again = loop2.run_until_complete(restarted.view(created.game_id, seat, tokens[seat]))
    assert again.move_number == before.move_number and again.observation == before.observation
