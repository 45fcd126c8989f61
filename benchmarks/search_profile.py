"""The depth and width profile of an ISMCTS search: how deep 30,000 iterations look, and how wide the tree is there.

Usage: python benchmarks/search_profile.py [--iterations 30000] [--games survive islet small_islands]
    [--players 2 4] [--fractions 0 0.33 0.66] [--seed 0]

For each game and seat count, positions at the given fractions of a game played by greedy bots (0: the first
decision; chance from the seed), one search with the game's defaults from the seat to act. Prints one JSON object:
per position the step and phase reached, and the profile of the searching seat's tree (``search.suggest(...,
profile=True)``), summarised as
- ``depths``: per depth, the share of iterations that got there (visits of the nodes at that depth over the root's),
  the nodes, the mean children of an expanded node there, and who moves into it (own / others / chance);
- ``max_depth``, ``depth_of_half``: the deepest depth with a node, and the deepest that half the iterations reach;
- ``next_turn_share``: the share of iterations that reached the seat's next turn in the tree (a turn: a run of the
  seat's own moves that another seat's move ends), and ``turns_reached`` for every later turn;
- ``decided_by``: the algorithm the defaults decide with there; where that grows no tree (Survive's set-up goes to
  greedy), ``profiled_with`` names the setting the profiled search used instead;
- ``refine`` (where the defaults search in two stages, e.g. four-seat Survive at 30,000 iterations): the moves kept and
  the screen's iterations. The profile above is then the second stage's tree, whose root holds the screen's best
  moves only, and ``screen`` is the first stage's (the same search at the screen's budget, ``playout_to="steps"``).
"""

import argparse
import json
import random

import engine_ext
import search
from search import bench


def position(game: str, players: int, fraction: float, seed: int) -> tuple[engine_ext.State, int]:
    """The first decision at or after ``fraction`` of a greedy game's length (its length from a first greedy game)."""

    def greedy_game(stop_at: int | None) -> tuple[engine_ext.State, int]:
        state = engine_ext.new_game(game, players, seed=seed)
        rng = random.Random(seed)
        steps = 0
        while not state.is_terminal():
            player = state.current_player()
            if player != engine_ext.CHANCE and stop_at is not None and steps >= stop_at:
                return state, steps
            if player == engine_ext.CHANCE:
                bench.random_step(state, rng)
            else:
                state.apply(search.suggest(state, player, algorithm="greedy", seed=steps).best.action)
            steps += 1
        return state, steps

    if fraction <= 0:
        return greedy_game(0)
    _, length = greedy_game(None)
    return greedy_game(int(fraction * length))


def summarise(profile: dict) -> dict:
    root = profile["root_visits"] or 1
    depths = []
    half = 0
    for level in profile["levels"]:
        share = level["visits"] / root
        if share >= 0.5:
            half = level["depth"]
        depths.append(
            {
                "depth": level["depth"],
                "share": round(share, 4),
                "nodes": level["nodes"],
                "mean_children": round(level["children"] / level["expanded"], 1) if level["expanded"] else 0.0,
                "own": level["own"],
                "others": level["others"],
                "chance": level["chance"],
            }
        )
    turns = {str(k): round(v / root, 4) for k, v in profile["turns_reached"].items()}
    return {
        "max_depth": len(depths) - 1,
        "depth_of_half": half,
        "next_turn_share": turns.get("2", 0.0),
        "turns_reached": turns,
        "depths": depths,
    }


def profile_position(state: engine_ext.State, seat: int, iterations: int, seed: int, **settings) -> dict:
    """The profile of the tree the game's defaults (with ``settings`` over them) grow at this decision. Where they
    decide without a tree (Survive's set-up placements go to greedy: ``setup_algorithm``), says so and profiles the
    tree a search would grow there (``setup_algorithm="same"``), so the width of the set-up decisions stays in the
    table. A search in two stages (``refine``) adds the screen's tree, profiled on its own."""
    result = search.suggest(state, seat, iterations=iterations, seed=seed, profile=True, **settings)
    entry = {"decided_by": result.stats["algorithm"]}
    if "profile" not in result.stats:
        settings = {**settings, "setup_algorithm": "same"}
        result = search.suggest(state, seat, iterations=iterations, seed=seed, profile=True, **settings)
        entry["profiled_with"] = {"setup_algorithm": "same"}
    entry["elapsed_ms"] = result.stats["elapsed_ms"]
    entry.update(summarise(result.stats["profile"]))
    info = engine_ext.game_info(state.game_name)
    config = search.SearchConfig(iterations=iterations, **settings).resolved(info, state.num_players())
    if config.refine and len(state.legal_actions()) > 1 and iterations > config.refine_screen:
        entry["refine"] = {"moves": config.refine, "screen_iterations": config.refine_screen}
        screen = {**settings, "refine": 0, "playout_to": "steps", "iterations": config.refine_screen}
        screened = search.suggest(state, seat, seed=seed, profile=True, **screen)
        entry["screen"] = summarise(screened.stats["profile"])
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=30_000)
    parser.add_argument("--games", nargs="+", default=["survive", "islet", "small_islands"])
    parser.add_argument("--players", nargs="+", type=int, default=[2, 4])
    parser.add_argument("--fractions", nargs="+", type=float, default=[0.0, 0.33, 0.66])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    report = {"iterations": args.iterations, "positions": []}
    for game in args.games:
        for players in args.players:
            for fraction in args.fractions:
                state, step = position(game, players, fraction, args.seed)
                seat = state.current_player()
                entry = {"game": game, "players": players, "fraction": fraction, "step": step, "seat": seat}
                entry["legal_moves"] = len(state.legal_actions())
                entry.update(profile_position(state, seat, args.iterations, args.seed))
                report["positions"].append(entry)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
