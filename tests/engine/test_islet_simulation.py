"""Random simulation of Islet: 2,000 games over 2-4 players and the solo mode, invariants checked after every step."""

import collections
import random

import engine_ext
from engine_ext import core

GAMES = 2000
MAX_STEPS = 20_000


def test_random_games_keep_every_invariant_and_end():
    seen = collections.Counter()
    for game in range(GAMES):
        kind = game % 4
        state = (
            engine_ext.new_game("islet_solo", 1, eggs=(10, 6)[game // 4 % 2])
            if kind == 0
            else engine_ext.new_game("islet", kind + 1)
        )
        rng = random.Random(game)
        steps = 0
        while not state.is_terminal():
            if state.current_player() == engine_ext.CHANCE:
                action = core.sample_chance(state, rng.getrandbits(63))
            else:
                legal = state.legal_actions()
                # Lay whenever possible half the time, so random games reach the egg rules and the last egg.
                lays = [a for a in legal if state.action_to_string(a).startswith("lay")]
                action = rng.choice(lays if lays and rng.random() < 0.5 else legal)
            text = state.action_to_string(action)
            seen[
                text.split()[0] + (" " + text.split()[3] if text.startswith("lay") and len(text.split()) > 3 else "")
            ] += 1
            state.apply(action)
            steps += 1
            problems = state.invariant_violations()
            assert not problems, f"game {game} step {steps}: {problems}"
            assert steps < MAX_STEPS, f"game {game} did not end"
        control = state.observation(0)["control"]
        seen["won" if control["won"] else "lost" if control["won"] is False else "ended"] += 1
        seen["round limit"] += control["round"] >= 200
        seen["last egg"] += any(
            s["free_eggs"] + sum(s["guaranteed"].values()) == 0 for s in state.observation(0)["seats"]
        )
        seen["bag emptied"] += state.observation(0)["bag_size"] == 0
    for kind in (
        "place",
        "stop",
        "draw",
        "return",
        "advance",
        "lay guarantee",
        "lay release",
        "end",
        "remove",
        "bag",
        "reveal",
        "start",
        "lost",
        "ended",
        "bag emptied",
    ):
        assert seen[kind] > 0, f"no random game reached {kind!r}"
    assert seen["round limit"] == 0  # the safeguard never decides a random game
    # A solo win and a last egg are rare in random play: test_islet_rules.py plays both.
