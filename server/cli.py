"""The ``atoll`` command line: serve, play, suggest, demo."""

from __future__ import annotations

import argparse
import json
import logging
import random
import sys

import engine_ext
import search


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


def serve(args: argparse.Namespace) -> int:
    from server.app import AtollServer

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    server = AtollServer(args.host, args.port, args.db, max_searches=args.max_searches)
    print(f"Atoll listening on {server.address} (games stored in {server.db_path})", flush=True)
    print(
        f"  try: buf curl --protocol grpc --http2-prior-knowledge http://{server.address}/atoll.v1.Atoll/ListGames",
        flush=True,
    )
    print(
        "  or from Python: from atoll.client import AtollClient; AtollClient('" + server.address + "').list_games()",
        flush=True,
    )
    server.serve_forever()
    return 0


def suggest(args: argparse.Namespace) -> int:
    """One-shot analysis of a JSON observation (a seat's view, as ``state.observation(seat)`` writes it)."""
    with open(args.observation) if args.observation != "-" else sys.stdin as source:
        obs = json.load(source)
    try:
        result = search.suggest(
            obs,
            obs.get("seat", 0),
            iterations=args.iterations,
            time_ms=args.time_ms,
            seed=args.seed,
            top_k=args.top_k,
            threads=args.threads,
        )
    except (ValueError, KeyError) as err:
        print(f"atoll suggest: {err}", file=sys.stderr)
        return 2
    print(
        json.dumps(
            {"moves": [m.__dict__ for m in result.moves], "stats": result.stats, "belief": result.belief}, indent=2
        )
    )
    return 0


def play(args: argparse.Namespace) -> int:
    """A person plays one seat against bots in the terminal; 'hint' asks the bot, 'moves' lists legal moves."""
    state = engine_ext.new_game(args.game, args.players, args.seed)
    rng = random.Random(args.seed)
    me = args.seat
    while not state.is_terminal():
        player = state.current_player()
        if player == engine_ext.CHANCE:
            outcomes = state.chance_outcomes()
            action = rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
            print(f"  chance: {state.action_to_string(state.observed_action(action, me))}")
            state.apply(action)
            continue
        if player != me:
            action = search.suggest(state, player, iterations=args.iterations, seed=rng.getrandbits(32)).best.action
            print(f"  seat {player}: {state.action_to_string(state.observed_action(action, me))}")
            state.apply(action)
            continue
        if state.game_name == "survive":
            print(state)
        print(json.dumps(state.private_info(me)))
        while True:
            try:
                text = input(f"seat {me}> ").strip()
            except EOFError:
                return 1
            if text == "hint":
                result = search.suggest(state, me, iterations=args.iterations * 2, seed=rng.getrandbits(32))
                for m in result.moves[:3]:
                    print(f"  {m.text}  (win {m.win_prob:.2f}, {m.visits} visits)  line: {' / '.join(m.pv[:4])}")
                continue
            if text == "moves":
                print("  " + "\n  ".join(state.action_to_string(a) for a in state.legal_actions()[:60]))
                continue
            if text == "quit":
                return 1
            try:
                state.apply(state.string_to_action(text))
                break
            except engine_ext.IllegalAction as err:
                print(f"  {err}")
    print(state if state.game_name == "survive" else "")
    print(f"game over: scores {state.scores()}, returns {state.returns()}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atoll", description="AI opponents for island board games")
    commands = parser.add_subparsers(dest="command", required=True)
    cmd = commands.add_parser("serve", help="run the gRPC server")
    cmd.add_argument("--host", default="127.0.0.1")
    cmd.add_argument("--port", type=int, default=50051, help="0 picks a free port (printed at start)")
    cmd.add_argument("--db", default=None, help="SQLite file for hosted games (default: under the user data dir)")
    cmd.add_argument("--max-searches", type=int, default=None, help="searches at once (default: 2 per core)")
    cmd.set_defaults(run=serve)
    cmd = commands.add_parser("play", help="play a game against bots in the terminal")
    cmd.add_argument("game", choices=engine_ext.GAMES)
    cmd.add_argument("--players", type=int, default=2)
    cmd.add_argument("--seat", type=int, default=0)
    cmd.add_argument("--seed", type=int, default=0)
    cmd.add_argument("--iterations", type=int, default=1000)
    cmd.set_defaults(run=play)
    cmd = commands.add_parser("suggest", help="one-shot analysis of a JSON observation file ('-' for stdin)")
    cmd.add_argument("observation")
    cmd.add_argument("--iterations", type=int, default=None)
    cmd.add_argument("--time-ms", type=float, default=None)
    cmd.add_argument("--threads", type=int, default=1)
    cmd.add_argument("--seed", type=int, default=0)
    cmd.add_argument("--top-k", type=int, default=5)
    cmd.set_defaults(run=suggest)
    cmd = commands.add_parser("demo", help="play one random game of every registered game and print it")
    cmd.add_argument("--seed", type=int, default=0)
    cmd.set_defaults(run=demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
