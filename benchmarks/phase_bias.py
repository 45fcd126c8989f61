"""Phase bias of a Survive evaluation: how far its win share for a seat lies from the game's outcome, by the point of
the round the position is at. A search compares the values of lines that end at different points of the round (one
stops after a movement, another after the rival's turn), so an evaluation whose error depends on that point ranks
them by where they stop, not by how good they are.

Usage: python benchmarks/phase_bias.py [--players 2] [--games 40] [--heuristics tide,tempo] [--seed 7]

Games: greedy bots (the game's default greedy) play ``--games`` games from seeds drawn from ``--seed``, chance at
random. At every position after set-up each heuristic scores the true state (the seat's estimated share of the win);
at the end every seat's outcome is its win share (1/k among k tied winners). A record is grouped by the phase of the
round (``control.phase``), the seat's place relative to the active seat (``me``: the active seat; ``next``, ``+2``,
...: the seats that move after it, in order) and, in the Action phase, the movements the active seat has left. Prints
one JSON object: per heuristic and group, the records, the mean share, and ``bias``, the mean of share minus outcome
(negative: the evaluation underrates a seat at that point of the round). An unbiased evaluation has every bias near 0;
``spread``, the largest bias minus the smallest over the groups with at least 100 records, sums it up.
"""

import argparse
import collections
import json
import random

import engine_ext
import search
from search import bench
from search.mcts import evaluate_state


def place(seat: int, active: int, players: int) -> str:
    offset = (seat - active) % players
    return "me" if offset == 0 else "next" if offset == 1 else f"+{offset}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--heuristics", default="tide,tempo")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    info = engine_ext.game_info("survive")
    info.check_players(args.players)
    heuristics = args.heuristics.split(",")
    unknown = [name for name in heuristics if name not in info.heuristics]
    if unknown:
        parser.error(f"--heuristics: unknown {unknown}; Survive has {list(info.heuristics)}")
    rng = random.Random(args.seed)
    errors = {name: collections.defaultdict(list) for name in heuristics}
    for _ in range(args.games):
        state = engine_ext.new_game("survive", args.players, seed=rng.randrange(1 << 30))
        records = []
        while not state.is_terminal():
            control = json.loads(state.to_json())["control"]
            if not control["phase"].startswith("setup"):
                shares = {name: evaluate_state(state, 0, 1, 0, True, name) for name in heuristics}
                records.append((control, shares))
            player = state.current_player()
            if player == engine_ext.CHANCE:
                bench.random_step(state, rng)
            else:
                state.apply(search.suggest(state, player, algorithm="greedy", seed=rng.randrange(1 << 30)).best.action)
        returns = state.returns()
        best = max(returns)
        winners = sum(r == best for r in returns)
        outcome = [1.0 / winners if r == best else 0.0 for r in returns]
        for control, shares in records:
            moves = f" {control['moves_left']} left" if control["phase"] == "action" else ""
            for seat in range(args.players):
                group = f"{control['phase']}{moves}, {place(seat, control['active'], args.players)}"
                for name in heuristics:
                    errors[name][group].append((shares[name][seat], outcome[seat]))
    report = {"players": args.players, "games": args.games, "seed": args.seed, "heuristics": {}}
    for name in heuristics:
        groups = {}
        for group, pairs in sorted(errors[name].items()):
            groups[group] = {
                "records": len(pairs),
                "share": round(sum(s for s, _ in pairs) / len(pairs), 3),
                "bias": round(sum(s - o for s, o in pairs) / len(pairs), 3),
            }
        steady = [g["bias"] for g in groups.values() if g["records"] >= 100]
        spread = round(max(steady) - min(steady), 3) if steady else None
        report["heuristics"][name] = {"spread": spread, "groups": groups}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
