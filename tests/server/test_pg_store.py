"""Hosted games in PostgreSQL (``atoll serve --store postgresql://...``), against the real PostgreSQL server of this
machine (127.0.0.1:5432, trust auth): each test in a database of its own (``pg_dsn`` in conftest.py). Without a
reachable PostgreSQL these tests skip with one line; under ``CI=true`` they fail instead. The hosting contract tests
(test_hosting.py) run against both stores."""

import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from atoll.v1 import atoll_pb2 as pb
from atoll.v1 import atoll_pb2_grpc
from server.store import GameRecord, GameStore, MovedOnError, NotOwnerError

psycopg = pytest.importorskip("psycopg")
from server.pg_store import PostgresStore, StoreVersionError, redacted  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RECORD = GameRecord("g1", "survive", 3, 2**64 - 5, {"hourglass": "beach"}, [{"is_bot": False}, {"is_bot": True,
                    "bot": {"level": 3}}, {"is_bot": False}], ["a" * 64, "", "b" * 64])  # fmt: skip


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        made = GameStore(tmp_path / "games.sqlite3")
    else:
        made = PostgresStore(request.getfixturevalue("pg_dsn"))
    yield made
    made.close()


def test_a_game_and_its_moves_come_back_as_stored(store):
    store.create(RECORD, [5, 7])
    store.append("g1", 2, [11, 13])
    assert store.load("g1") == (RECORD, [5, 7, 11, 13])
    assert store.load("nope") is None and store.game_ids() == ["g1"]


def test_a_move_number_taken_is_refused_and_nothing_of_the_batch_is_kept(store):
    store.create(RECORD, [5])
    with pytest.raises(Exception):  # noqa: B017 - sqlite3.IntegrityError or psycopg.errors.UniqueViolation
        store.append("g1", 1, [6, 7]) or store.append("g1", 2, [8, 9])
    assert store.load("g1")[1] == [5, 6, 7]
    with pytest.raises(Exception):  # noqa: B017
        store.append("g1", 3, [1, 2]) or store.append("g1", 4, [3])  # 4 is taken by the first: all of it refused
    assert store.load("g1")[1] == [5, 6, 7, 1, 2]


def test_a_games_bots_belong_to_one_live_replica_until_its_heart_stops(pg_dsn):
    store = PostgresStore(pg_dsn)
    try:
        store.create(RECORD, [], owner="r1", bots_due=True)
        with psycopg.connect(pg_dsn, autocommit=True) as hearts:
            store.beat(hearts, "r1", "a:1")
            store.beat(hearts, "r2", "b:1")
            assert store.claim("g1", "r1", 5.0) and not store.claim("g1", "r2", 5.0)
            assert store.claim_orphans("r2", 5.0) == []
            with pytest.raises(NotOwnerError):  # a bot's move from a replica that does not own the game
                store.append("g1", 0, [3], owner="r2", bots_due=True)
            store.append("g1", 0, [3], owner="r1", bots_due=True)
            hearts.execute("UPDATE replicas SET seen = now() - interval '10 seconds' WHERE id = 'r1'")
            assert store.claim_orphans("r2", 5.0) == ["g1"]  # r1's heart stopped: r2 takes its bots over
            with pytest.raises(NotOwnerError):  # and r1, back from a pause, cannot play them any more
                store.append("g1", 1, [4], owner="r1")
            store.append("g1", 1, [4], owner="r2", bots_due=False)
            with pytest.raises(MovedOnError):  # a human's move computed at move 1
                store.append("g1", 1, [9])
            assert store.tail("g1", 1) == [4] and store.load("g1")[1] == [3, 4]
            store.leave("r2")
            assert store.claim_orphans("r1", 5.0) == []  # no bots to act: nothing to take over
            assert store.claim("g1", "r1", 5.0)  # nobody owns it after r2 left
            store.forget_gone(hearts, older_s=5.0)  # r1's row, silent for 10 s, goes
            assert hearts.execute("SELECT count(*) FROM replicas").fetchone()[0] == 0
    finally:
        store.close()


def test_a_store_of_the_first_schema_is_migrated_with_its_games(pg_dsn):
    from server.pg_store import MIGRATIONS

    with psycopg.connect(pg_dsn, autocommit=True) as con:  # a store as the first PostgreSQL release left it
        con.execute("CREATE TABLE atoll_schema (version INTEGER NOT NULL)")
        for statement in MIGRATIONS[1]:
            con.execute(statement)
        con.execute("INSERT INTO atoll_schema (version) VALUES (1)")
        con.execute(
            "INSERT INTO games VALUES ('g1', 'survive', 3, 'xfffffffffffffffb', '{\"hourglass\": \"beach\"}',"
            " %s, %s, 0, 2)",
            (psycopg.types.json.Jsonb(RECORD.seats), psycopg.types.json.Jsonb(RECORD.token_hashes)),
        )
        con.execute("INSERT INTO moves VALUES ('g1', 0, 5)")
    store = PostgresStore(pg_dsn)
    try:
        assert store.load("g1") == (RECORD, [5])
        store.append("g1", 1, [7])
        assert store.load("g1")[1] == [5, 7]
    finally:
        store.close()
    with psycopg.connect(pg_dsn) as con:
        assert con.execute("SELECT max(version) FROM atoll_schema").fetchone()[0] == 2


def test_a_store_of_a_newer_schema_refuses_this_server(pg_dsn):
    PostgresStore(pg_dsn).close()
    with psycopg.connect(pg_dsn, autocommit=True) as con:
        con.execute("INSERT INTO atoll_schema (version) VALUES (99)")
    with pytest.raises(StoreVersionError, match="schema version 99, newer than this server's 2"):
        PostgresStore(pg_dsn)


def test_the_password_never_shows():
    assert redacted("postgresql://bob:s3cret@db.example/atoll") == "postgresql://bob:***@db.example/atoll"
    assert "s3cret" not in redacted("host=db user=bob password=s3cret dbname=atoll")
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--store",
         "postgresql://bob:s3cret@127.0.0.1:1/atoll"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1 and "cannot reach the store" in done.stderr
    assert "s3cret" not in done.stderr + done.stdout
    assert len(done.stderr.strip().splitlines()) == 1


def serve(dsn: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--store", dsn],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    line = proc.stdout.readline()
    assert line.startswith("Atoll listening on "), line
    proc.address = line.split()[3]
    return proc


def test_a_hosted_game_survives_a_kill_and_a_second_replica_serves_it(pg_dsn):
    first = serve(pg_dsn)
    try:
        stub = atoll_pb2_grpc.AtollStub(grpc.insecure_channel(first.address))
        game = stub.CreateGame(pb.CreateGameRequest(game="islet", players=2, seed=3, seats=[
            pb.SeatConfig(), pb.SeatConfig(is_bot=True, bot=pb.BotSettings(iterations=30))]), timeout=60)  # fmt: skip
        token = [("authorization", "Bearer " + game.seats[0].token)]
        view = stub.GetView(pb.GetViewRequest(game_id=game.game_id, seat=0), metadata=token, timeout=30)
        reply = stub.Act(pb.ActRequest(game_id=game.game_id, seat=0, action_id=view.legal_actions[0].id),
                         metadata=token, timeout=60)  # fmt: skip
        acknowledged = reply.view.move_number
        assert move_seen_by(serve(pg_dsn), game.game_id, token) >= acknowledged  # a replica of the first
    finally:
        first.kill()
        first.wait()
    assert move_seen_by(serve(pg_dsn), game.game_id, token) >= acknowledged  # after the kill


def move_seen_by(server: subprocess.Popen, game_id: str, token) -> int:
    """Seat 0's move number as ``server`` reads it; the server is stopped after."""
    try:
        stub = atoll_pb2_grpc.AtollStub(grpc.insecure_channel(server.address))
        return stub.GetView(pb.GetViewRequest(game_id=game_id, seat=0), metadata=token, timeout=30).move_number
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_atoll_store_copy_moves_an_embedded_store_to_postgresql_and_back(pg_dsn, tmp_path):
    source = GameStore(tmp_path / "a.sqlite3")
    source.create(RECORD, [5, 7, 9])
    source.create(GameRecord("g2", "islet", 2, 7, {}, [{"is_bot": False}] * 2, ["c" * 64, "d" * 64]), [1])
    source.close()
    atoll = [sys.executable, "-m", "server.cli", "store", "copy"]
    done = subprocess.run([*atoll, str(tmp_path / "a.sqlite3"), pg_dsn], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and "copied 2 games (0 already there)" in done.stdout, done.stderr
    done = subprocess.run([*atoll, str(tmp_path / "a.sqlite3"), pg_dsn], cwd=ROOT, capture_output=True, text=True)
    assert "copied 0 games (2 already there)" in done.stdout
    done = subprocess.run([*atoll, pg_dsn, str(tmp_path / "b.sqlite3")], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and "copied 2 games" in done.stdout
    back = GameStore(tmp_path / "b.sqlite3")
    assert back.load("g1") == (RECORD, [5, 7, 9]) and back.load("g2")[1] == [1]
    back.close()
