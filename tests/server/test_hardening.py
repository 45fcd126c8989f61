"""A hostile or careless client against a real server: nothing runs unpaid, nothing starves the others, every input
gets its right status, and the store keeps its secrets (service hardening)."""

import json
import os
import random
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time

import grpc
import pytest
from conftest import ROOT, ServerProcess, refused
from conftest import field_violations as field_of

import engine_ext
from atoll.client import AtollClient
from atoll.v1 import atoll_pb2 as pb
from search import bench
from server import codec

# Health latency under load is a benchmark's figure (benchmarks/hosting_load.py); a test asserts that health checks
# are answered while the load runs, with bounds no busy machine reaches.


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def assert_idle(server: ServerProcess, settle_s: float = 0.3, window_s: float = 1.0) -> None:
    """The server burns (almost) no CPU once the work it was asked for is abandoned."""
    time.sleep(settle_s)
    before = cpu_seconds(server.proc.pid)
    time.sleep(window_s)
    used = cpu_seconds(server.proc.pid) - before
    assert used < 0.1 * window_s, f"the server used {used:.2f} s of CPU in {window_s} s with nobody waiting"


PROBE_SCRIPT = """
import json, sys, threading, time
import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
stub = health_pb2_grpc.HealthStub(grpc.insecure_channel(sys.argv[1]))
stub.Check(health_pb2.HealthCheckRequest(), timeout=5)  # connect first: the first call pays the handshake
done = threading.Event()
threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
print("ready", flush=True)
latencies = []
while not done.is_set():
    started = time.perf_counter()
    stub.Check(health_pb2.HealthCheckRequest(), timeout=5)
    latencies.append(time.perf_counter() - started)
    time.sleep(0.02)
print(json.dumps(latencies), flush=True)
"""


class HealthProbe:
    """Health checks every 20 ms while a test runs, from a process of their own (so what the test itself does with
    its GIL cannot delay them: they time the server); ``latencies`` in seconds once the block ends."""

    def __init__(self, address: str):
        self.address = address
        self.latencies: list[float] = []

    def __enter__(self) -> "HealthProbe":
        self.proc = subprocess.Popen(
            [sys.executable, "-c", PROBE_SCRIPT, self.address],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.proc.stdout.readline().strip() == "ready"
        return self

    def __exit__(self, *exc) -> None:
        out, _ = self.proc.communicate(timeout=30)
        self.latencies = json.loads(out.strip().splitlines()[-1])


def survive_observation() -> pb.Observation:
    """Seat 0's first Action phase of a 4-player game (set-up placements are greedy's by default, not a search)."""
    state = engine_ext.new_game("survive", 4, seed=2)
    rng = random.Random(2)
    while state.in_setup() or state.current_player() != 0:
        if state.current_player() == engine_ext.CHANCE:
            bench.random_step(state, rng)
        else:
            state.apply(rng.choice(state.legal_actions()))
    return codec.observation_to_proto(state.observation(0))


# --- 4: the store ---------------------------------------------------------------------------------------------------
def test_the_default_store_is_readable_by_its_owner_only(tmp_path):
    env = dict(os.environ, XDG_DATA_HOME=str(tmp_path / "data"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        address = proc.stdout.readline().split()[3]
        with AtollClient(address) as client:
            client.create_game("kuhn_poker", 2)
        folder = tmp_path / "data" / "atoll"
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        for path in folder.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path.name
        assert (folder / "games.sqlite3").exists()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


# --- 5, 6, 7: no work without a caller, no client starves the others ---------------------------------------------
def test_two_hundred_idle_watchers_are_all_served_and_unary_calls_still_answer(server, client):
    # Idle streams cost no thread (the server is asyncio): 200 of them, 50 from each of four connections, all open.
    games = [client.create_game("kuhn_poker", 2) for _ in range(25)]
    channels = [grpc.insecure_channel(server.address) for _ in range(4)]
    streams = []
    with HealthProbe(server.address) as probe:
        for k in range(200):
            game = games[k % len(games)]
            auth = [("authorization", f"Bearer {client.tokens[(game.game_id, 0)]}")]
            stub = pb_stub(channels[k % len(channels)])
            streams.append(stub.WatchGame(pb.WatchGameRequest(game_id=game.game_id, seat=0), metadata=auth))
        first = [next(call).move.move_number for call in streams]  # each is sent the game's two deals at once
        assert client.list_games() and client.get_view(games[0].game_id, 0).move_number == 2
    for call in streams:
        call.cancel()
    for channel in channels:
        channel.close()
    assert first == [0] * 200
    assert probe.latencies  # every check answered in its 5 s timeout (the latency is benchmarks/hosting_load.py's)


def pb_stub(channel):
    from atoll.v1 import atoll_pb2_grpc

    return atoll_pb2_grpc.AtollStub(channel)


def test_play_game_stops_when_its_stream_is_cancelled(server, client):
    call = client.play_game("survive", 4, bots=[pb.BotSettings(iterations=200_000)] * 4)
    next(call)
    call.cancel()
    assert_idle(server)


def test_oversized_observations_are_refused_before_any_work_and_health_stays_fast(server):
    huge = pb.Observation(game="kuhn_poker", kuhn_poker=pb.PokerObservation(players=2, seat=0, bets=[1] * 3_900_000))
    payload = pb.SuggestRequest(observation=huge).SerializeToString()  # serialised once, outside the timed window
    codes = []
    load_s = 1.0  # six senders repeat for a second (about 100 requests of 4 MB), so health is timed under load often

    def send():
        channel = grpc.insecure_channel(server.address)
        until = time.perf_counter() + load_s
        while True:
            try:
                channel.unary_unary("/atoll.v1.Atoll/Suggest")(payload, timeout=20)
                codes.append("OK")
            except grpc.RpcError as err:
                codes.append(err.code().name)
            if time.perf_counter() > until:
                break
            time.sleep(0.05)
        channel.close()

    with HealthProbe(server.address) as probe:
        senders = [threading.Thread(target=send) for _ in range(6)]
        for t in senders:
            t.start()
        for t in senders:
            t.join()
    assert len(codes) >= 6 and set(codes) == {"INVALID_ARGUMENT"}, codes
    assert probe.latencies  # every check answered in its 5 s timeout (the latency is benchmarks/hosting_load.py's)


def test_an_observation_larger_than_any_real_one_of_its_game_is_refused_naming_it(client):
    bloated = pb.Observation(game="kuhn_poker", kuhn_poker=pb.PokerObservation(players=2, seat=0, bets=[1] * 30_000))
    err = refused(lambda: client.suggest(observation=bloated))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field_of(err) == ["observation.kuhn_poker"]
    long_list = pb.Observation(game="kuhn_poker", kuhn_poker=pb.PokerObservation(players=2, seat=0, bets=[1] * 60))
    err = refused(lambda: client.suggest(observation=long_list))
    assert field_of(err) == ["observation.kuhn_poker.bets"] and "at most 40" in err.details()


# --- 8-13: right answers and right statuses -------------------------------------------------------------------------
def test_a_bot_given_only_a_time_keeps_no_iteration_count(server, client):
    timed = pb.SeatConfig(is_bot=True, bot=pb.BotSettings(time_ms=30))
    game = client.create_game("kuhn_poker", 2, seats=[None, timed])
    with sqlite3.connect(server.db) as con:
        seats = json.loads(con.execute("SELECT seats FROM games WHERE id=?", (game.game_id,)).fetchone()[0])
    assert seats[1] == {"is_bot": True, "bot": {"time_ms": 30.0}}


def test_a_suggest_cut_by_its_deadline_says_it_stopped_early(client):
    reply = client.suggest(observation=survive_observation(), settings=pb.BotSettings(iterations=400_000), timeout=0.4)
    assert reply.stats.stopped_early and 0 < reply.stats.iterations < 400_000
    full = client.suggest(observation=survive_observation(), settings=pb.BotSettings(iterations=300))
    assert not full.stats.stopped_early and full.stats.iterations == 300


def test_analyze_ends_with_its_strongest_search(client):
    replies = list(client.analyze(observation=survive_observation(), settings=pb.BotSettings(time_ms=700)))
    assert replies[-1].final and sum(r.final for r in replies) == 1
    assert replies[-1].stats.iterations == max(r.stats.iterations for r in replies)
    assert replies[-1].stats.stopped_early, "a time budget cut the last search"


def test_large_seeds_and_option_values_get_an_answer_not_a_traceback(client):
    game = client.create_game("survive", 2, seed=2**64 - 1)
    assert client.get_view(game.game_id, 0).move_number == 0
    err = refused(lambda: client.create_game("leduc_poker", 2, options={"starting_player": "9" * 30}))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field_of(err) == ["options.starting_player"]
    assert "0..9" in err.details()
    err = refused(lambda: client.create_game("leduc_poker", 2, options={"starting_player": "5"}))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field_of(err) == ["options.starting_player"]


def test_errors_never_echo_unbounded_input(client):
    long_id = "g" * 3000
    err = refused(lambda: client.get_view(long_id, 0, token="t"))
    assert err.code() == grpc.StatusCode.NOT_FOUND and len(err.details()) < 200
    game = client.create_game("kuhn_poker", 2)
    err = refused(lambda: client.act(game.game_id, 0, action_text="x" * 3000))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and len(err.details()) < 400
    err = refused(lambda: client.create_game("g" * 3000, 2))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and len(err.details()) < 200


@pytest.mark.parametrize(
    "method", ["ListGames", "CreateGame", "GetView", "Act", "Suggest", "BotMove", "Analyze", "WatchGame", "PlayGame"]
)
def test_bytes_that_are_no_message_are_invalid_argument(server, method):
    channel = grpc.insecure_channel(server.address)
    streaming = method in ("Analyze", "WatchGame", "PlayGame")
    call = (channel.unary_stream if streaming else channel.unary_unary)(f"/atoll.v1.Atoll/{method}")
    err = refused(lambda: call(b"\xff\xff\xff\xff", timeout=5))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
    channel.close()


def test_an_unknown_option_is_named_with_the_valid_ones(client):
    err = refused(lambda: client.create_game("survive", 2, options={"hourglas": "beach"}))
    assert field_of(err) == ["options.hourglas"] and "hourglass, layout" in err.details()
    err = refused(lambda: client.create_game("survive", 2, options={"hourglass": "sand"}))
    assert field_of(err) == ["options.hourglass"] and "beach_forest, beach" in err.details()


def test_an_over_cap_play_game_bot_is_named_by_its_entry(client):
    err = refused(lambda: client.play_game("kuhn_poker", 2, bots=[pb.BotSettings(), pb.BotSettings(iterations=10**9)]))
    assert err.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and field_of(err) == ["bots[1].iterations"]


def test_another_games_fields_in_an_observation_are_refused(client):
    state = engine_ext.new_game("kuhn_poker", 2)
    state.apply(2)
    state.apply(0)
    observation = codec.observation_to_proto(state.observation(0))
    observation.kuhn_poker.public_card = 3  # a Leduc field
    err = refused(lambda: client.suggest(observation=observation))
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field_of(err) == ["observation.kuhn_poker.public_card"]


# --- 14: shutdown and logs ----------------------------------------------------------------------------------------
def test_sigterm_answers_a_running_suggest_with_its_best_move_so_far(tmp_path):
    process = ServerProcess(tmp_path / "games.sqlite3")
    process.start()
    replies = []

    def ask():
        with AtollClient(process.address) as c:
            replies.append(c.suggest(observation=survive_observation(), settings=pb.BotSettings(time_ms=20_000)))

    asker = threading.Thread(target=ask)
    asker.start()
    time.sleep(1.0)
    started = time.perf_counter()
    process.proc.send_signal(signal.SIGTERM)
    asker.join(timeout=10)
    assert replies and replies[0].moves and replies[0].stats.stopped_early
    assert time.perf_counter() - started < 10.0  # at once, not after the search's 20 s
    assert process.proc.wait(timeout=60) == 0


def test_every_call_writes_one_log_line_even_when_it_fails(tmp_path):
    log = tmp_path / "server.log"
    with open(log, "w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3")],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=sink,
            text=True,
        )
        try:
            address = proc.stdout.readline().split()[3]
            with AtollClient(address) as client:
                refused(lambda: client.create_game("chess", 2))
                refused(lambda: list(client.analyze(observation=pb.Observation(game="survive"))))
                client.list_games()
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)  # grace is 5 s; a loaded 2-core machine needs more to start and stop
    entries = [
        json.loads(line.split(" atoll.server ", 1)[1]) for line in log.read_text().splitlines() if "method" in line
    ]
    assert [(e["method"], e.get("error")) for e in entries] == [
        ("CreateGame", "INVALID_ARGUMENT"),
        ("Analyze", "INVALID_ARGUMENT"),
        ("ListGames", None),
    ]


def test_a_bot_seat_can_be_given_a_strength_level(server, client):
    from search.play import level_settings

    leveled = pb.SeatConfig(is_bot=True, bot=pb.BotSettings(level=5))
    game = client.create_game("kuhn_poker", 2, seats=[None, leveled])
    with sqlite3.connect(server.db) as con:
        seats = json.loads(con.execute("SELECT seats FROM games WHERE id=?", (game.game_id,)).fetchone()[0])
    # the game's own ladder (Kuhn's level 5: 300 iterations, scaled exploration 2), exactly as the arena measured it
    assert seats[1]["bot"] == level_settings("kuhn_poker", 5).to_dict()
    assert seats[1]["bot"] == {"iterations": 300, "scaled_exploration": True, "exploration": 2.0}
    err = refused(
        lambda: client.create_game(
            "kuhn_poker", 2, seats=[None, pb.SeatConfig(is_bot=True, bot=pb.BotSettings(level=6))]
        )
    )
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT and field_of(err) == ["seats[1].bot.level"]
    both = pb.SeatConfig(is_bot=True, bot=pb.BotSettings(level=2, iterations=50))
    err = refused(lambda: client.create_game("kuhn_poker", 2, seats=[None, both]))
    assert field_of(err) == ["seats[1].bot.level"]
