"""``atoll play``: a person plays one seat against bots in a terminal. Everything shown comes from that seat's
observation: the board (Survive's with the coordinates moves are written in), the seat's own pieces and hand in
words, the legal moves grouped, per-game examples in ``help``, and hints whose chance draws are marked as one sampled
world's, not a forecast."""

from __future__ import annotations

import argparse
import re
import secrets
import sys
import textwrap

import engine_ext
import search
from engine_ext.render import text as text_boards

CELL = re.compile(r"\(-?\d+,-?\d+\)|\b(?:NW|NE|SW|SE)\b")
MOVES_SHOWN = 40
COMMANDS = """commands:
  <move text>   play a move, written as `moves` lists it{examples}
  moves         the legal moves, grouped by piece and kind (`moves all`: one a line)
  hint          the bot's top three moves for you, with their win chances and expected lines
  board         the board again
  help          this list
  quit          leave the game (end of input does the same)"""


def play(args: argparse.Namespace, options: dict) -> int:
    """Play ``args.game`` at seat ``args.seat`` against bots of ``args.iterations``; chance and the bots go through
    the one game loop (``search.play``) with a fresh secret seed unless one is given."""
    from search import play as game_loop

    info = engine_ext.game_info(args.game)
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    players = args.players if args.players is not None else max(info.min_players, min(2, info.max_players))
    me = args.seat
    if not 0 <= me < players:
        print(f"atoll play: --seat must be 0..{players - 1}", file=sys.stderr)
        return 2
    bots = [None if seat == me else game_loop.BotSettings(iterations=args.iterations) for seat in range(players)]
    try:
        position = game_loop.Position(game_loop.new_game(args.game, players, seed, options))
    except ValueError as err:
        print(f"atoll play: {err}", file=sys.stderr)
        return 2
    state = position.state
    seats = f"{players} player" + ("s" if players != 1 else "")
    print(f"{info.title}, {seats}; you are seat {me}. Type `help` for the commands.")
    while True:
        before = state.clone()
        for step in game_loop.play(position, seed, bots):
            mine = engine_ext.from_observation(args.game, before.observation(me))
            who = "chance" if step.actor == engine_ext.CHANCE else f"seat {step.actor}"
            print(f"  {who}: {mine.action_to_string(before.observed_action(step.action, me))}")
            before = state.clone()
        if state.is_terminal():
            break
        print(board(info, state, me))
        if not ask_move(state, me, info, args.iterations, seed, position):
            return 0
    print(board(info, state, me))
    print(f"game over: scores {state.scores()}, returns {state.returns()} (seed {seed})")
    return 0


def board(info, state: engine_ext.State, me: int) -> str:
    """The seat's board and what it holds, from its observation alone, each fact once."""
    observation = state.observation(me)
    if info.name == "survive":
        status = info.draw(observation).splitlines()[-1]  # the turn, phase and score line
        return "\n".join([text_boards.survive(observation), status, text_boards.survive_own(observation)])
    drawn = info.draw(observation)
    if info.name in ("kuhn_poker", "leduc_poker"):
        return drawn + "\n" + readable_private(state.private_info(me))
    return drawn + "\n" + LEGENDS.get(info.name, "")


LEGENDS = {
    "islet": "legend: / a tile pointing up, \\ down; then terrain W water, S sand, C clay; nest l leaves, b branches, "
    "f flowers; the stack's height; the egg's seat A-D (. none); a pawn's seat a-d (. none); ~ sea",
    "islet_solo": "legend: / a tile pointing up, \\ down; then terrain W water, S sand, C clay; nest l leaves, b "
    "branches, f flowers; the stack's height; an egg A (. none); your pawn a (. none); ~ sea",
    "small_islands": "legend: each tile 3x3, land # and sea ~ on its edges; icons f flower, r fruit, l leaf, t temple, "
    "h house mark, p port (upper case: a House placed / a Bonus port); a ship ~X~ by its colour's initial",
}


def readable_private(private: dict) -> str:
    """A seat's private facts as ``key: value`` lines (lists and maps flattened)."""
    lines = []
    for key, value in private.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        elif isinstance(value, list):
            value = ", ".join(str(v) for v in value)
        lines.append(f"  your {key.replace('_', ' ')}: {value}")
    return "\n".join(lines)


def grouped(moves: list[str]) -> list[str]:
    """Moves that differ only in their last cell as one line (``place red:1 [cell]  cell: (0,-3) (1,-3) ...``: type
    the move with one of the cells), in the order the moves come; others as they are."""
    groups: dict[str, list[str]] = {}
    for move in moves:
        cells = list(CELL.finditer(move))
        if cells and cells[-1].end() == len(move):
            groups.setdefault(move[: cells[-1].start()], []).append(cells[-1].group())
        else:
            groups.setdefault(move, [])
    shared: dict[tuple[str, ...], list[str]] = {}  # pieces with the same cells to go to share one line
    for key, cells in groups.items():
        shared.setdefault(tuple(cells) if len(cells) > 1 else (key, *cells), []).append(key)
    lines = []
    for cells, keys in shared.items():
        if len(keys) == 1 and (len(cells) < 2 or cells[0] == keys[0]):
            key = keys[0]
            single = [c for c in cells if c != key]
            lines.append(key + single[0] if single else key)
            continue
        heads = " / ".join(f"{key}[cell]" for key in keys)
        if len(heads) + len(cells) * 8 < 110:
            lines.append(f"{heads}  cell: {' '.join(cells)}")
            continue
        lines.extend(textwrap.wrap(heads, 116, subsequent_indent="    "))
        lines.extend(textwrap.wrap(f"cell: {' '.join(cells)}", 116, initial_indent="    ", subsequent_indent="      "))
    return lines


def examples(moves: list[str]) -> str:
    """One move of each kind the seat may play now, as ``help`` shows them."""
    kinds: dict[str, str] = {}
    for move in moves:
        kinds.setdefault(move.split(" ")[0], move)
    shown = list(kinds.values())[:4]
    return f" (now, e.g. {', '.join(shown)})" if shown else ""


def hint_lines(result: search.SearchResult, me: int) -> list[str]:
    out = []
    for m in result.moves[:3]:
        steps = []
        for k, (step, actor) in enumerate(zip(m.pv[:6], m.pv_actors[:6] or [me] * len(m.pv[:6]), strict=False)):
            if k == 0:
                continue
            who = "you" if actor == me else "a sampled draw" if actor == engine_ext.CHANCE else f"seat {actor}"
            steps.append(f"{who}: {step}")
        line = f"; then {' / '.join(steps)}" if steps else ""
        out.append(f"  {m.text}  (win {m.win_prob:.2f}, {m.visits} visits){line}")
    if any(a == engine_ext.CHANCE for m in result.moves[:3] for a in m.pv_actors):
        out.append("  (a sampled draw is what one sampled world dealt, not a forecast of the draw)")
    return out


def not_legal(mine: engine_ext.State, text: str) -> str:
    """Why a well-formed move is refused: the moves of its kind that are legal now, or the kinds that are."""
    legal = [mine.action_to_string(a) for a in mine.legal_actions()]
    kind = text.split(" ")[0]
    same = [m for m in legal if m.split(" ")[0] == kind]
    if same:
        return f"  {text[:60]!r} is not legal here; the legal `{kind}` moves: {', '.join(same[:8])}" + (
            f" (and {len(same) - 8} more)" if len(same) > 8 else ""
        )
    kinds = sorted({m.split(" ")[0] for m in legal})
    return (
        f"  {text[:60]!r} is not legal here: no `{kind}` move now (legal now: {', '.join(kinds)}; `moves` lists them)"
    )


def ask_move(state: engine_ext.State, me: int, info, iterations: int, seed: int, position) -> bool:
    """Prompt until the person plays a legal move (True) or leaves (False)."""
    mine = info.from_observation(state.observation(me))
    legal = [mine.action_to_string(a) for a in mine.legal_actions()]
    while True:
        try:
            text = input(f"seat {me}> ").strip()
        except EOFError:
            print()
            return False
        if text in ("quit", "exit"):
            return False
        if text in ("help", "?"):
            print(COMMANDS.format(examples=examples(legal)))
        elif text == "board":
            print(board(info, state, me))
        elif text == "moves all":
            print("  " + "\n  ".join(legal))
        elif text == "moves":
            lines = grouped(legal)
            print("  " + "\n  ".join(lines[:MOVES_SHOWN]))
            if len(lines) > MOVES_SHOWN:
                print(f"  ... {len(lines) - MOVES_SHOWN} more lines (`moves all` lists every move)")
        elif text == "hint":
            result = search.suggest(state.observation(me), me, iterations=iterations * 2, seed=seed + position.moves)
            print("\n".join(hint_lines(result, me)))
        elif text:
            try:
                action = mine.string_to_action(text)
            except engine_ext.InvalidMoveText:
                kinds = {m.split(" ")[0] for m in legal}
                if text.split(" ")[0] in kinds:
                    print(not_legal(mine, text))
                else:
                    print(f"  {text[:60]!r} is not a move of this game; `moves` lists the legal ones")
                continue
            if action not in mine.legal_actions():
                print(not_legal(mine, text))
                continue
            position.apply(action)
            return True
