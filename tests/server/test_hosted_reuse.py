"""A hosted bot seat with ``reuse`` keeps its trees between its moves, sees every move (a human's too) as its seat
observes it, and forgets them when a request fails (what the trees saw was not kept)."""

import pytest

import search
from search.play import BotSettings
from server.budget import Limits
from server.hosting import GameHost, RequestError
from server.store import GameStore


@pytest.fixture
def host(tmp_path):
    return GameHost(GameStore(tmp_path / "games.db"), Limits(searches=2, streams=4, streams_per_game=2))


def test_a_hosted_bot_reuses_its_trees_across_a_humans_moves(host, monkeypatch):
    reused = []
    suggest = search.suggest

    def spy(*args, **kwargs):
        result = suggest(*args, **kwargs)
        reused.append(result.stats.get("reused_nodes"))
        return result

    monkeypatch.setattr(search, "suggest", spy)
    bot = BotSettings("ismcts", iterations=500, reuse=True)
    created = host.create("survive", 2, 3, {}, [None, bot], search.Control())
    hosted = host._games[created.game_id]
    state = hosted.position.state
    for _ in range(40):  # the set-up and a few turns: the human (seat 0) always plays its first legal move
        host.act(created.game_id, 0, created.tokens[0], state.legal_actions()[0], None, search.Control())
    keeper = hosted.keepers[1]
    assert reused[0] == 0
    assert sum(1 for r in reused if r) >= 5  # the bot's later decisions in a turn started from kept subtrees
    assert keeper.nodes == 0 and keeper.fingerprint is None  # released once the moves were committed
    assert hosted.position.keepers == {}  # the committed position shows no keeper a move twice


def test_a_failed_request_forgets_the_kept_trees(host):
    bot = BotSettings("ismcts", iterations=500, reuse=True, setup_algorithm="same")  # its set-up placement searched
    created = host.create("survive", 2, 3, {}, [None, bot], search.Control())
    hosted = host._games[created.game_id]
    state = hosted.position.state
    keeper = hosted.keepers.setdefault(1, search.TreeKeeper(1))
    cancelled = search.Control()
    searched = []
    suggest = search.suggest

    def search_then_cancel(*args, **kwargs):  # the caller goes away after the bot's first search
        result = suggest(*args, **kwargs)
        searched.append(keeper.nodes)
        cancelled.cancel()
        return result

    search.suggest = search_then_cancel
    before = hosted.position.moves
    try:
        with pytest.raises(RequestError):
            host.act(created.game_id, 0, created.tokens[0], state.legal_actions()[0], None, cancelled)
    finally:
        search.suggest = suggest
    assert searched and searched[0] > 0  # the bot had kept its trees
    assert keeper.nodes == 0 and keeper.path == []
    assert hosted.position.moves == before  # nothing of the failed request was committed
