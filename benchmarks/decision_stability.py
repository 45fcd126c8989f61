"""Decision stability: how often a search configuration makes the same choice at one position under other seeds,
and how often that choice is a long reference search's. A cheap screen for settings (minutes, not hours of games);
only arena matches accept a setting.

Usage: python benchmarks/decision_stability.py [--game survive] [--players 4] [--positions 40] [--seeds 4]
    [--iterations 3000] [--configs '{"base": {}, "c10": {"exploration": 0.1}}'] [--reference-iterations 60000]
    [--seed 5]

Positions: decisions of games that greedy bots play (chance from the seed), outside set-up, with more than three legal
moves, up to three a game. At each, every configuration (``search.SearchConfig`` fields over the game's defaults; the
name ``pimc`` or any entry with ``"algorithm"`` sets its algorithm; one with ``"iterations"`` its own budget) searches
``--iterations`` under ``--seeds`` seeds, and two reference searches (ISMCTS and PIMC at ``--reference-iterations``
on 2 threads) name a move each. Prints one JSON object: per configuration, ``stability`` (the mean share of seeds
that pick the configuration's most frequent move at a position) and ``agrees_ismcts`` / ``agrees_pimc`` (the mean
share of picks equal to each reference's move). A noisier search is less stable; agreement with a reference is only
as good as the reference.
"""

import argparse
import collections
import json
import random

import engine_ext
import search
from search import bench


def positions(game: str, players: int, count: int, seed: int) -> list[engine_ext.State]:
    rng = random.Random(seed)
    found: list[engine_ext.State] = []
    info = engine_ext.game_info(game)
    games = 0
    while len(found) < count:
        games += 1
        if games > 20 and not found:
            raise SystemExit(f"{game}: no decisions with more than three legal moves outside set-up in 20 games")
        state = engine_ext.new_game(game, players, seed=rng.randrange(1 << 30))
        candidates = []
        while not state.is_terminal():
            player = state.current_player()
            if player == engine_ext.CHANCE:
                bench.random_step(state, rng)
                continue
            in_setup = info.in_setup is not None and info.in_setup(state)
            if not in_setup and len(state.legal_actions()) > 3:
                candidates.append(state.clone())
            state.apply(search.suggest(state, player, algorithm="greedy", seed=rng.randrange(1 << 30)).best.action)
        found += rng.sample(candidates, min(3, len(candidates)))
    return found[:count]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="survive")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--configs", default='{"default": {}, "pimc": {"algorithm": "pimc"}}')
    parser.add_argument("--reference-iterations", type=int, default=60_000)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    try:
        configs = json.loads(args.configs)
    except json.JSONDecodeError as err:
        parser.error(f"--configs: not JSON ({err})")
    if not isinstance(configs, dict) or not all(isinstance(v, dict) for v in configs.values()):
        parser.error('--configs: expected a JSON object of name -> settings, e.g. {"c10": {"exploration": 0.1}}')
    stability = collections.defaultdict(list)
    agrees = {"ismcts": collections.defaultdict(list), "pimc": collections.defaultdict(list)}
    for state in positions(args.game, args.players, args.positions, args.seed):
        seat = state.current_player()
        reference = {
            algorithm: search.suggest(
                state, seat, algorithm=algorithm, iterations=args.reference_iterations, threads=2, seed=99
            ).best.action
            for algorithm in agrees
        }
        for name, settings in configs.items():
            settings = {"algorithm": "pimc" if name == "pimc" else "ismcts", "iterations": args.iterations, **settings}
            picks = [search.suggest(state, seat, seed=s, **settings).best.action for s in range(args.seeds)]
            stability[name].append(collections.Counter(picks).most_common(1)[0][1] / args.seeds)
            for algorithm, move in reference.items():
                agrees[algorithm][name].append(sum(p == move for p in picks) / args.seeds)
    mean = lambda values: round(sum(values) / len(values), 3)  # noqa: E731
    report = {
        "game": args.game,
        "players": args.players,
        "positions": args.positions,
        "seeds": args.seeds,
        "iterations": args.iterations,
        "reference_iterations": args.reference_iterations,
        "configs": {
            name: {
                "settings": configs[name],
                "stability": mean(stability[name]),
                "agrees_ismcts": mean(agrees["ismcts"][name]),
                "agrees_pimc": mean(agrees["pimc"][name]),
            }
            for name in configs
        },
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
