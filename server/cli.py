"""The ``atoll`` command line: serve, play, suggest, demo."""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import random
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import engine_ext
import search


def at_least(lowest: int, highest: int | None = None):
    """An argparse type: a whole number from ``lowest`` (to ``highest``)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < lowest or (highest is not None and value > highest):
            wanted = f"at least {lowest}" if highest is None else f"{lowest} to {highest}"
            raise argparse.ArgumentTypeError(f"expected {wanted}, got {value}")
        return value

    return parse


def amount(positive: bool):
    """An argparse type: a finite number above 0 (``positive``) or from 0."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        if not math.isfinite(value) or value < 0 or (positive and value == 0):
            raise argparse.ArgumentTypeError(f"expected a number {'above' if positive else 'from'} 0, got {text}")
        return value

    return parse


def output_file(text: str) -> str:
    """An argparse type: a file to write, whose folder is created when missing (``runs/`` on a fresh clone)."""
    from pathlib import Path

    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder; name a file in it")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise argparse.ArgumentTypeError(f"cannot create the folder {path.parent}: {err.strerror}") from None
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise argparse.ArgumentTypeError(f"{text} cannot be written here")
    return text


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
        play_random_game(name, engine_ext.game_info(name).min_players, args.seed)
    return 0


def option_usage(option) -> str:
    """An option as a user types it: ``--eggs 10|6``, ``--layout LETTERS`` (the flag of `atoll play` and `atoll bench
    strength`)."""
    if option.choices:
        value = "|".join(map(str, option.choices))
    elif option.type is int:
        value = "N"
    else:
        value = "LETTERS" if option.required_length else "TEXT"
    return f"--{option.name} {value}"


def option_help(option) -> str:
    """The option's help with its range and default in words (no Python reprs)."""
    text = option.help
    if not option.choices and (option.low is not None or option.high is not None):
        text += f" ({option.low}..{option.high})"
    if option.default is not None:
        text += f"; default {option.default}"
    return text


def games(args: argparse.Namespace) -> int:
    """The registered games with their seats and options (what ListGames answers), options spelled as flags."""
    for name in engine_ext.GAMES:
        info = engine_ext.game_info(name)
        seats = (
            f"{info.min_players}-{info.max_players} players"
            if info.min_players != info.max_players
            else f"{info.min_players} player" + ("s" if info.min_players > 1 else "")
        )
        print(f"{name}: {info.title}, {seats}")
        print(f"  {info.description}")
        width = max((len(option_usage(o)) for o in info.options), default=0)
        for option in info.options:
            print(f"  {option_usage(option):<{width}}  {option_help(option)}")
    print("\nOptions are flags of `atoll play` and `atoll bench strength`, e.g. `atoll play islet_solo --eggs 6`.")
    return 0


def serve(args: argparse.Namespace) -> int:
    from server.app import AtollServer, StoreInUseError

    # Written on the event loop: a thread of its own for the log (QueueListener) measured slower here, one more
    # thread to hand the interpreter to for every call (hosting_load.py's GetView p99 62 ms before it, 91 with it).
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", stream=sys.stderr)
    store = args.store or os.environ.get("ATOLL_STORE") or None
    if store and args.db:
        print("atoll serve: give --store or --db, not both", file=sys.stderr)
        return 2
    try:
        server = AtollServer(
            args.host,
            args.port,
            store or args.db,
            max_searches=args.max_searches,
            kept_trees_mb=args.kept_trees_mb,
            searches_per_caller=args.searches_per_caller,
            queue_wait_s=args.queue_wait,
            streams_per_caller=args.streams_per_caller,
            web_port=args.web_port if args.web else None,
            lease_s=args.lease,
        )
    except ValueError as err:  # a setting out of range: say which, no traceback
        print(f"atoll serve: {err}", file=sys.stderr)
        return 2
    except StoreInUseError as err:
        print(f"atoll serve: {err}", file=sys.stderr)
        return 1
    except (ConnectionError, RuntimeError) as err:  # the store is unreachable, too new, or psycopg is missing
        print(f"atoll serve: {err}", file=sys.stderr)
        return 1

    def ready(server: AtollServer) -> None:
        print(f"Atoll listening on {server.address} (games stored in {server.db_path})", flush=True)
        if server.web is not None:
            host = server.address.rsplit(":", 1)[0]
            print(f"  the page: http://{host}:{server.web.port}/ (Connect protocol on the same port)", flush=True)
        print(
            f"  try (make buf installs buf): buf curl --protocol grpc --http2-prior-knowledge "
            f"http://{server.address}/atoll.v1.Atoll/ListGames",
            flush=True,
        )
        print(
            "  or from Python: from atoll.client import AtollClient; AtollClient('"
            + server.address
            + "').list_games()",
            flush=True,
        )

    try:
        server.serve_forever(on_ready=ready)
    except FileNotFoundError as err:  # --web before make web
        print(f"atoll serve: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # the port is taken
        print(f"atoll serve: {err}", file=sys.stderr)
        return 1
    return 0


SUGGEST_FORMAT = (
    "give a seat's observation as JSON: either the object `state.observation(seat)` returns "
    '(e.g. {"game": "kuhn_poker", "players": 2, "seat": 0, ...}) or the View that GetView returns '
    "(its `observation` field is read)"
)


def read_observation(path: str) -> dict:
    """A seat's observation from a JSON file ('-': stdin): an engine observation or a GetView response."""
    from google.protobuf import json_format

    from atoll.v1 import atoll_pb2 as pb
    from server import codec

    try:
        with open(path) if path != "-" else sys.stdin as source:
            data = json.load(source)
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not JSON ({err.msg}, line {err.lineno}); {SUGGEST_FORMAT}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} holds a JSON {type(data).__name__}, not an object; {SUGGEST_FORMAT}")
    if "observation" in data:  # a View (GetView, WatchGame) as protobuf JSON
        try:
            view = json_format.ParseDict(data, pb.View(), ignore_unknown_fields=True)
            return codec.observation_from_proto(view.observation)
        except (json_format.ParseError, codec.CodecError) as err:
            raise ValueError(f"{path}: not a View ({err}); {SUGGEST_FORMAT}") from None
    if "game" not in data:
        raise ValueError(f"{path} has no 'game' field; {SUGGEST_FORMAT}")
    return data


def suggest(args: argparse.Namespace) -> int:
    """One-shot analysis of a seat's observation (see ``SUGGEST_FORMAT``)."""
    try:
        obs = read_observation(args.observation)
        result = search.suggest(
            obs,
            obs.get("seat", 0),
            iterations=args.iterations,
            time_ms=args.time_ms,
            seed=args.seed,
            top_k=args.top_k,
            threads=args.threads,
        )
    except (ValueError, KeyError, TypeError) as err:
        print(f"atoll suggest: {err}", file=sys.stderr)
        return 2
    print(
        json.dumps(
            {"moves": [m.__dict__ for m in result.moves], "stats": result.stats, "belief": result.belief}, indent=2
        )
    )
    return 0


def render(args: argparse.Namespace) -> int:
    """A seat's board as SVG, from its observation or a GetView saved as JSON; arrows along ``--move`` texts."""
    from engine_ext.render import arrows_of, svg

    try:
        obs = read_observation(args.observation)
        text = svg(obs, arrows_of(args.move or []))
    except (ValueError, KeyError, TypeError) as err:
        print(f"atoll render: {err}", file=sys.stderr)
        return 2
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


def option_pairs(texts: list[str] | None) -> dict[str, str]:
    """``--option NAME=VALUE`` flags as a dict (the game's record types and checks the values)."""
    pairs = {}
    for text in texts or []:
        name, sep, value = text.partition("=")
        if not sep or not name:
            raise ValueError(f"--option takes NAME=VALUE, not {text[:40]!r}")
        pairs[name] = value
    return pairs


def game_options(args: argparse.Namespace, info) -> dict[str, str]:
    """The game options given as flags (``--eggs 6``; ``--option eggs=6`` is the same), each checked to be one of
    this game's (``InvalidOption`` names it)."""
    options = {name: value for name, value in vars(args).items() if name in OPTION_NAMES and value is not None}
    options.update(option_pairs(args.option))
    for name in options:
        info.option(name)  # InvalidOption when this game has no such option
    return options


def add_option_flags(cmd: argparse.ArgumentParser) -> None:
    """Every registered game's options as flags (``atoll games`` lists which game takes which)."""
    for name, helps in OPTION_HELP.items():
        cmd.add_argument(f"--{name}", default=None, help="game option: " + "; ".join(helps))
    cmd.add_argument("--option", action="append", metavar="NAME=VALUE", help=argparse.SUPPRESS)


# Every registered game's options become flags of `atoll play` and `atoll bench strength` (e.g. --eggs 6).
OPTION_HELP: dict[str, list[str]] = {}
for _name in engine_ext.GAMES:
    for _option in engine_ext.game_info(_name).options:
        OPTION_HELP.setdefault(_option.name, []).append(f"{_name}: {_option.describe()}")
OPTION_NAMES = frozenset(OPTION_HELP)


def store_copy(args: argparse.Namespace) -> int:
    """Every game of one store into another (SQLite file or postgresql:// URL, either way); games already there are
    left as they are."""
    from server import pg_store
    from server.store import GameStore

    def open_store(where: str):
        return pg_store.PostgresStore(where) if pg_store.is_postgres(where) else GameStore(where)

    try:
        if not pg_store.is_postgres(args.source) and not Path(args.source).is_file():
            raise ValueError(f"no SQLite store at {args.source}")
        source, target = open_store(args.source), open_store(args.target)
    except (ValueError, ConnectionError, RuntimeError) as err:
        print(f"atoll store copy: {err}", file=sys.stderr)
        return 2
    copied = kept = 0
    try:
        present = set(target.game_ids())
        for game_id in source.game_ids():
            if game_id in present:
                kept += 1
                continue
            record, moves = source.load(game_id)
            target.create(record, moves)
            copied += 1
    finally:
        source.close()
        target.close()
    print(f"copied {copied} games ({kept} already there)")
    return 0


def terminal_play(args: argparse.Namespace) -> int:
    from server.terminal import play

    try:
        options = game_options(args, engine_ext.game_info(args.game))
    except ValueError as err:
        print(f"atoll play: {err}", file=sys.stderr)
        return 2
    return play(args, options)


def bench_strength(args: argparse.Namespace) -> int:
    """A strength tournament (search.arena): duplicate deals, resumable JSONL, JSON summary, optional SPRT and plot."""
    from pathlib import Path

    from search import arena

    try:
        parsed = [arena.parse_config(text, args.game) for text in args.bot]
        twice = sorted(name for name, count in Counter(name for name, _ in parsed).items() if count > 1)
        if twice:
            raise ValueError(f"--bot names must differ; given more than once: {', '.join(twice)}")
        configs = dict(parsed)
        names = list(configs)
        lineups = [line.split(",") for line in args.lineup] or arena.default_lineups(names, args.players)
        info = engine_ext.game_info(args.game)
        options = {name: info.option(name).parse(value) for name, value in game_options(args, info).items()}
        tournament = arena.Tournament(
            args.game, args.players, configs, lineups, args.deals, args.seed, options, args.first_deal
        )
        if args.plot:
            arena.optional_pyplot()  # before the games, not after them: the plot is drawn last
        if args.players > 2 and not arena.installed("openskill"):
            print(f"atoll bench strength: {arena.OPENSKILL_MISSING}; the summary will have none", file=sys.stderr)
        if args.against is not None and args.against not in configs:
            raise ValueError(f"--against {args.against!r} is not one of the --bot names ({', '.join(names)})")
    except (ValueError, KeyError, RuntimeError) as err:
        print(f"atoll bench strength: {err}", file=sys.stderr)
        return 2
    stop, bounds = None, None
    if args.sprt:
        lineup = lineups[0]
        try:
            elo0, elo1 = arena.sprt_bounds(args.sprt)
        except ValueError as err:
            print(f"atoll bench strength: --sprt {err}", file=sys.stderr)
            return 2
        if not engine_ext.game_info(args.game).returns_are_win_shares or not arena.one_against_field(lineup):
            print(
                "atoll bench strength: --sprt needs a game won or lost (not chips) and a first lineup of one "
                f"configuration against copies of another (A,B or A,B,B,B), not {','.join(lineup)}",
                file=sys.stderr,
            )
            return 2
        stop = arena.sprt_stop(",".join(lineup), lineup[0], elo0, elo1, lineup)
        bounds = (elo0, elo1)
    total = sum(len(arena.seat_permutations(line)) for line in lineups) * args.deals
    out = Path(args.out) if args.out else None
    started = time.perf_counter()
    try:
        executor = arena.RayExecutor(args.ray) if args.ray else arena.local_executor(args.workers)
    except (ValueError, RuntimeError) as err:  # RuntimeError: Ray is not installed
        print(f"atoll bench strength: --ray: {err}", file=sys.stderr)
        return 2
    progress = None if args.quiet else arena.Progress(tournament, total, sprt=bounds)
    try:
        results = arena.run(tournament, out, executor, progress=progress, stop=stop)
    except KeyboardInterrupt as err:  # arena.run has ended the games in flight (a Ctrl-C or a SIGTERM)
        if out:
            kept = f"{len(arena.load_results(out, tournament))} games are in {out}. The same command resumes the run."
        else:
            kept = "nothing was kept (no --out)."
        word, code = stopped_by(err)
        print(f"\natoll bench strength: {word}; {kept}", file=sys.stderr)
        return code
    except arena.ResultsFileError as err:  # read before any game is played: nothing was run or written
        print(f"atoll bench strength: --out: {err}", file=sys.stderr)
        return 2
    except arena.GameFailedError as err:  # a bug, not a bad request: the traceback, then which game and how to resume
        import traceback

        traceback.print_exception(err.__cause__, file=sys.stderr)
        kept = (
            f" ({len(arena.load_results(out, tournament))} games are in {out}; once mended, the same command resumes)"
            if out
            else ""
        )
        print(f"\natoll bench strength: {err}{kept}", file=sys.stderr)
        return 1
    finally:
        executor.shutdown()
    if not args.quiet:
        print(file=sys.stderr)
    summary = arena.summarize(tournament, results)
    summary["seconds_this_run"] = round(time.perf_counter() - started, 1)
    summary["command"] = "atoll bench strength " + " ".join(sys.argv[3:] if len(sys.argv) > 3 else [])
    if args.sprt:
        lineup = lineups[0]
        games = [r for r in results if r["match"] == ",".join(lineup)]
        summary["sprt"] = arena.sprt_report(lineup, games, elo0, elo1)
    if args.plot:
        arena.plot_strength(summary, tournament, Path(args.plot), args.against or names[-1])
    from search.bench import write_json

    write_json(summary, Path(args.summary) if args.summary else None)
    return 0


def steps(args: argparse.Namespace):
    """A report's progress, one line on stderr per step as it starts (stdout stays the JSON), unless --quiet."""
    started = time.monotonic()

    def show(step: str) -> None:
        if not args.quiet:
            print(f"{time.monotonic() - started:6.1f} s  {step}", file=sys.stderr, flush=True)

    return show


def bench_speed(args: argparse.Namespace) -> int:
    from pathlib import Path

    from search import bench

    report = bench.speed_report(
        args.games or list(engine_ext.GAMES), args.seconds, args.threads, not args.no_openspiel, steps(args)
    )
    if args.plot:
        bench.plot_speed(report, Path(args.plot))
    bench.write_json(report, Path(args.out) if args.out else None)
    return 0


def bench_metrics(args: argparse.Namespace) -> int:
    from pathlib import Path

    from search import bench

    report = bench.metrics_report(
        args.games or list(engine_ext.GAMES), args.games_per_count, args.greedy_deals, args.workers, steps(args)
    )
    bench.write_json(report, Path(args.out) if args.out else None)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="atoll", description="AI opponents for island board games")
    commands = parser.add_subparsers(dest="command", required=True)
    cmd = commands.add_parser("serve", help="run the gRPC server")
    cmd.add_argument("--host", default="127.0.0.1")
    cmd.add_argument("--port", type=at_least(0, 65535), default=50051, help="0 picks a free port (printed at start)")
    cmd.add_argument("--db", default=None, help="SQLite file for hosted games (default: under the user data dir)")
    cmd.add_argument(
        "--store", default=None, metavar="URL",
        help="the hosted games' store: postgresql://user@host/db, or a SQLite file (default: $ATOLL_STORE, else --db)",
    )  # fmt: skip
    cmd.add_argument(
        "--lease", type=amount(positive=True), default=5.0, metavar="SECONDS",
        help="on a PostgreSQL store: a replica silent this long is gone, and another takes over its games' bots",
    )  # fmt: skip
    cmd.add_argument(
        "--web", action="store_true", help="also serve the browser page and the Connect protocol (build it: make web)"
    )
    cmd.add_argument(
        "--web-port", type=at_least(0), default=8080, help="the page's port (default: 8080; 0: any free one)"
    )
    cmd.add_argument(
        "--max-searches", type=at_least(1), default=None, help="search threads at once (default: 1 per core)"
    )
    cmd.add_argument(
        "--searches-per-caller",
        type=at_least(1),
        default=None,
        help="search threads one caller may hold while others wait (default: half of --max-searches, at least 1)",
    )
    cmd.add_argument(
        "--queue-wait",
        type=amount(positive=True),
        default=10.0,
        help="seconds a search may wait for a free slot before RESOURCE_EXHAUSTED (default: 10)",
    )
    cmd.add_argument(
        "--streams-per-caller", type=at_least(1), default=100, help="open streams per caller (default: 100)"
    )
    cmd.add_argument(
        "--kept-trees-mb",
        type=amount(positive=False),
        default=None,
        help="memory for hosted bots' kept search trees and belief filters, all games together (default: 256); past "
        "it the least recently played games' are released and rebuilt by replay when they go on (0: none are kept; a "
        "bot's next search starts afresh, or rebuilds beliefs that come from the moves alone by seeing them again)",
    )
    cmd.set_defaults(run=serve)
    cmd = commands.add_parser("play", help="play a game against bots in the terminal")
    cmd.add_argument("game", choices=engine_ext.GAMES)
    cmd.add_argument("--players", type=int, default=None, help="default: 2, or the game's only seat count")
    cmd.add_argument("--seat", type=int, default=0)
    add_option_flags(cmd)
    cmd.add_argument("--seed", type=int, default=None, help="a fixed seed makes the deal predictable (default: secret)")
    cmd.add_argument("--iterations", type=at_least(1), default=1000)
    cmd.set_defaults(run=terminal_play)
    cmd = commands.add_parser("render", help="a seat's board as SVG, from its observation or GetView JSON file")
    cmd.add_argument("observation", help="an observation or a View (GetView, WatchGame) as JSON ('-' for stdin)")
    cmd.add_argument("-o", "--out", type=output_file, help="the SVG file (default: stdout)")
    cmd.add_argument(
        "--move", action="append", metavar="TEXT", help="draw arrows along a move as the grammar writes it (repeatable)"
    )
    cmd.set_defaults(run=render)
    stores = commands.add_parser("store", help="hosted games' stores").add_subparsers(
        dest="store_command", required=True
    )
    cmd = stores.add_parser("copy", help="copy every game of a store into another (SQLite file or postgresql:// URL)")
    cmd.add_argument("source")
    cmd.add_argument("target")
    cmd.set_defaults(run=store_copy)
    cmd = commands.add_parser("games", help="list the registered games, their seats and options")
    cmd.set_defaults(run=games)
    cmd = commands.add_parser(
        "suggest", help="one-shot analysis of a seat's observation or GetView JSON file ('-' for stdin)"
    )
    cmd.add_argument("observation")
    cmd.add_argument("--iterations", type=at_least(1), default=None)
    cmd.add_argument("--time-ms", type=amount(positive=True), default=None)
    cmd.add_argument("--threads", type=at_least(1), default=1)
    cmd.add_argument("--seed", type=int, default=0)
    cmd.add_argument("--top-k", type=at_least(1), default=5)
    cmd.set_defaults(run=suggest)
    bench = commands.add_parser("bench", help="strength tournaments, speed and game-metric reports").add_subparsers(
        dest="report", required=True
    )
    cmd = bench.add_parser("strength", help="a tournament between bot configurations on duplicate deals")
    cmd.add_argument("--game", required=True, choices=engine_ext.GAMES)
    cmd.add_argument("--players", type=int, default=2)
    cmd.add_argument(
        "--bot", action="append", required=True, metavar="NAME=ALGORITHM[,KEY=VALUE...]",
        help="a configuration, e.g. ismcts3k=ismcts,iterations=3000 (settings: those of BotSettings)",
    )  # fmt: skip
    cmd.add_argument(
        "--lineup", action="append", default=[], metavar="NAME,NAME,...",
        help="the configuration at each seat; every seat permutation is played per deal (default: every pair)",
    )  # fmt: skip
    cmd.add_argument("--deals", type=at_least(1), default=100, help="deal groups per lineup")
    cmd.add_argument(
        "--first-deal", type=at_least(0), default=0, metavar="N",
        help="play deals N to N+DEALS-1 of the match (a shard: shards' --out files joined are the whole match's)",
    )  # fmt: skip
    add_option_flags(cmd)
    cmd.add_argument("--seed", type=at_least(0), default=0)
    cmd.add_argument(
        "--out", type=output_file, help="JSONL file of finished games: a rerun of the same command continues it"
    )
    cmd.add_argument("--summary", type=output_file, help="also write the JSON summary here")
    cmd.add_argument("--workers", type=at_least(1), default=2, help="local worker processes (spawn)")
    cmd.add_argument("--ray", metavar="ADDRESS", help="run the games on Ray (auto, ray://host:port, local:N)")
    cmd.add_argument(
        "--sprt",
        metavar="ELO0,ELO1",
        help="stop when the SPRT on the first lineup (A,B or A,B,B,B) decides: is A stronger than B by ELO1",
    )
    cmd.add_argument("--plot", type=output_file, help="PNG: win share by iterations, one line per algorithm")
    cmd.add_argument("--against", help="the opponent the plot measures against (default: the last --bot)")
    cmd.add_argument("--quiet", action="store_true", help="no progress line")
    cmd.set_defaults(run=bench_strength)
    cmd = bench.add_parser("speed", help="engine and search speed of every game (and OpenSpiel's, if installed)")
    cmd.add_argument("--games", nargs="*", choices=engine_ext.GAMES)
    cmd.add_argument("--seconds", type=amount(positive=True), default=1.0)
    cmd.add_argument("--threads", type=at_least(1), default=1)
    cmd.add_argument("--no-openspiel", action="store_true")
    cmd.add_argument("--out", type=output_file)
    cmd.add_argument("--plot", type=output_file)
    cmd.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    cmd.set_defaults(run=bench_speed)
    cmd = bench.add_parser("metrics", help="game length, branching, chance, hidden facts, seat advantage")
    cmd.add_argument("--games", nargs="*", choices=engine_ext.GAMES)
    cmd.add_argument("--games-per-count", type=at_least(1), default=200, help="random games per game and player count")
    cmd.add_argument(
        "--greedy-deals", type=at_least(0), default=20, help="duplicate deals of greedy against random (0: skip)"
    )
    cmd.add_argument("--workers", type=at_least(1), default=2)
    cmd.add_argument("--out", type=output_file)
    cmd.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    cmd.set_defaults(run=bench_metrics)
    cmd = commands.add_parser("demo", help="play one random game of every registered game and print it")
    cmd.add_argument("--seed", type=int, default=0)
    cmd.set_defaults(run=demo)
    return parser


class Terminated(KeyboardInterrupt):
    """A SIGTERM (a cluster's preemption, systemd stopping a unit, ``kill``), ended like a Ctrl-C: the command's
    own word on it, then exit code 143 (128 + 15) instead of 130."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated


def stopped_by(err: KeyboardInterrupt) -> tuple[str, int]:
    """What a stopped command says it was (``interrupted`` or ``terminated``) and its exit code."""
    return ("terminated", 128 + signal.SIGTERM) if isinstance(err, Terminated) else ("interrupted", 130)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # Python takes signal handlers on the main thread only; called from another (an embedding program's worker), a
    # command runs without one and a SIGTERM does what that program set it to do.
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _on_sigterm) if on_main else None  # serve replaces it with its own stop
    try:
        return args.run(args)
    except KeyboardInterrupt as err:  # a command without its own word on it (serve and bench strength have theirs)
        word, code = stopped_by(err)
        print(f"\natoll: {word}", file=sys.stderr)
        return code
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
