"""Several `atoll serve` replicas on one PostgreSQL store (this machine's real server, a database per test): any
replica answers any call for any game, one move per number whoever races, a killed replica's bots taken over, and
watchers that miss no move, not even one committed while their replica's listener was away."""

import threading
import time

import grpc
import pytest
from conftest import ServerProcess

from atoll.client import AtollClient
from atoll.v1 import atoll_pb2 as pb

psycopg = pytest.importorskip("psycopg")


def bot(**budget) -> pb.SeatConfig:
    return pb.SeatConfig(is_bot=True, bot=pb.BotSettings(**budget))


def stored_moves(dsn: str, game_id: str) -> list[tuple[int, int]]:
    with psycopg.connect(dsn) as con:
        return list(con.execute("SELECT n, action FROM moves WHERE game_id = %s ORDER BY n", (game_id,)))


@pytest.fixture
def replicas(pg_dsn):
    """Two replicas on one store (a 1-second lease, so that a takeover is quick)."""
    started = [ServerProcess(pg_dsn, ("--lease", "1")).start() for _ in range(2)]
    yield started
    for replica in started:
        replica.stop()


def test_any_replica_answers_any_call_and_reads_what_another_committed(replicas, pg_dsn):
    a, b = replicas
    with AtollClient(a.address) as on_a, AtollClient(b.address) as on_b:
        game = on_a.create_game("islet", 3, seed=5, seats=[None, bot(iterations=40), None])
        on_b.tokens = on_a.tokens
        clients = [on_a, on_b]
        for turn in range(12):
            view = clients[turn % 2].get_view(game.game_id, 0)
            # CreateGame and Act answer once the bot has moved: a human seat is to act, whichever replica is asked.
            assert not view.game_over and view.current_player in (0, 2)
            seat = view.current_player
            mine = clients[turn % 2].get_view(game.game_id, seat)
            reply = clients[turn % 2].act(game.game_id, seat, action_id=mine.legal_actions[0].id)
            # The other replica answers with the position this one acknowledged (or later), at once.
            other = clients[(turn + 1) % 2].get_view(game.game_id, seat)
            assert other.move_number >= reply.view.move_number
            assert other.move_number == len(stored_moves(pg_dsn, game.game_id))
        assert [n for n, _ in stored_moves(pg_dsn, game.game_id)] == list(range(reply.view.move_number))


def test_a_watcher_on_one_replica_sees_every_move_committed_on_another(replicas):
    a, b = replicas
    with AtollClient(a.address) as on_a, AtollClient(b.address) as on_b:
        game = on_a.create_game("kuhn_poker", 2, seed=3, seats=[None, bot(iterations=30)])
        on_b.tokens = on_a.tokens
        events = on_b.watch_game(game.game_id, 0)
        seen: list[int] = []
        done = threading.Event()

        def read() -> None:
            for event in events:
                seen.append(event.move.move_number)
                if event.final:
                    break
            done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        while not on_a.get_view(game.game_id, 0).game_over:
            view = on_a.get_view(game.game_id, 0)
            on_a.act(game.game_id, 0, action_id=view.legal_actions[0].id)
        assert done.wait(20), f"the watcher on the other replica saw {seen}"
        final = on_a.get_view(game.game_id, 0).move_number
        assert seen == list(range(final))


def act(client: AtollClient, game_id: str, action: int, codes: list[str]) -> None:
    """Seat 0 plays ``action``; its status (OK or the refusal's code) goes to ``codes``."""
    try:
        client.act(game_id, 0, action_id=action)
        codes.append("OK")
    except grpc.RpcError as err:
        codes.append(err.code().name)


def test_two_replicas_racing_for_one_move_commit_it_once(replicas, pg_dsn):
    a, b = replicas
    with AtollClient(a.address) as on_a, AtollClient(b.address) as on_b:
        on_b_tokens = on_b.tokens
        for game_seed in range(6):
            game = on_a.create_game("survive", 2, seed=game_seed)
            on_b_tokens.update(on_a.tokens)
            view = on_b.get_view(game.game_id, 0)  # both replicas hold the game
            moves = [action.id for action in view.legal_actions[:2]]
            codes: list[str] = []
            racers = [
                threading.Thread(target=act, args=(c, game.game_id, m, codes))
                for c, m in zip((on_a, on_b), moves, strict=True)
            ]
            for racer in racers:
                racer.start()
            for racer in racers:
                racer.join()
            assert sorted(codes) == ["FAILED_PRECONDITION", "OK"], codes
            stored = stored_moves(pg_dsn, game.game_id)
            assert [n for n, _ in stored] == list(range(len(stored)))
            assert stored[view.move_number][1] in moves
            assert on_a.get_view(game.game_id, 0) == on_b.get_view(game.game_id, 0)


def test_a_killed_replicas_bot_turn_is_taken_over_and_the_game_goes_on(replicas, pg_dsn):
    a, b = replicas
    with AtollClient(a.address) as on_a, AtollClient(b.address, timeout=60) as on_b:
        # The bot thinks 3 s a move on its owner, replica a; the human plays through replica b.
        game = on_a.create_game("islet", 2, seed=9, seats=[None, bot(time_ms=3000)])
        on_b.tokens = on_a.tokens
        view = on_b.get_view(game.game_id, 0)
        while view.current_player != 0:
            time.sleep(0.2)
            view = on_b.get_view(game.game_id, 0)
        for _ in range(20):  # the human's moves until the bot is to act (and thinks, on replica a)
            reply = on_b.stub.Act(
                pb.ActRequest(game_id=game.game_id, seat=0, action_id=view.legal_actions[0].id),
                timeout=1.0,
                metadata=on_b._auth(game.game_id, 0, None),
            )
            if reply.bots_thinking:
                break
            view = reply.view
        assert reply.bots_thinking
        before = reply.view.move_number
        time.sleep(0.5)
        a.kill()
        killed = time.monotonic()
        # b takes the game over once a's lease (1 s) ran out, and its bot plays the turn again from the start.
        while True:
            view = on_b.get_view(game.game_id, 0)
            if view.current_player == 0 or view.game_over:
                break
            assert time.monotonic() - killed < 2 * 1.0 + 3.0 + 10.0, "nobody took the bots' turn over"
            time.sleep(0.1)
        stored = stored_moves(pg_dsn, game.game_id)
        assert [n for n, _ in stored] == list(range(view.move_number))
        assert view.move_number > before  # the bot's turn was played
        # ... and the game goes on through b alone.
        on_b.act(game.game_id, 0, action_id=view.legal_actions[0].id)


def test_a_move_committed_while_a_replicas_listener_was_away_still_reaches_its_watchers(replicas, pg_dsn):
    a, b = replicas
    with AtollClient(a.address) as on_a, AtollClient(b.address) as on_b:
        game = on_a.create_game("survive", 2, seed=4)
        on_b.tokens = on_a.tokens
        view = on_b.get_view(game.game_id, 0)
        events = on_b.watch_game(game.game_id, 1, from_move=view.move_number)
        got = []
        reader = threading.Thread(target=lambda: got.append(next(events)), daemon=True)
        reader.start()
        time.sleep(0.3)
        with psycopg.connect(pg_dsn, autocommit=True) as con:  # every replica's listener loses its connection
            killed = con.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'atoll-listen'"
            ).fetchall()
        assert len(killed) == 2
        on_a.act(game.game_id, 0, action_id=view.legal_actions[0].id)  # notified while nobody listens
        reader.join(15)
        assert got and got[0].move.move_number == view.move_number
        events.cancel()
