"""Every row of docs/api.md's status table, each by a test of its own against a real server: the exact status for the
case it names. The rows are read from the table, so a row without a case here fails."""

import re
import signal
import sqlite3
import threading
import time
from pathlib import Path

import grpc
import pytest
from conftest import ROOT, ServerProcess, refused

from atoll.client import AtollClient
from atoll.v1 import atoll_pb2 as pb

DOC = ROOT / "docs" / "api.md"
BOT = pb.SeatConfig(is_bot=True, bot=pb.BotSettings(iterations=50))


def table_rows() -> list[tuple[str, str]]:
    text = DOC.read_text()
    table = text[text.index("| status | when |") :].split("\n\n", 1)[0]
    rows = []
    for line in table.splitlines()[2:]:
        status, when = (cell.strip() for cell in line.strip().strip("|").split("|"))
        rows.append((status.strip("`"), when))
    return rows


def kuhn(client: AtollClient, seats=None) -> pb.CreateGameResponse:
    return client.create_game("kuhn_poker", 2, seed=1, seats=seats)


def suggest_observation(client: AtollClient) -> pb.Observation:
    return client.get_view(kuhn(client).game_id, 0).observation


# Servers whose search queue is one thread, for the rows about queues and quotas: BUSY's waits are short, PATIENT's
# long (a waiting search stays queued while the case does what it needs).
BUSY = ("--max-searches", "1", "--queue-wait", "0.5", "--streams-per-caller", "3")
PATIENT = ("--max-searches", "1", "--queue-wait", "30")


def occupy(address: str, seconds: float, callers: int = 1) -> list[threading.Thread]:
    """``callers`` long searches, each from a connection of its own, holding the search threads: returns once each
    has sent its search and had a second to be admitted (the searches last many times longer than that)."""
    sent = threading.Barrier(callers + 1)

    def search() -> None:
        with AtollClient(address, own_connection=True) as c:
            game = c.create_game("kuhn_poker", 2)
            observation = c.get_view(game.game_id, 0).observation
            call = c.stub.Suggest.future(
                pb.SuggestRequest(observation=observation, settings=pb.BotSettings(time_ms=int(seconds * 1000)))
            )
            sent.wait()
            call.result()

    threads = [threading.Thread(target=search) for _ in range(callers)]
    for t in threads:
        t.start()
    sent.wait()
    time.sleep(1.0)
    return threads


def refused_while_busy(ctx, call, busy: ServerProcess | None = None) -> grpc.RpcError:
    """The refusal ``call(client, observation)`` gets from a busy server (``BUSY`` unless given) while another
    caller's search holds its one search thread."""
    busy = busy or ctx.busy()
    holders = occupy(busy.address, 5.0)
    with AtollClient(busy.address, own_connection=True) as c:
        observation = suggest_observation(c)
        err = refused(lambda: call(c, observation))
    for t in holders:
        t.join()
    return err


# -- the cases, by row -------------------------------------------------------------------------------------------------
def garbage_bytes(ctx) -> grpc.RpcError:
    return refused(lambda: grpc.insecure_channel(ctx.address).unary_unary("/atoll.v1.Atoll/Suggest")(b"\xff\xff\x07"))


def request_above_64_kb(ctx) -> grpc.RpcError:
    big = pb.CreateGameRequest(game="kuhn_poker", players=2, options={"x": "y" * 70_000})
    return refused(lambda: ctx.client.stub.CreateGame(big))


def unknown_game(ctx) -> grpc.RpcError:
    err = refused(lambda: ctx.client.create_game("chess", 2))
    assert "ListGames" in err.details()
    return err


def unknown_option(ctx) -> grpc.RpcError:
    err = refused(lambda: ctx.client.create_game("survive", 2, options={"wind": "strong"}))
    assert "'wind'" in err.details() and "hourglass" in err.details()
    return err


def option_out_of_range(ctx) -> grpc.RpcError:
    return refused(lambda: ctx.client.create_game("leduc_poker", 2, options={"starting_player": "5"}))


def unparseable_move_text(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client)
    err = refused(lambda: ctx.client.act(game.game_id, 0, action_text="fold the table"))
    assert "Pass, Bet" in err.details()
    return err


def illegal_action(ctx) -> grpc.RpcError:
    return refused(lambda: ctx.client.act(kuhn(ctx.client).game_id, 0, action_id=7))


def inconsistent_observation(ctx) -> grpc.RpcError:
    bad = pb.Observation(game="kuhn_poker", kuhn_poker=pb.PokerObservation(players=2, seat=0, cards_dealt=9))
    return refused(lambda: ctx.client.suggest(observation=bad))


def oversized_observation(ctx) -> grpc.RpcError:
    bad = pb.Observation(game="kuhn_poker", kuhn_poker=pb.PokerObservation(players=2, seat=0, bets=[1] * 60))
    return refused(lambda: ctx.client.suggest(observation=bad))


def unknown_algorithm(ctx) -> grpc.RpcError:
    observation = suggest_observation(ctx.client)
    return refused(lambda: ctx.client.suggest(observation=observation, settings=pb.BotSettings(algorithm="alphabeta")))


def not_this_seats_turn(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client)
    assert refused(lambda: ctx.client.bot_move(game.game_id, 1)).code() == grpc.StatusCode.FAILED_PRECONDITION
    return refused(lambda: ctx.client.act(game.game_id, 1, action_id=0))


def game_over(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client, seats=[None, BOT])
    view = ctx.client.get_view(game.game_id, 0)
    while not view.game_over:
        view = ctx.client.act(game.game_id, 0, action_id=view.legal_actions[0].id).view
    return refused(lambda: ctx.client.act(game.game_id, 0, action_id=0))


def stale_move_number(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client)
    return refused(lambda: ctx.client.act(game.game_id, 0, action_id=0, expected_move_number=1))


def suggest_for_a_seat_not_to_act(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client)
    err = refused(lambda: ctx.client.suggest(game_id=game.game_id, seat=1))
    observation = ctx.client.get_view(game.game_id, 1).observation
    assert refused(lambda: ctx.client.suggest(observation=observation)).code() == err.code()
    return err


def unknown_game_id(ctx) -> grpc.RpcError:
    return refused(lambda: ctx.client.get_view("0123456789abcdef", 0, token="x"))


def no_token(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client)
    ctx.client.tokens.pop((game.game_id, 0))
    return refused(lambda: ctx.client.get_view(game.game_id, 0))


def unknown_token(ctx) -> grpc.RpcError:
    return refused(lambda: ctx.client.get_view(kuhn(ctx.client).game_id, 0, token="not-a-token"))


def another_seats_token(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client)
    return refused(lambda: ctx.client.get_view(game.game_id, 1, token=ctx.client.tokens[(game.game_id, 0)]))


def bot_seats_view(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client, seats=[None, BOT])
    return refused(lambda: ctx.client.get_view(game.game_id, 1, token=ctx.client.tokens[(game.game_id, 0)]))


def budget_above_cap(ctx) -> grpc.RpcError:
    observation = suggest_observation(ctx.client)
    return refused(lambda: ctx.client.suggest(observation=observation, settings=pb.BotSettings(iterations=10**7)))


def message_above_4_mb(ctx) -> grpc.RpcError:
    huge = pb.Observation(game="kuhn_poker", kuhn_poker=pb.PokerObservation(players=2, seat=0, bets=[1] * 4_500_000))
    return refused(lambda: ctx.client.suggest(observation=huge))


def searches_waiting_quota(ctx) -> grpc.RpcError:
    busy = ctx.busy(PATIENT)
    holders = occupy(busy.address, 5.0)
    with AtollClient(busy.address, own_connection=True) as flooder:
        observation = suggest_observation(flooder)
        codes = []

        def one() -> None:
            try:
                flooder.suggest(observation=observation, settings=pb.BotSettings(iterations=100))
            except grpc.RpcError as err:
                codes.append(err)

        callers = [threading.Thread(target=one) for _ in range(12)]
        for t in callers:
            t.start()
        for t in callers + holders:
            t.join()
    quota = [e for e in codes if "searches waiting" in e.details()]
    assert quota, [e.details() for e in codes]
    return quota[0]


def streams_quota(ctx) -> grpc.RpcError:
    busy = ctx.busy()
    with AtollClient(busy.address) as c:
        game = kuhn(c)
        open_streams = [c.watch_game(game.game_id, 0) for _ in range(3)]
        for stream in open_streams:
            next(stream)
        err = refused(lambda: c.watch_game(game.game_id, 0))
        for stream in open_streams:
            stream.cancel()
    assert "this caller" in err.details()
    return err


def game_streams_quota(ctx) -> grpc.RpcError:
    game = kuhn(ctx.client)
    open_streams = [ctx.client.watch_game(game.game_id, k % 2) for k in range(64)]  # two tokens: 32 streams each
    for stream in open_streams:
        next(stream)
    err = refused(lambda: ctx.client.watch_game(game.game_id, 0))
    for stream in open_streams:
        stream.cancel()
    assert "watch this game" in err.details()
    return err


def queue_wait_over(ctx) -> grpc.RpcError:
    err = refused_while_busy(ctx, lambda c, obs: c.suggest(observation=obs, settings=pb.BotSettings(iterations=100)))
    assert "no search slot was free within 0.5 s" in err.details()
    return err


def store_cannot_save(ctx) -> grpc.RpcError:
    # Another process holds the store's write lock (a real SQLite lock, as a backup tool or a stray sqlite3 shell
    # would): the move is refused, the game is as it was for its readers and watchers, and after the lock is released
    # and the server restarted, the same position.
    process = ctx.own_server("store")
    with AtollClient(process.address) as c:
        game = kuhn(c)
        before = c.get_view(game.game_id, 0)
        watch = c.watch_game(game.game_id, 0)
        seen = [next(watch).move.move_number, next(watch).move.move_number]
        holder = sqlite3.connect(process.db, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")
        try:
            err = refused(lambda: c.act(game.game_id, 0, action_id=0))
            assert c.get_view(game.game_id, 0) == before
        finally:
            holder.execute("ROLLBACK")
            holder.close()
        got = []

        def read() -> None:
            try:
                got.append(next(watch))
            except grpc.RpcError:  # cancelled below: nothing came
                pass

        reader = threading.Thread(target=read)
        reader.start()
        reader.join(timeout=1.0)
        assert not got and seen == [0, 1]  # the refused move reached no watcher
        watch.cancel()
    process.stop()
    restarted = ServerProcess(process.db).start()
    try:
        with AtollClient(restarted.address) as c:
            c.tokens.update({(game.game_id, 0): game.seats[0].token})
            assert c.get_view(game.game_id, 0) == before
            assert c.act(game.game_id, 0, action_id=0).played.move_number == 2  # and the store works again
    finally:
        restarted.stop()
    return err


def queued_at_shutdown(ctx) -> grpc.RpcError:
    process = ctx.own_server("shutdown", PATIENT)
    holders = occupy(process.address, 20.0)
    with AtollClient(process.address, own_connection=True) as c:
        observation = suggest_observation(c)
        errors = []
        waiting = threading.Thread(target=lambda: errors.append(refused(lambda: c.suggest(observation=observation))))
        waiting.start()
        time.sleep(1.0)  # queued by now: the one search thread is the holder's for 20 s
        process.proc.send_signal(signal.SIGTERM)
        waiting.join(timeout=30)
        for t in holders:
            t.join(timeout=30)
    process.proc.wait(timeout=60)
    assert "shutting down" in errors[0].details()
    return errors[0]


def caller_went_away(ctx) -> grpc.RpcError:
    log = ctx.tmp / "cancel.log"
    process = ctx.own_server("cancel", log=log)
    with AtollClient(process.address) as c:
        observation = suggest_observation(c)
        call = c.stub.Analyze(pb.SuggestRequest(observation=observation, settings=pb.BotSettings(time_ms=20_000)))
        next(call)  # the first interim result: the search is running
        call.cancel()
        err = refused(lambda: next(call))
    deadline = time.monotonic() + 30
    while '"error": "CANCELLED"' not in log.read_text():
        assert time.monotonic() < deadline, "the server did not log the cancelled call"
        time.sleep(0.1)
    process.stop()
    assert re.search(r'"error": "CANCELLED".*"method": "Analyze"', log.read_text())
    return err


def deadline_before_a_slot(ctx) -> grpc.RpcError:
    # A server whose queue would wait 30 s: the 2 s deadline comes first, and the server says so before it passes.
    err = refused_while_busy(
        ctx, lambda c, obs: c.stub.Suggest(pb.SuggestRequest(observation=obs), timeout=2.0), busy=ctx.busy(PATIENT)
    )
    assert "deadline came before a search slot was free" in err.details()  # the server's words, not the client's
    return err


CASES = {
    "bytes that are no message of the request's type": garbage_bytes,
    "a request above 64 KB": request_above_64_kb,
    "an unknown game (the message says ListGames lists them)": unknown_game,
    "an unknown option (the message names it and lists the valid ones)": unknown_option,
    "an option value out of range": option_out_of_range,
    "unparseable move text (the message lists the legal moves as the seat sees them)": unparseable_move_text,
    "an illegal action": illegal_action,
    "an inconsistent observation": inconsistent_observation,
    "an oversized observation": oversized_observation,
    "an unknown algorithm": unknown_algorithm,
    "an Act or BotMove for a seat that is not to act": not_this_seats_turn,
    "an Act on a finished game": game_over,
    "a stale `expected_move_number`": stale_move_number,
    "a Suggest for a seat that is not to act": suggest_for_a_seat_not_to_act,
    "an unknown game id": unknown_game_id,
    "no token": no_token,
    "an unknown token": unknown_token,
    "another seat's token": another_seats_token,
    "a bot seat's view": bot_seats_view,
    "a budget above the cap": budget_above_cap,
    "a message above 4 MB": message_above_4_mb,
    "a caller with its quota of searches waiting": searches_waiting_quota,
    "a caller with its quota of streams open": streams_quota,
    "a game with its quota of streams watching it": game_streams_quota,
    "no search thread free within the queue's wait": queue_wait_over,
    "the store could not save the move (nothing of it was played; retry)": store_cannot_save,
    "a search queued when the server shuts down": queued_at_shutdown,
    "the caller went away (the server's log line says so)": caller_went_away,
    "the call's deadline came before a search thread was free": deadline_before_a_slot,
}


class Context:
    """What a case may use: the module's server and client, a busy server (``BUSY``) shared by the cases that need
    one, and servers of their own."""

    def __init__(self, server, client, tmp: Path):
        self.server, self.client, self.tmp = server, client, tmp
        self.address = server.address
        self._busy: dict[tuple[str, ...], ServerProcess] = {}
        self._own: list[ServerProcess] = []

    def busy(self, settings: tuple[str, ...] = BUSY) -> ServerProcess:
        """A server with ``settings`` (BUSY or PATIENT), shared by the cases that use the same."""
        if settings not in self._busy:
            name = "busy" if settings == BUSY else "patient"
            self._busy[settings] = ServerProcess(self.tmp / f"{name}.sqlite3", settings).start()
        return self._busy[settings]

    def own_server(self, name: str, extra: tuple[str, ...] = (), log: Path | None = None) -> ServerProcess:
        process = ServerProcess(self.tmp / f"{name}.sqlite3", extra, log).start()
        self._own.append(process)
        return process

    def close(self) -> None:
        for process in self._own + list(self._busy.values()):
            process.stop()


@pytest.fixture(scope="module")
def ctx(server, tmp_path_factory):
    with AtollClient(server.address) as client:
        context = Context(server, client, tmp_path_factory.mktemp("statuses"))
        yield context
        context.close()


ROWS = table_rows()


def test_the_table_has_a_case_for_every_row_and_a_row_for_every_case():
    assert [when for _, when in ROWS if when not in CASES] == [], "a status row without a test: add it to CASES"
    assert sorted(set(CASES) - {when for _, when in ROWS}) == [], "a case for a row that is gone"


@pytest.mark.parametrize("status, when", ROWS, ids=[f"{s}: {w[:50]}" for s, w in ROWS])
def test_each_documented_status_is_the_one_the_server_answers(ctx, status, when):
    if when not in CASES:
        pytest.fail(f"no test for the documented case {when!r} ({status})")
    err = CASES[when](ctx)
    assert err.code() == getattr(grpc.StatusCode, status), (when, err.code(), err.details())
