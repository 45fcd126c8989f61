"""The ``atoll`` command line."""

import argparse
import random
import sys

import engine_ext


def play_random_game(name: str, players: int, seed: int) -> engine_ext.State:
    """Play one game of ``name`` with uniformly random decisions and chance drawn by its probabilities."""
    rng = random.Random(seed)
    state = engine_ext.new_game(name, players, seed)
    print(f"== {name}, {players} players, seed {seed}")
    while not state.is_terminal():
        player = state.current_player()
        if player == engine_ext.CHANCE:
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
            who = "chance"
        else:
            action = rng.choice(state.legal_actions())
            who = f"seat {player}"
        print(f"  {who:>7}: {state.action_to_string(action)}")
        state.apply(action)
    print(f"  {state}")
    print(f"  scores {state.scores()}  returns {state.returns()}")
    return state


def demo(args: argparse.Namespace) -> int:
    for name in engine_ext.GAMES:
        play_random_game(name, 2, args.seed)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atoll", description="AI opponents for island board games")
    commands = parser.add_subparsers(dest="command", required=True)
    demo_cmd = commands.add_parser("demo", help="play one random game of every registered game and print it")
    demo_cmd.add_argument("--seed", type=int, default=0)
    demo_cmd.set_defaults(run=demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
