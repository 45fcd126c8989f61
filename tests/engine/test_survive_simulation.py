"""Random simulation of Survive The Island: 2,000 games over 2-5 players, invariants checked after every step."""

import collections
import random

import engine_ext
from engine_ext import core

GAMES = 2000
MAX_STEPS = 5000


def test_random_games_keep_every_invariant_and_end():
    seen = collections.Counter()
    for game in range(GAMES):
        players = 2 + game % 4
        state = engine_ext.new_game("survive", players, seed=game)
        rng = random.Random(game)
        steps = 0
        while not state.is_terminal():
            if state.current_player() == engine_ext.CHANCE:
                action = core.sample_chance(state, rng.getrandbits(63))
            else:
                action = rng.choice(state.legal_actions())
            seen[state.action_to_string(action).split()[0]] += 1
            state.apply(action)
            steps += 1
            problems = state.invariant_violations()
            assert not problems, f"game {game} ({players}p) step {steps}: {problems}"
            assert steps < MAX_STEPS, f"game {game} did not end"
        seen["rescued"] += sum(state.scores()) > 0
        seen["third volcano"] += state.observation(0)["control"]["volcanoes"] == 3
    # The random games reach every kind of decision, so the invariants were checked where it matters.
    for kind in (
        "place",
        "move",
        "end",
        "remove",
        "reveal",
        "roll",
        "use",
        "continue",
        "stop",
        "push",
        "displace",
        "decline",
        "board",
        "summon",
        "rescued",
        "third volcano",
    ):
        assert seen[kind] > 0, f"no random game reached {kind!r}"
