"""A hosted bot seat with ``reuse`` or ``beliefs`` keeps its trees between its moves and between requests, sees every
move (a human's too) as its seat observes it, and so searches exactly as the same configuration does in the arena's
game loop; trees lost to a restart, a release for memory or a failed request are rebuilt by replay."""

import asyncio

import pytest

import search
from search import play
from search.play import BotSettings, Position
from server.hosting import RequestError, needs_trees, observes_only
from server.scheduler import SearchQueue
from server.store import GameStore


class GameHost:
    """A ``server.hosting.GameHost`` driven from synchronous test code: each call runs on the host's own event loop
    until it returns (create and act wait for the bots' job, having no deadline)."""

    def __init__(self, store, kept_bytes=None):
        from server.hosting import KEPT_BYTES
        from server.hosting import GameHost as Host

        self.loop = asyncio.new_event_loop()
        self.host = Host(store, SearchQueue(2), kept_bytes=KEPT_BYTES if kept_bytes is None else kept_bytes)

    def __getattr__(self, name):
        return getattr(self.host, name)

    def run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    def create(self, game, players, seed, options, bots):
        return self.run(self.host.create(game, players, seed, options, bots))

    def act(self, game_id, seat, token, action):
        return self.run(self.host.act(game_id, seat, token, action, None))

    def get(self, game_id):
        """The game, once its bots' job has played up to a human seat's turn (or the end)."""
        hosted = self.run(self.host._get(game_id))
        self.run(self.host._until_humans(hosted, None))
        return hosted

    def ensure_trees(self, hosted):
        self.run(self.host._ensure_trees(hosted, search.Control()))


@pytest.fixture
def host(tmp_path):
    return GameHost(GameStore(tmp_path / "games.db"))


def human(state):
    """The human seat's fixed policy in these tests: the middle legal move."""
    legal = state.legal_actions()
    return legal[len(legal) // 2]


@pytest.fixture
def searches(monkeypatch):
    """Every search a bot runs: (game, seat, move number as its seed says, [(action, visits)], reused nodes)."""
    seen = []
    suggest = search.suggest

    def spy(state, seat, config=None, **kwargs):
        result = suggest(state, seat, config, **kwargs)
        seen.append((seat, config.seed, [(m.action, m.visits) for m in result.moves], result.stats.get("reused_nodes")))
        return result

    monkeypatch.setattr(search, "suggest", spy)
    return seen


def arena_searches(searches, game, players, seed, bots):
    """The searches of the same game played by the arena's loop (``search.play``), the human seats by ``human``."""
    start = len(searches)
    position = Position(play.new_game(game, players, seed, {}))
    while not position.state.is_terminal():
        for _ in play.play(position, seed, bots):
            pass
        if not position.state.is_terminal():
            position.apply(human(position.state))
    return searches[start:]


def hosted_game(host, game, players, seed, bots, moves=None):
    """Play a hosted game (the human seats by ``human``) for ``moves`` human moves or to its end."""
    created = host.create(game, players, seed, {}, bots)
    return created, continue_game(host, created, moves)


def continue_game(host, created, moves=None):
    hosted = host.get(created.game_id)
    done = 0
    while not hosted.position.state.is_terminal() and (moves is None or done < moves):
        seat = hosted.position.state.current_player()
        host.act(created.game_id, seat, created.tokens[seat], human(hosted.position.state))
        hosted = host.get(created.game_id)
        done += 1
    return hosted


@pytest.mark.parametrize(
    "game, players, bot",
    [
        ("leduc_poker", 2, BotSettings("ismcts", iterations=300)),  # beliefs by default
        ("leduc_poker", 3, BotSettings("ismcts", iterations=200, reuse=True)),
        ("survive", 2, BotSettings("ismcts", iterations=200, reuse=True)),
    ],
)
def test_a_hosted_bot_searches_as_the_arena_loop_does(host, searches, game, players, bot):
    # Trees and beliefs carry over between requests (each human move is a request), so every search of the hosted
    # bot seats matches the arena's game loop: same moves, visits and reused nodes.
    bots = [None] + [bot] * (players - 1)
    for seed in range(3 if game != "survive" else 1):
        searches.clear()
        if game == "survive":
            hosted_game(host, game, players, seed, bots, moves=40)
            hosted = searches[:]
            expected = arena_searches(searches, game, players, seed, bots)[: len(hosted)]
        else:
            hosted_game(host, game, players, seed, bots)
            hosted = searches[:]
            expected = arena_searches(searches, game, players, seed, bots)
        assert hosted == expected
        if game == "survive":
            assert sum(1 for *_, reused in hosted if reused) >= 5  # later decisions start from kept subtrees


def test_trees_lost_to_a_restart_or_to_memory_are_rebuilt(tmp_path, searches):
    bots = [None, BotSettings("ismcts", iterations=300, reuse=True)]
    store = GameStore(tmp_path / "games.db")
    first = GameHost(store)
    created, hosted = hosted_game(first, "survive", 2, 5, bots, moves=40)
    assert hosted.keepers[1].nodes > 0 and not hosted.trees_stale  # kept between requests
    done = len(searches)
    restarted = GameHost(GameStore(tmp_path / "games.db"))  # a restart: same store, no trees
    assert restarted.get(created.game_id).trees_stale
    continue_game(restarted, created, moves=15)
    replayed = searches[done:]
    expected = arena_searches(searches, "survive", 2, 5, bots)
    # The restarted host first replays the bot's earlier searches, then goes on as the arena loop does.
    assert replayed[:done] == expected[:done]
    assert replayed[done:] == expected[done : len(replayed)]
    # A host that may keep only one game's trees releases the less recent one's; that game rebuilds them.
    searches.clear()
    small = GameHost(GameStore(tmp_path / "small.db"), kept_bytes=2 * hosted.keepers[1].bytes)
    a, game_a = hosted_game(small, "survive", 2, 5, bots, moves=40)
    b, game_b = hosted_game(small, "survive", 2, 6, bots, moves=40)
    assert game_a.trees_stale and not game_a.keepers and game_b.keepers[1].nodes > 0
    continue_game(small, a, moves=15)
    assert not game_a.trees_stale and game_a.keepers[1].nodes > 0


def test_a_finished_game_holds_no_trees(host):
    created, hosted = hosted_game(host, "leduc_poker", 2, 1, [None, BotSettings("ismcts", iterations=200)])
    assert hosted.position.state.is_terminal()
    assert hosted.keepers == {} and created.game_id not in host._kept


def test_a_commit_the_store_refuses_forgets_the_kept_trees_and_the_job_goes_on_when_it_recovers(tmp_path, searches):
    # The bot's search ran with its kept trees, but the store refused the move: nothing is committed, the trees (which
    # saw the move) are released, and when the store works again the job replays them and plays as the arena does.
    bot = BotSettings("ismcts", iterations=300, reuse=True)
    host = GameHost(GameStore(tmp_path / "games.db"))
    created, hosted = hosted_game(host, "survive", 2, 5, [None, bot], moves=30)
    assert hosted.keepers[1].nodes > 0
    append = host.store.append
    refused = []

    def full_disk(game_id, first, moves, *ownership):
        if hosted.position.state.current_player() == 1:  # the bot's move, not the human's
            refused.append(first)
            raise OSError(28, "No space left on device")
        return append(game_id, first, moves)

    host.store.append = full_disk
    before = hosted.position.moves
    with pytest.raises(RequestError) as failed:  # the human moves until the bot's reply is refused
        while True:
            seat = hosted.position.state.current_player()
            host.act(created.game_id, seat, created.tokens[seat], human(hosted.position.state))
    assert failed.value.code == "UNAVAILABLE" and "bots' move" in str(failed.value)
    assert refused and hosted.position.moves == refused[0] > before  # the human's moves are kept, the bot's is not
    assert hosted.keepers == {} and hosted.trees_stale
    host.store.append = append
    continue_game(host, created, moves=10)
    done = searches[:]
    expected = arena_searches(searches, "survive", 2, 5, [None, bot])
    assert [s for s in done if s[1] is not None][-5:] == [s for s in expected if s in done][-5:]
    assert hosted.position.moves > refused[0] and not hosted.trees_stale


def test_a_restart_mid_hand_rebuilds_the_beliefs_of_a_bot_at_its_defaults(tmp_path, searches):
    # Default settings (no budget given: the default iterations, so the searches repeat); beliefs by default in Leduc.
    bots = [None, BotSettings()]
    for seed in range(4):
        searches.clear()
        first = GameHost(GameStore(tmp_path / f"g{seed}.db"))
        created, hosted = hosted_game(first, "leduc_poker", 2, seed, bots, moves=1)
        if hosted.position.state.is_terminal():
            continue
        before = len(searches)
        restarted = GameHost(GameStore(tmp_path / f"g{seed}.db"))
        continue_game(restarted, created)
        expected = arena_searches(searches, "leduc_poker", 2, seed, bots)
        played = searches[: len(searches) - len(expected)]
        replayed, after = played[before : 2 * before], played[2 * before :]
        assert replayed == played[:before] == expected[:before]
        assert after == expected[before:]


def test_the_servers_tree_memory_is_set_by_its_option(tmp_path):
    from server.app import AtollServer
    from server.cli import build_parser

    args = build_parser().parse_args(["serve", "--kept-trees-mb", "1.5"])
    assert args.kept_trees_mb == 1.5
    for bad in (-1, float("nan")):
        with pytest.raises(ValueError, match="kept_trees_mb"):
            AtollServer(port=0, db=tmp_path / "a.db", kept_trees_mb=bad)
    server = AtollServer(port=0, db=tmp_path / "b.db", kept_trees_mb=1.5)
    try:
        assert server.host.kept_bytes == 1.5 * 2**20
    finally:
        server.close()


def test_a_bad_tree_memory_is_a_clear_error_at_the_command_line(tmp_path, capsys):
    from server.cli import build_parser

    for bad in ("-1", "inf", "lots"):
        with pytest.raises(SystemExit) as refused:
            build_parser().parse_args(["serve", "--port", "0", "--db", str(tmp_path / "c.db"), "--kept-trees-mb", bad])
        assert refused.value.code == 2
        assert "argument --kept-trees-mb: expected a number" in capsys.readouterr().err


def rebuilt_without_searching(path, created, searches):
    """A server restarted on the store at ``path``: the game's kept state, stale after the restart, rebuilt before its
    next move with no search run."""
    restarted = GameHost(GameStore(path))
    rebuilt = restarted.get(created.game_id)
    assert rebuilt.trees_stale and not rebuilt.keepers
    before = len(searches)
    restarted.ensure_trees(rebuilt)
    assert len(searches) == before  # no search was run to rebuild it
    return restarted, rebuilt


def test_a_restart_rebuilds_beliefs_from_the_moves_by_showing_them_again_without_searching(tmp_path, searches):
    # Small Islands' beliefs come from what the moves show: a time budget (searches that do not repeat) loses nothing.
    bots = [None, BotSettings("ismcts", time_ms=5, beliefs=True), BotSettings("greedy"), BotSettings("greedy")]
    first = GameHost(GameStore(tmp_path / "si.db"))
    created, hosted = hosted_game(first, "small_islands", 4, 5, bots, moves=12)
    learnt = {seat: list(row) for seat, row in hosted.keepers[1].beliefs.items()}
    assert learnt and hosted.keepers[1].nodes == 0
    restarted, rebuilt = rebuilt_without_searching(tmp_path / "si.db", created, searches)
    assert rebuilt.keepers[1].beliefs == learnt and rebuilt.keepers[1].evidence is not None
    continue_game(restarted, created, moves=1)


def test_hosted_pimc_and_flat_seats_keep_their_beliefs_and_greedy_and_cheat_have_none():
    for algorithm, kept in (("ismcts", True), ("pimc", True), ("flat", True), ("greedy", False), ("cheat", False)):
        settings = BotSettings(algorithm=algorithm, iterations=100)
        assert needs_trees("small_islands", 4, settings) is kept
        assert observes_only("small_islands", 4, settings) is kept
    assert not observes_only("small_islands", 4, BotSettings(algorithm="ismcts", iterations=100, reuse=True))
    assert not needs_trees("small_islands", 4, BotSettings(algorithm="pimc", iterations=100, beliefs=False))


def test_a_restart_rebuilds_survives_beliefs_about_values_by_showing_the_moves_again(tmp_path, searches):
    # Survive's beliefs are a filter over worlds started at the seat's first decision: replaying the moves from the
    # seat's observation with that decision's seed rebuilds it exactly, with no search and whatever the budget.
    bots = [None, BotSettings("ismcts", time_ms=5, beliefs=True)]
    assert observes_only("survive", 2, bots[1])
    first = GameHost(GameStore(tmp_path / "survive.db"))
    created, hosted = hosted_game(first, "survive", 2, 5, bots, moves=12)
    learnt = hosted.keepers[1].filter.table()
    assert learnt and hosted.keepers[1].nodes == 0
    restarted, rebuilt = rebuilt_without_searching(tmp_path / "survive.db", created, searches)
    assert rebuilt.keepers[1].filter.table() == learnt
    continue_game(restarted, created, moves=1)


def test_survives_belief_filters_count_in_the_kept_memory_and_are_rebuilt_when_released(tmp_path, searches):
    # A filter's worlds are memory a hosted seat keeps like trees: counted in ``kept_bytes``, released from the least
    # recently played game when the games together hold more, and rebuilt exactly when that game goes on.
    bots = [None, BotSettings("ismcts", time_ms=5, beliefs=True)]
    first = GameHost(GameStore(tmp_path / "one.db"))
    _, alone = hosted_game(first, "survive", 2, 5, bots, moves=12)
    keeper = alone.keepers[1]
    worlds = keeper.filter.worlds
    assert keeper.nodes == 0 and keeper.bytes == len(worlds) * worlds[0].nbytes > 0
    learnt = keeper.filter.table()
    small = GameHost(GameStore(tmp_path / "small.db"), kept_bytes=keeper.bytes * 3 // 2)
    a, game_a = hosted_game(small, "survive", 2, 5, bots, moves=12)
    assert a.game_id in small._kept and game_a.keepers[1].filter.table() == learnt
    b, game_b = hosted_game(small, "survive", 2, 6, bots, moves=12)
    assert game_a.trees_stale and not game_a.keepers and list(small._kept) == [b.game_id]
    small.ensure_trees(game_a)
    assert game_a.keepers[1].filter.table() == learnt


def test_with_no_memory_to_keep_a_filter_the_seat_sees_the_moves_again_at_each_decision(tmp_path, searches):
    # A host that keeps nothing (``--kept-trees-mb 0``) releases the filter after every move; the seat rebuilds it from
    # the moves before its next search, so it still searches exactly as the arena's game loop (which keeps it) does.
    bots = [None, BotSettings("ismcts", iterations=100, beliefs=True)]
    none_kept = GameHost(GameStore(tmp_path / "none.db"), kept_bytes=0)
    _, hosted = hosted_game(none_kept, "survive", 2, 7, bots, moves=20)
    assert not hosted.keepers and hosted.trees_stale and not none_kept._kept
    played = searches[:]
    assert len(played) >= 10
    assert played == arena_searches(searches, "survive", 2, 7, bots)[: len(played)]
