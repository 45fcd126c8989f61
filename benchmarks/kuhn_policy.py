"""Kuhn poker, 2 players: each search's policy at every information set, and the exact value of two policies
against each other.

Usage: python benchmarks/kuhn_policy.py [--algorithms ismcts pimc] [--iterations 3000] [--seeds 10]

At each of the twelve information sets (a seat's card and the bets so far) every algorithm searches under
``--seeds`` seeds at the game's defaults; its policy there is the share of seeds that choose each move. Prints one
JSON object: ``policies`` (per algorithm, per information set, the share of Bet) and ``values`` (for each ordered
pair of algorithms, the first's exact mean chips a hand against the second over every deal and both seatings, each
playing its policy as a mixed strategy). A screen to explain arena results, not a strength measurement.
"""

import argparse
import itertools
import json

import engine_ext
import search

CARDS = "JQK"


def deal(cards: tuple[int, int], moves: list[str]) -> engine_ext.State:
    state = engine_ext.new_game("kuhn_poker", 2)
    state.apply(cards[0])
    state.apply(cards[1])
    for move in moves:
        state.apply(state.string_to_action(move))
    return state


HISTORIES = ([], ["Pass"], ["Bet"], ["Pass", "Bet"])


def policy(algorithm: str, iterations: int, seeds: int) -> dict[str, float]:
    """Share of seeds that bet, per information set ``"<card>:<moves>"``."""
    out = {}
    for moves in HISTORIES:
        seat = len(moves) % 2
        for card in range(3):
            other = (card + 1) % 3
            state = deal((card, other) if seat == 0 else (other, card), moves)
            bets = sum(
                search.suggest(state, seat, algorithm=algorithm, iterations=iterations, seed=s).best.text == "Bet"
                for s in range(seeds)
            )
            out[f"{CARDS[card]}:{','.join(moves)}"] = bets / seeds
    return out


def value(first: dict[str, float], second: dict[str, float]) -> float:
    """Seat 0 playing ``first`` against seat 1 playing ``second``: seat 0's mean chips over every deal."""

    def walk(state: engine_ext.State, moves: list[str], cards: tuple[int, int]) -> float:
        if state.is_terminal():
            return state.returns()[0]
        seat = state.current_player()
        key = f"{CARDS[cards[seat]]}:{','.join(moves)}"
        bet = (first if seat == 0 else second)[key]
        total = 0.0
        for move, p in (("Bet", bet), ("Pass", 1.0 - bet)):
            if p > 0:
                after = state.clone()
                after.apply(after.string_to_action(move))
                total += p * walk(after, moves + [move], cards)
        return total

    deals = list(itertools.permutations(range(3), 2))
    return sum(walk(deal(cards, []), [], cards) for cards in deals) / len(deals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithms", nargs="+", default=["ismcts", "pimc"])
    parser.add_argument("--iterations", type=int, default=3000)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    policies = {a: policy(a, args.iterations, args.seeds) for a in args.algorithms}
    values = {
        f"{a} vs {b}": round((value(policies[a], policies[b]) - value(policies[b], policies[a])) / 2, 4)
        for a, b in itertools.permutations(args.algorithms, 2)
    }
    print(json.dumps({"iterations": args.iterations, "seeds": args.seeds, "policies": policies, "values": values}))


if __name__ == "__main__":
    main()
