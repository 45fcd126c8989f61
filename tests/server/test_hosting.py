"""Hosting under real traffic, against real server processes: no request waits for another's search, budgets and
deadlines mean what docs/api.md says, one store and one port have one owner, errors name the right thing.

Every assertion is about behaviour (which status, which move, whether a call was answered); latencies are the
figures of ``benchmarks/hosting_load.py``. Deadlines here are generous: a busy machine cannot reach them."""

import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import grpc
import pytest
from conftest import ROOT, ServerProcess, field_violations
from grpc_health.v1 import health_pb2, health_pb2_grpc

from atoll.client import AtollClient
from atoll.v1 import atoll_pb2 as pb
from atoll.v1 import atoll_pb2_grpc


def thinking_bot(ms: int) -> pb.SeatConfig:
    return pb.SeatConfig(is_bot=True, bot=pb.BotSettings(time_ms=ms))


def status(call) -> grpc.StatusCode:
    try:
        call()
        return grpc.StatusCode.OK
    except grpc.RpcError as err:
        return err.code()


def act_until_the_bots_think(client: AtollClient, game_id: str, seat: int, timeout: float) -> pb.ActResponse:
    """Seat ``seat`` plays its first legal move until a reply comes back before the bots answered."""
    view = client.get_view(game_id, seat)
    for _ in range(200):
        reply = client.stub.Act(
            pb.ActRequest(game_id=game_id, seat=seat, action_id=view.legal_actions[0].id),
            timeout=timeout,
            metadata=client._auth(game_id, seat, None),
        )
        if reply.bots_thinking:
            return reply
        view = reply.view
    raise AssertionError("the bots never took longer than the call's deadline")


@pytest.fixture
def own_server(tmp_path):
    process = ServerProcess(tmp_path / "games.sqlite3").start()
    yield process
    process.stop()


@pytest.fixture
def store_server(store_spec):
    """A server on each store in turn, for the tests whose promise is the store's (commits, ownership, restarts)."""
    process = ServerProcess(store_spec).start()
    yield process
    process.stop()


# --- 1, 2: one game's thinking bots stall nobody --------------------------------------------------------------------
def test_reads_and_other_calls_are_answered_while_a_games_bots_think(store_server):
    with AtollClient(store_server.address) as client:
        game = client.create_game(
            "islet", 4, seats=[None, thinking_bot(20_000), thinking_bot(20_000), thinking_bot(20_000)]
        )
        other = client.create_game("kuhn_poker", 2)
        # The Act answers before its 5 s deadline: the human's move is stored, the bots think on as the game's job.
        acted = act_until_the_bots_think(client, game.game_id, 0, timeout=5.0)
        assert acted.view.current_player != 0 and not acted.view.game_over
        health = health_pb2_grpc.HealthStub(client.channel)
        with ThreadPoolExecutor(80) as pool:
            views = [pool.submit(client.get_view, game.game_id, 0) for _ in range(70)]
            others = [
                pool.submit(lambda: health.Check(health_pb2.HealthCheckRequest(), timeout=5)),
                pool.submit(client.list_games),
                pool.submit(client.get_view, other.game_id, 0),
                pool.submit(client.suggest, game_id=game.game_id, seat=0, settings=pb.BotSettings(iterations=200)),
            ]
            seen = [f.result().move_number for f in views]  # no DEADLINE_EXCEEDED: each within the client's 30 s
            for f in others[:3]:
                f.result()
            # A hosted Suggest for a seat that is not to act is refused at once; it never waits for the bots.
            assert others[3].exception().code() == grpc.StatusCode.FAILED_PRECONDITION
        assert set(seen) == {acted.view.move_number}  # the committed position, while the bot is still thinking
        created = time.perf_counter()
        client.create_game("kuhn_poker", 2, seats=[None, pb.SeatConfig(is_bot=True)])
        assert time.perf_counter() - created < 10.0  # not behind the bots' 20 s


def test_stateless_suggests_are_served_while_hosted_bots_think(own_server):
    with AtollClient(own_server.address) as client:
        for _ in range(3):  # three games whose bots take 20 s a move
            game = client.create_game("islet", 2, seats=[None, thinking_bot(20_000)])
            act_until_the_bots_think(client, game.game_id, 0, timeout=5.0)
        kuhn = client.create_game("kuhn_poker", 2)
        observation = client.get_view(kuhn.game_id, 0).observation
        codes = []
        with ThreadPoolExecutor(6) as pool:
            for reply in pool.map(
                lambda _: status(
                    lambda: client.suggest(observation=observation, settings=pb.BotSettings(iterations=500))
                ),
                range(12),
            ):
                codes.append(reply)
        assert codes == [grpc.StatusCode.OK] * 12


# --- 3: streams cost nothing idle; quotas per caller ---------------------------------------------------------------
def test_a_flooding_caller_is_held_to_its_quota_and_a_lone_caller_is_still_served(own_server, tmp_path):
    flooding = AtollClient(own_server.address, own_connection=True)
    with flooding as flooder, AtollClient(own_server.address, own_connection=True) as lone:
        kuhn = flooder.create_game("kuhn_poker", 2)
        observation = flooder.get_view(kuhn.game_id, 0).observation
        slow = pb.BotSettings(time_ms=1500)
        with ThreadPoolExecutor(40) as pool:
            flood = [
                pool.submit(status, lambda: flooder.suggest(observation=observation, settings=slow)) for _ in range(40)
            ]
            time.sleep(0.5)
            # One search of the lone caller among the flood: queued fairly, answered, not refused.
            reply = lone.suggest(observation=observation, settings=pb.BotSettings(iterations=300))
            codes = [f.result() for f in flood]
        assert reply.stats.iterations == 300
        assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes  # beyond its queue quota, the flooder is refused
        assert grpc.StatusCode.OK in codes


def test_stream_quotas_are_per_caller_and_play_game_counts_against_them(tmp_path):
    process = ServerProcess(tmp_path / "games.sqlite3", ("--streams-per-caller", "5")).start()
    try:
        with AtollClient(process.address) as one, AtollClient(process.address, own_connection=True) as two:
            game = one.create_game("kuhn_poker", 2)
            two.tokens.update(one.tokens)
            mine = [one.watch_game(game.game_id, 0) for _ in range(5)]
            for stream in mine:
                assert next(stream).move.move_number == 0
            # A sixth stream of the same caller (its token) is refused; PlayGame from a connection of its own is not.
            with pytest.raises(grpc.RpcError) as err:
                next(one.watch_game(game.game_id, 0))
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and "this caller" in err.value.details()
            slow = [pb.BotSettings(time_ms=5000)] * 2  # each game's first bot thinks 5 s: its stream stays open
            plays = [two.play_game("kuhn_poker", 2, bots=slow) for _ in range(5)]
            for stream in plays:
                next(stream)
            with pytest.raises(grpc.RpcError) as err:
                next(two.play_game("kuhn_poker", 2, bots=slow))
            assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            for stream in mine + plays:
                stream.cancel()
    finally:
        process.stop()


# --- 4, 5: budgets and deadlines ----------------------------------------------------------------------------------
def test_a_suggest_without_settings_runs_the_documented_thousand_iterations(own_server):
    with AtollClient(own_server.address) as client:  # the client's default 30 s deadline is no budget
        game = client.create_game("kuhn_poker", 2, seed=3)
        reply = client.suggest(game_id=game.game_id, seat=0)
        assert reply.stats.iterations == 1000 and not reply.stats.stopped_early
        alone = client.suggest(observation=client.get_view(game.game_id, 0).observation)
        assert alone.stats.iterations == 1000


def test_a_time_budget_cut_by_the_deadline_says_it_stopped_early(own_server):
    with AtollClient(own_server.address) as client:
        game = client.create_game("kuhn_poker", 2, seed=3)
        observation = client.get_view(game.game_id, 0).observation
        reply = client.suggest(observation=observation, settings=pb.BotSettings(time_ms=20_000), timeout=2.0)
        assert reply.stats.stopped_early and reply.stats.elapsed_ms < 2000
        whole = client.suggest(observation=observation, settings=pb.BotSettings(time_ms=50), timeout=20.0)
        assert not whole.stats.stopped_early  # it had all the time it asked for


# --- 6: one store, one owner ----------------------------------------------------------------------------------------
def test_a_second_server_on_the_same_store_or_port_exits_with_one_line(store_server, tmp_path):
    if store_server.store_flag()[0] == "--store":  # a PostgreSQL store is shared: a second server is a replica
        replica = ServerProcess(store_server.db).start()
        replica.stop()
        assert replica.proc.returncode == 0
    else:
        second = subprocess.run(
            [sys.executable, "-m", "server.cli", "serve", "--port", "0", *store_server.store_flag()],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode == 1 and second.stdout == ""
        assert second.stderr.strip().splitlines() == [
            f"atoll serve: the store {store_server.db} is in use by another server (pid {store_server.proc.pid})"
        ]
    port = store_server.address.rsplit(":", 1)[1]
    third = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", port, "--db", str(tmp_path / "other.sqlite3")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert third.returncode == 1 and "listening" not in third.stdout
    assert third.stderr.strip().splitlines() == [
        f"atoll serve: cannot listen on 127.0.0.1:{port}: address already in use"
    ]
    with AtollClient(store_server.address) as client:  # the first server is untouched
        assert client.list_games()


# --- 7: errors name the right thing ---------------------------------------------------------------------------------
def test_move_errors_name_the_move_number_and_the_callers_text(store_server):
    with AtollClient(store_server.address) as client:
        game = client.create_game("survive", 2, seed=3)
        view = client.get_view(game.game_id, 0)
        for _ in range(6):
            seat = client.act(game.game_id, view.current_player, action_id=view.legal_actions[0].id).view.current_player
            view = client.get_view(game.game_id, seat)
        err = pytest.raises(grpc.RpcError, client.act, game.game_id, view.current_player, action_text="zzz qqq").value
        assert f"at move {view.move_number}:" in err.details() and field_violations(err) == ["action_text"]
        assert "is not a move of Survive The Island" in err.details()
        placed = view.legal_actions[0].text  # well formed, but that cell is no longer free for the next placement
        seat = client.act(game.game_id, view.current_player, action_id=view.legal_actions[0].id).view.current_player
        taken = client.get_view(game.game_id, seat)
        err = pytest.raises(grpc.RpcError, client.act, game.game_id, taken.current_player, action_text=placed).value
        assert err.details().startswith(f"{placed!r} is not legal for seat {taken.current_player}")
        assert f"at move {taken.move_number}:" in err.details()
        islet = client.create_game("islet", 2, seed=1)
        err = pytest.raises(grpc.RpcError, client.act, islet.game_id, 0, action_text="fly").value
        assert "'fly' is not a move of Islet" in err.details()
        err = pytest.raises(grpc.RpcError, client.create_game, "survive", 2, options={"layout": "b" * 40}).value
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field_violations(err) == ["options.layout"]


def test_an_absurd_token_is_unauthenticated(own_server):
    with AtollClient(own_server.address) as client:
        game = client.create_game("kuhn_poker", 2)
        for token in ("x" * 300, "y" * 10_000):
            err = pytest.raises(grpc.RpcError, client.get_view, game.game_id, 0, token=token).value
            assert err.code() == grpc.StatusCode.UNAUTHENTICATED


# --- a caller that goes away, a restart, a shutdown under load -----------------------------------------------------
def test_a_game_goes_on_when_its_creator_goes_away_and_after_a_restart(store_spec):
    db = store_spec
    process = ServerProcess(db).start()
    bot = thinking_bot(6000)
    try:
        with AtollClient(process.address) as client:
            stub = atoll_pb2_grpc.AtollStub(client.channel)
            request = pb.CreateGameRequest(game="leduc_poker", players=2, seed=5, seats=[bot, pb.SeatConfig()])
            created = stub.CreateGame(request, timeout=2.0)
            assert created.bots_thinking and created.move_number == 2  # dealt; the bot (seat 0) thinks on
            token = next(s.token for s in created.seats if s.token)
            client.tokens[(created.game_id, 1)] = token
            deadline = time.monotonic() + 60
            while client.get_view(created.game_id, 1).current_player != 1:
                assert time.monotonic() < deadline, "the bot never moved"
                time.sleep(0.1)
            # The human raises (or calls), and the server stops while the bot thinks: its move is not stored...
            view = client.get_view(created.game_id, 1)
            texts = {a.text: a.id for a in view.legal_actions}
            action = texts.get("Raise", texts.get("Call"))
            reply = client.stub.Act(
                pb.ActRequest(game_id=created.game_id, seat=1, action_id=action),
                timeout=2.0,
                metadata=client._auth(created.game_id, 1, None),
            )
            assert reply.bots_thinking and reply.view.current_player == 0
            at = reply.view.move_number
    finally:
        process.stop()
    restarted = ServerProcess(db).start()  # ...and the restarted server's job plays it
    try:
        with AtollClient(restarted.address) as client:
            client.tokens[(created.game_id, 1)] = token
            deadline = time.monotonic() + 60
            while client.get_view(created.game_id, 1).move_number == at:
                assert time.monotonic() < deadline, "the restarted server never played the bot's move"
                time.sleep(0.1)
            now = client.get_view(created.game_id, 1).move_number
            stream = client.watch_game(created.game_id, 1)
            moves = [next(stream).move.move_number for _ in range(now)]
            stream.cancel()
            assert moves == list(range(now)) and now > at  # every move once, none twice
    finally:
        restarted.stop()


def test_sigterm_stops_the_server_promptly_while_searches_and_bots_run(tmp_path):
    process = ServerProcess(tmp_path / "games.sqlite3").start()
    with AtollClient(process.address) as client:
        for _ in range(2):
            game = client.create_game("islet", 2, seats=[None, thinking_bot(30_000)])
            act_until_the_bots_think(client, game.game_id, 0, timeout=5.0)
        kuhn = client.create_game("kuhn_poker", 2)
        observation = client.get_view(kuhn.game_id, 0).observation
        answers, codes = [], []

        def ask() -> None:  # each from a connection of its own: two run (one slot per caller), the third queues
            with AtollClient(process.address, own_connection=True) as asker:
                try:
                    answers.append(asker.suggest(observation=observation, settings=pb.BotSettings(time_ms=30_000)))
                except grpc.RpcError as err:
                    codes.append(err.code())

        askers = [threading.Thread(target=ask) for _ in range(3)]
        for asker in askers:
            asker.start()
        time.sleep(1.0)
        process.proc.send_signal(signal.SIGTERM)
        assert process.proc.wait(timeout=25) == 0  # not after the 30 s searches
        for asker in askers:
            asker.join(timeout=30)
    # The running searches answer with their best move so far; the queued one hears that the server is going.
    assert len(answers) == 2 and all(a.stats.stopped_early for a in answers)
    assert codes == [grpc.StatusCode.UNAVAILABLE]
