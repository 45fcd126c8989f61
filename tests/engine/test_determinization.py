"""Sampled worlds never break what the observing seat knows, in every phase of every game: each world is a state the
game could be in (the game's own loader accepts it, which checks that every kind of card, tile and value is
conserved and that no component is in two places), it looks the same to the seat, and the seat's own facts are its.

A world that gave an opponent the public card, a tile the seat sees on the board or a treasure value the seat has
already seen elsewhere is not a state of the game: ``from_json`` refuses it. Positions are drawn from random games,
spread over the whole game (set-up, every round, the end), for every seat, including seats not to act."""

import json
import random

import pytest
from test_contract import PLAYER_COUNTS

import engine_ext
from search import bench

WORLDS_PER_SEAT = 6
POSITIONS_PER_GAME = 30
GAMES = {"kuhn_poker": 20, "leduc_poker": 30, "survive": 4, "islet": 4, "islet_solo": 6, "small_islands": 4}


def cases():
    for name in engine_ext.GAMES:
        for players in PLAYER_COUNTS.get(name, (2,)):
            yield pytest.param(name, players, id=f"{name}-{players}p")


def positions(name: str, players: int, rng: random.Random):
    """About ``POSITIONS_PER_GAME`` positions from each of a few random games, spread over each game's length."""
    for _ in range(GAMES.get(name, 3)):
        state = engine_ext.new_game(name, players, seed=rng.randrange(2**31))
        trail = [state.clone()]
        while not state.is_terminal():
            bench.random_step(state, rng)
            trail.append(state.clone())
        stride = max(1, len(trail) // POSITIONS_PER_GAME)
        yield from trail[rng.randrange(stride) :: stride]


def check_worlds(state, rng: random.Random) -> int:
    sampled = 0
    for seat in range(state.num_players()):
        seen = state.observation(seat)
        own = state.private_info(seat)
        for _ in range(WORLDS_PER_SEAT):
            world = state.determinize(seat, rng.randrange(2**31))
            text = world.to_json()
            try:
                reloaded = engine_ext.from_json(text)
            except ValueError as err:
                raise AssertionError(
                    f"seat {seat}'s sampled world is no state of {state.game_name} ({err}): {text[:300]}"
                ) from None
            assert json.loads(reloaded.to_json()) == json.loads(text), "the loader changed the world"
            assert world.observation(seat) == seen, f"seat {seat}'s world looks different to it"
            assert world.private_info(seat) == own, f"seat {seat}'s world changed its own facts"
            sampled += 1
    return sampled


@pytest.mark.parametrize(("name", "players"), list(cases()))
def test_no_sampled_world_breaks_what_the_seat_knows_in_any_phase(name, players):
    rng = random.Random(f"worlds/{name}/{players}")
    sampled = sum(check_worlds(state, rng) for state in positions(name, players, rng))
    assert sampled >= 40 * players
