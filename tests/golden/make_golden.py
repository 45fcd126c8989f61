"""Record engine traces and search results, so a refactoring can prove it changed nothing (tests/golden/test_golden.py).

Run ``python tests/golden/make_golden.py`` only when a change is *meant* to alter engine or search behaviour, and say
so in the commit.
"""

import hashlib
import json
import random
from pathlib import Path

import engine_ext
import search
from engine_ext import core

HERE = Path(__file__).parent
GAMES = {"kuhn_poker": (2, 3), "leduc_poker": (2, 3), "survive": (2, 3, 4, 5)}
SEARCHES = (
    ("ismcts", 600),
    ("pimc", 600),
    ("flat", 300),
    ("greedy", None),
    ("cheat", 400),
    ("random", None),
)


def trace(game: str, players: int, seed: int) -> str:
    """A digest of every state, observation and move text of one random game."""
    rng = random.Random(seed)
    state = engine_ext.new_game(game, players, seed)
    digest = hashlib.sha256()
    while not state.is_terminal():
        digest.update(state.to_json().encode())
        for seat in range(players):
            digest.update(json.dumps(state.observation(seat), sort_keys=True).encode())
        if state.current_player() == engine_ext.CHANCE:
            action = core.sample_chance(state, rng.getrandbits(63))
        else:
            action = rng.choice(state.legal_actions())
        digest.update(state.action_to_string(action).encode())
        digest.update(str(state.public_action(action)).encode())
        state.apply(action)
    digest.update(json.dumps([state.returns(), state.scores()]).encode())
    return digest.hexdigest()


def positions(game: str, players: int, seed: int, count: int) -> list[str]:
    """JSON of ``count`` decision positions along one random game, after set-up (a set-up decision is played by the
    game's ``setup_algorithm``, so it would not record the tree search)."""
    rng = random.Random(seed)
    state = engine_ext.new_game(game, players, seed)
    in_setup = engine_ext.game_info(game).in_setup
    found = []
    while not state.is_terminal() and len(found) < count:
        if state.current_player() == engine_ext.CHANCE:
            state.apply(core.sample_chance(state, rng.getrandbits(63)))
            continue
        if (in_setup is None or not in_setup(state)) and rng.random() < 0.3:
            found.append(state.to_json())
        state.apply(rng.choice(state.legal_actions()))
    return found


def search_record(state_json: str, algorithm: str, iterations: int | None) -> dict:
    state = engine_ext.from_json(state_json)
    seat = state.current_player()
    result = search.suggest(state, seat, algorithm=algorithm, iterations=iterations, seed=11, top_k=3, allow_cheat=True)
    return {
        "moves": [[m.action, m.visits, round(m.value, 9), round(m.win_prob, 9), m.pv] for m in result.moves],
        "iterations": result.stats["iterations"],
        "nodes": result.stats["nodes"],
        "belief": result.belief,
    }


def build() -> dict:
    out = {"traces": {}, "searches": []}
    for game, counts in GAMES.items():
        for players in counts:
            for seed in range(6):
                out["traces"][f"{game}/{players}/{seed}"] = trace(game, players, seed)
    for game, counts in GAMES.items():
        for players in (counts[0], counts[-1]):
            for state_json in positions(game, players, 3, 3):
                for algorithm, iterations in SEARCHES:
                    out["searches"].append(
                        {
                            "state": state_json,
                            "algorithm": algorithm,
                            "iterations": iterations,
                            "result": search_record(state_json, algorithm, iterations),
                        }
                    )
    return out


if __name__ == "__main__":
    (HERE / "golden.json").write_text(json.dumps(build(), indent=0, sort_keys=True) + "\n")
