"""Nothing a seat receives reveals what it may not know, checked against the true game read from the server's store.

Every string field of every message a seat gets (views, board drawings, legal-move labels, played and followed moves,
streamed events, refusals) is scanned for the other seats' secrets (``private_info``), and each view is shown to be
a function of that seat's observation alone.
"""

import json
import random
import sqlite3

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor

import engine_ext
from atoll.v1 import atoll_pb2 as pb
from server import codec
from server.hosting import _setup, seat_view, seen_by
from server.store import GameRecord, seed_value

FAST_BOT = pb.SeatConfig(is_bot=True, bot=pb.BotSettings(iterations=40))


def true_state(db, game_id: str) -> engine_ext.State:
    """The hosted game as the server holds it, rebuilt from its stored seed and move log."""
    state = _setup(GameRecord(*_record_row(db, game_id)))
    for action in _moves(db, game_id):
        state.apply(action)
    return state


def _record_row(db, game_id: str) -> tuple:
    with sqlite3.connect(db) as con:
        row = con.execute(
            "SELECT id, game, players, seed, options, seats, token_hashes, seed_scheme FROM games WHERE id=?",
            (game_id,),
        ).fetchone()
    return (row[0], row[1], row[2], seed_value(row[3]), *(json.loads(x) for x in row[4:7]), row[7])


def _moves(db, game_id: str) -> list[int]:
    with sqlite3.connect(db) as con:
        return [a for (a,) in con.execute("SELECT action FROM moves WHERE game_id=? ORDER BY n", (game_id,))]


ABILITIES = ("paddles", "dolphin", "dive", "die", "repellent")


def secret_strings(game: str, private: dict) -> set[str]:
    """How a seat's private facts would read in text: ``blue:4`` (a treasure value), ``Deal:2`` / ``Chance
    outcome:2`` / ``private_card 2`` (a card). Held Ability types are checked where they are drawn
    (``assert_others_draws_hidden``): the same type may be held by the reading seat too."""
    found = set()
    if game == "survive":
        for key, value in private.items():
            if key != "abilities":
                found |= {f"{key}:{entry['value']}" for entry in value if entry["status"] == "board"}
    elif game.startswith("islet"):
        # Tile names are public words (the islets are made of them): a hand would leak as a hand map, checked in
        # assert_islet_hands_hidden, or as another seat's draw, checked in assert_private_moves_are_own.
        pass
    elif game == "small_islands":
        # A seat may read a card it drew itself and returned, wherever it went later: move texts that name a secret
        # are checked by whose move they were (assert_private_moves_are_own), views by assert_islet_hands_hidden.
        pass
    else:
        card = private["card"]
        found |= {f"Deal:{card}", f"Chance outcome:{card}", f"private_card {card}"}
    return found


def strings_in(message) -> list[str]:
    """Every string field of a message, nested messages and repeated fields included."""
    out = []
    for descriptor, value in message.ListFields():
        values = value if descriptor.is_repeated else [value]
        for item in values:
            if descriptor.type == FieldDescriptor.TYPE_STRING:
                out.append(item)
            elif descriptor.type == FieldDescriptor.TYPE_MESSAGE and hasattr(item, "ListFields"):
                out += strings_in(item)
    return out


def assert_no_secret_of_others(message, seat: int, state: engine_ext.State) -> None:
    for other in range(state.num_players()):
        if other == seat:
            continue
        for secret in secret_strings(state.game_name, state.private_info(other)):
            for text in strings_in(message):
                assert secret not in text + " ", f"seat {seat} received {secret!r} (seat {other}'s) in {text!r}"


def assert_others_draws_hidden(records: list, seat: int) -> None:
    """A tile revealed into another seat's hand (the seat that removed it) reads as ``reveal <land>:ability``."""
    drawer = None
    for record in records:
        if record.actor >= 0:
            drawer = record.actor
        elif record.action.text.startswith("reveal") and drawer is not None and drawer != seat:
            assert not record.action.text.endswith(ABILITIES), f"seat {seat} saw {record.action.text!r} of {drawer}"


def assert_islet_hands_hidden(view: pb.View, seat: int) -> None:
    """Islet and Small Islands views carry no other seat's hand (nor, in Small Islands, Objectives or tokens)."""
    which = view.observation.WhichOneof("view")
    if which in ("islet", "small_islands"):
        for other, entry in enumerate(getattr(view.observation, which).seats):
            assert other == seat or not entry.hand, f"seat {seat} sees seat {other}'s hand"
            if which == "small_islands" and other != seat:
                assert not entry.HasField("objective") and not entry.discovery, f"seat {seat} sees {other}'s cards"


PRIVATE_MOVES = {
    # move texts that name a secret: a tile drawn into a hand, an Objective drawn or kept, a Discovery token
    "islet": lambda text: text.startswith("draw ") and text != "draw a tile",
    "islet_solo": lambda text: False,
    "small_islands": lambda text: text.startswith(("deal t", "draw O", "keep O", "draw discovery ", "keep discovery ")),
}


def assert_private_moves_are_own(db, game_id: str, records: list, seat: int) -> None:
    """Replaying the true game beside the records a seat got: every move that names a secret is the seat's own."""
    state, moves = _setup(GameRecord(*_record_row(db, game_id))), _moves(db, game_id)
    private = PRIVATE_MOVES[state.game_name]
    texts = [r.action.text for r in records]
    assert len(texts) == len(moves)
    for action, text in zip(moves, texts, strict=True):
        if private(text):
            assert state.observation(seat)["control"]["active"] == seat, f"seat {seat} read another's {text!r}"
        state.apply(action)


def assert_view_is_made_of_its_observation(view: pb.View) -> None:
    obs = codec.observation_from_proto(view.observation)
    info = engine_ext.game_info(obs["game"])
    assert view.board == info.draw(obs)
    mine = info.from_observation(obs)
    if view.legal_actions:
        assert [(a.id, a.text) for a in view.legal_actions] == [
            (a, mine.action_to_string(a)) for a in mine.legal_actions()
        ]


@pytest.mark.parametrize(
    "game,players",
    [
        ("survive", 4),
        ("survive", 2),
        ("leduc_poker", 3),
        ("islet", 4),
        ("islet", 3),
        ("islet", 2),
        ("islet_solo", 1),
        ("small_islands", 4),
        ("small_islands", 3),
        ("small_islands", 2),
    ],
)
def test_nothing_a_human_seat_receives_holds_another_seats_secret(server, client, game, players):
    humans = [0, 1] if players > 2 else [0]
    seats = [None if k in humans else FAST_BOT for k in range(players)]
    created = client.create_game(game, players, seats=seats)
    assert [bool(s.token) for s in created.seats] == [k in humans for k in range(players)]
    rng = random.Random(players)
    acts = 0
    while True:
        state = true_state(server.db, created.game_id)
        views = {seat: client.get_view(created.game_id, seat) for seat in humans}
        for seat, view in views.items():
            assert_no_secret_of_others(view, seat, state)
            assert_islet_hands_hidden(view, seat)
            assert_view_is_made_of_its_observation(view)
        if state.is_terminal():
            break
        seat = state.current_player()
        view = views[seat]
        with pytest.raises(grpc.RpcError) as refused:  # a refusal lists legal moves: from the seat's view too
            client.act(created.game_id, seat, action_text="fly away")
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        for other in range(players):
            if other != seat:
                for secret in secret_strings(game, state.private_info(other)):
                    assert secret not in refused.value.details() + " "
        reply = client.act(created.game_id, seat, action_id=rng.choice(view.legal_actions).id)
        assert_no_secret_of_others(reply, seat, true_state(server.db, created.game_id))
        assert_others_draws_hidden([reply.played, *reply.followed], seat)
        acts += 1
    assert acts > 3
    for seat in humans:
        events = list(client.watch_game(created.game_id, seat))
        assert events[-1].final and events[-1].view.seed, "the seed is shown once the game is over"
        for event in events:
            assert_no_secret_of_others(event, seat, state)
        assert_others_draws_hidden([e.move for e in events], seat)
        if game in PRIVATE_MOVES:
            moves = [e.move for e in events if e.HasField("move")]
            assert_private_moves_are_own(server.db, created.game_id, moves, seat)


def test_a_seat_sees_its_own_card_and_never_the_others(server, client):
    created = client.create_game("leduc_poker", 2, seats=[None, FAST_BOT])
    rng = random.Random(3)
    while True:
        view = client.get_view(created.game_id, 0)
        state = true_state(server.db, created.game_id)
        assert view.observation.leduc_poker.private_card == state.private_info(0)["card"]
        assert not view.HasField("seed") or view.game_over
        if view.game_over:
            break
        client.act(created.game_id, 0, action_id=rng.choice(view.legal_actions).id)
    events = list(client.watch_game(created.game_id, 0))
    assert events[0].move.action.text == f"Chance outcome:{state.private_info(0)['card']}"
    assert events[1].move.action.text == "Chance outcome:?", "the card dealt to seat 1 stays hidden from seat 0"


def test_bot_seats_get_no_token_and_cannot_be_read(server, client):
    created = client.create_game("kuhn_poker", 2, seats=[None, FAST_BOT])
    assert created.seats[1].is_bot and created.seats[1].token == ""
    with pytest.raises(grpc.RpcError) as err:
        client.get_view(created.game_id, 1, token=client.tokens[(created.game_id, 0)])
    assert err.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_games_without_a_seed_are_dealt_differently(client):
    cards = set()
    for _ in range(8):
        created = client.create_game("leduc_poker", 2, seats=[None, FAST_BOT])
        cards.add(client.get_view(created.game_id, 0).observation.leduc_poker.private_card)
    assert len(cards) > 1, "eight unseeded games dealt seat 0 the same card"


@pytest.mark.parametrize(
    "game,players",
    [("survive", 4), ("kuhn_poker", 3), ("leduc_poker", 2), ("islet", 3), ("islet_solo", 1), ("small_islands", 3)],
)
def test_a_seats_view_and_move_texts_depend_on_its_observation_alone(game, players):
    rng = random.Random(7)
    state = engine_ext.new_game(game, players, 7)
    checked = 0
    while not state.is_terminal() and checked < 60:
        if state.current_player() == engine_ext.CHANCE:
            action = rng.choice([a for a, _ in state.chance_outcomes()])
        else:
            action = rng.choice(state.legal_actions())
        for seat in range(players):
            world = state.determinize(seat, rng.getrandbits(32))
            assert seat_view("g", world, seat, 0, None) == seat_view("g", state, seat, 0, None)
            if state.current_player() >= 0:
                # The same move as this seat sees it, taken in the resampled world (a move that shows a hidden fact,
                # as an Islet tile placed from the hand, may have no twin there: then the move itself).
                seen = state.observed_action(action, seat)
                twin = next((a for a in world.legal_actions() if world.observed_action(a, seat) == seen), action)
                assert seen_by(world, twin, 0, seat) == seen_by(state, action, 0, seat)
        state.apply(action)
        checked += 1
