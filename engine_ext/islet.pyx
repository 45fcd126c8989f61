# cython: language_level=3
"""Islet (2-4 players, and the solo mode) on the Cython core.

Registered twice: ``"islet"`` for 2-4 players and ``"islet_solo"`` (1 player, option ``eggs`` = 10 or 6). Every
random event is a chance node (the start islet, the hands, each draw, the solo cards and removals), so ``new_game``'s
seed changes nothing; the seed of a hosted game decides the chance outcomes.

The rules are the rulebook's, completed by ``docs/rules/islet.md`` (the board geometry, the start islet, the 13 cards
and the project's rulings). In brief:
- The board is a triangular grid: cell ``(x, y)`` points up when ``x + y`` is odd; its edge neighbours are
  ``(x-1, y)``, ``(x+1, y)`` and ``(x, y+1)`` (pointing up) or ``(x, y-1)`` (pointing down). The sea is every empty
  cell beside a tile. A cell holds a stack; its height is the number of tiles, its top tile gives terrain and nest.
- A turn is one EXPLORE (1-4 placements: the first on a sea cell, then each on a tile beside the last one placed,
  without bird or egg, at least as high as it; a resource per tile; draw up to 4; return resources above 8) or one
  MOVE (ADVANCE and LAY steps in any order, then ``end move``).
- Payments are part of the action: every minimal way to pay (which unguaranteed cards return to their stacks, which
  guaranteed resources are turned over, transforms included) is its own action.
- The game ends after the round in which a seat lays its last egg, or one full round after the round in which the
  last tile leaves the bag. Most eggs wins; ties go to the highest egg, then the next highest; otherwise shared.

Rulings this module adds where the rulebook and our rulings are silent (each is tested):
- Only minimal payments are offered: a payment from which one card could be left out is not an action.
- A game ends after its 200th round (solo: turn), a safeguard against players who never explore; the usual result
  applies (a solo game is then lost).
- Tiles removed from the bag in the solo mode are seen (they go back to the box face up), so the bag stays known.
- When a lay with no free egg releases a guaranteed resource of a type of which one was turned over this turn, the
  turned-over one is released.

Information: everything is public except the hands (each seat sees its own; the others' sizes) and the bag's order;
``determinize`` deals the other seats' hands afresh from the tiles the seat has not seen.
"""

import collections
import json
import re
import sys
from importlib import resources

from libc.stdint cimport int32_t, uint8_t
from libc.string cimport memset

from engine_ext.core cimport State
from engine_ext.core cimport check_int as _check_int
from engine_ext.islet_rules cimport *

from engine_ext.core import IllegalAction, InvalidObservation
from engine_ext.fields import XY as _XY
from engine_ext.fields import parse_xy
from engine_ext.fields import first_difference as _first_difference
from engine_ext.registry import GameInfo, GameOption, SearchDefaults

TERRAINS = ("water", "sand", "clay")
NESTS = ("leaves", "branches", "flowers")
RESOURCES = TERRAINS + NESTS
TILE_TYPES = tuple(f"{t}/{n}" for t in TERRAINS for n in NESTS)
PHASES = ("setup_islet", "setup_cards", "setup_hand", "setup_pawn", "turn", "explore", "draw", "discard", "remove",
          "move", "refill", "over")
EGGS_PER_PLAYER = {1: 10, 2: 10, 3: 8, 4: 6}
BANDS = ((15, "ideal ecosystem"), (10, "the island's endangered species saved"), (7, "the wildlife is thriving"),
         (4, "the flora is starting to bloom"), (0, "try again"))
# The 13 day/night cards: (day side, night side), read on the pawn's cell (docs/rules/islet.md).
CARDS = {
    1: ("terrain water", "nest leaves"), 2: ("terrain sand", "nest branches"), 3: ("terrain clay", "nest flowers"),
    4: ("nest leaves", "terrain sand"), 5: ("nest branches", "terrain clay"), 6: ("nest flowers", "terrain water"),
    7: ("height at least 3", "height exactly 1"), 8: ("height at least 2", "height at most 2"),
    9: ("on the shore", "inland"), 10: ("peak (no neighbour higher)", "sheltered (a neighbour higher)"),
    11: ("an egg on a neighbour", "no egg on any neighbour"),
    12: ("a neighbour with the same terrain", "no neighbour with the same terrain"),
    13: ("a neighbour with the same nest", "no neighbour with the same nest"),
}
_START = ((-1, 0), (0, 0), (1, 0), (-1, 1), (0, 1), (1, 1), (9, 0), (10, 0), (11, 0), (9, 1), (10, 1), (11, 1))


def _check_component_data():
    """The compiled tables (start cells, tile counts, eggs, cards) agree with data/islet.json."""
    data = json.loads(resources.files("engine_ext").joinpath("data/islet.json").read_text())
    start = tuple(tuple(c) for c in data["start_islet"] + data["solo_second_islet"])
    tiles = collections.Counter(f"{t['terrain']}/{t['nest']}" for t in data["tiles"])
    eggs = {int(k): v for k, v in data["eggs_per_player"].items()}
    cards = [row[0] for row in data["day_night_cards"]]
    if start != _START or tiles != {t: NUM_TILES // NUM_TYPES for t in TILE_TYPES} or eggs != EGGS_PER_PLAYER or (
            cards != list(CARDS)):
        raise RuntimeError("engine_ext/data/islet.json disagrees with the compiled Islet tables")
    return data


COMPONENTS = _check_component_data()


def _xy(str text):
    return parse_xy(text, "cell")


cdef dict _counts(tuple names, const uint8_t* values):
    """{name: count} of the nonzero entries (a uint8 array must not reach Python as bytes)."""
    cdef int k
    return {names[k]: int(values[k]) for k in range(len(names)) if values[k]}


cdef int _parse_pay(Islet* s, str text, Move* m, bint lay) except -1:
    cdef int c = s.seat[s.active].pawn
    nest_res = 3 + nest_of(s.cell[c].top) if lay and c != NO_CELL and s.cell[c].height else -1
    for token in re.split(r"[,+]", text):
        token = token.strip()
        guaranteed = token.startswith("*")
        name = token.lstrip("*")
        if name not in RESOURCES:
            raise ValueError(f"unknown resource {name[:20]!r}")
        r = RESOURCES.index(name)
        if r < 3:
            if guaranteed:
                m.pay.tg[r] += 1
            else:
                m.pay.tu[r] += 1
        elif r == nest_res:
            if guaranteed:
                m.pay.ng += 1
            else:
                m.pay.nu += 1
        else:
            raise ValueError(f"{name} cannot pay this step")
    limit = 15 if lay else 3
    if any(m.pay.tu[t] > limit or m.pay.tg[t] > 2 for t in range(3)) or m.pay.nu > 3 or m.pay.ng > 2:
        raise ValueError("more cards than any payment takes")
    return 0


cdef int _total(const uint8_t* values, int n):
    cdef int k, total = 0
    for k in range(n):
        total += values[k]
    return total


cdef class IsletState(State):
    """An Islet position; see the module docstring for the rules and rulings."""

    def __cinit__(self):
        self.attach(islet_table())

    cdef Islet* g(self):
        return <Islet*>self.buf

    # -- small readers ----------------------------------------------------------------------------------------------
    def _name(self, int c):
        if c == NO_CELL:
            return None
        return f"({self.g().cell[c].x},{self.g().cell[c].y})"

    def _cell_of(self, str text):
        x, y = _xy(text)
        cdef int c = find_cell(self.g(), x, y)
        if c == NO_CELL:
            raise ValueError(f"{text} is neither a tile nor the sea beside one")
        return c

    @property
    def game_name(self):
        return "islet_solo" if self.g().solo else "islet"

    @property
    def solo(self):
        return bool(self.g().solo)

    def _pay_text(self, Pay pay, int nest_res):
        items = []
        if nest_res >= 0:
            items += [RESOURCES[nest_res]] * pay.nu + ["*" + RESOURCES[nest_res]] * pay.ng
        terrain = []
        for t in range(3):
            terrain += [TERRAINS[t]] * pay.tu[t] + ["*" + TERRAINS[t]] * pay.tg[t]
        if terrain:
            items.append("+".join(terrain))
        return ",".join(items)

    # -- move text --------------------------------------------------------------------------------------------------
    def action_to_string(self, int32_t action):
        """Readable move text (docs/rules/islet.md, "Move grammar"); ``string_to_action`` parses it back."""
        cdef Islet* s = self.g()
        cdef Move m = decode(action)
        cdef int c
        if action < 0 or encode(&m) != action:
            raise IllegalAction(f"{action} is not an Islet action id")
        k = m.kind
        if k in (K_PLACE, K_ADVANCE, K_START) and (m.cell >= s.num_cells):
            raise IllegalAction(f"{action} names no cell of this islet")
        if k == K_PLACE and m.type < NUM_TYPES:
            return f"place {TILE_TYPES[m.type]} @{self._name(m.cell)}"
        if k == K_STOP:
            return "stop exploring"
        if k == K_RETURN and m.type < NUM_RES:
            return f"return {RESOURCES[m.type]}"
        if k == K_ADVANCE:
            pay = self._pay_text(m.pay, -1)
            return f"advance {self._name(m.cell)}" + (f" pay {pay}" if pay else "")
        if k == K_LAY:
            c = s.seat[s.active].pawn
            nest_res = 3 + nest_of(s.cell[c].top) if c != NO_CELL and s.cell[c].height else -1
            if nest_res < 0 and m.pay.nu + m.pay.ng:
                raise IllegalAction(f"{action}: a lay needs the pawn on a tile")
            text = f"lay pay {self._pay_text(m.pay, nest_res)}"
            if m.extra < NUM_RES:
                text += (" release " if s.seat[s.active].free_eggs == 0 else " guarantee ") + RESOURCES[m.extra]
            if s.solo and c != NO_CELL and s.cell[c].height:
                card = s.cards[s.cell[c].islet][m.slot]
                text += f" discard card {card}"
            return text
        if k == K_END:
            return "end move"
        if k == K_REMOVE_HAND and max(m.removed[0], m.removed[1], m.removed[2]) < NUM_TYPES:
            return "remove hand " + ",".join(TILE_TYPES[m.removed[i]] for i in range(3))
        if k == K_REMOVE_BAG:
            return "remove bag"
        if k == K_START:
            return f"start @{self._name(m.cell)}"
        if k == K_DEAL and m.type < NUM_TYPES and s.phase == PH_SETUP_ISLET:
            return f"islet tile {TILE_TYPES[m.type]}"
        if k == K_DEAL and (m.type < NUM_TYPES or m.type == HIDDEN):
            return "draw a tile" if m.type == HIDDEN else f"draw {TILE_TYPES[m.type]}"
        if k == K_REMOVE_DRAW and m.type < NUM_TYPES:
            return f"bag loses {TILE_TYPES[m.type]}"
        if k == K_REVEAL and 1 <= m.type <= NUM_CARDS:
            return f"reveal card {m.type}"
        raise IllegalAction(f"{action} is not an Islet action id")

    def _parse_move_text(self, str text):
        cdef Islet* s = self.g()
        cdef Move m
        memset(&m, 0, sizeof(Move))
        m.extra = X_NONE
        words = text.strip().split(" ")
        head = " ".join(words[:2])
        if words[0] == "place" and len(words) == 3 and words[2].startswith("@"):
            m.kind = K_PLACE
            m.type = TILE_TYPES.index(words[1])
            m.cell = self._cell_of(words[2][1:])
        elif text.strip() == "stop exploring":
            m.kind = K_STOP
        elif words[0] == "return" and len(words) == 2:
            m.kind = K_RETURN
            m.type = RESOURCES.index(words[1])
        elif words[0] == "advance" and len(words) in (2, 4):
            m.kind = K_ADVANCE
            m.cell = self._cell_of(words[1])
            if len(words) == 4:
                if words[2] != "pay":
                    raise ValueError("expected 'advance (x,y) pay ...'")
                _parse_pay(s, words[3], &m, False)
        elif head == "lay pay" and len(words) >= 3:
            m.kind = K_LAY
            _parse_pay(s, words[2], &m, True)
            rest = words[3:]
            if len(rest) >= 2 and rest[0] in ("guarantee", "release"):
                m.extra = RESOURCES.index(rest[1])
                rest = rest[2:]
            if len(rest) == 3 and rest[:2] == ["discard", "card"]:
                card = int(rest[2])
                c = s.seat[s.active].pawn
                if not s.solo or c == NO_CELL or s.cell[c].height == 0:
                    raise ValueError("no card to discard here")
                row = [s.cards[s.cell[c].islet][k] for k in range(2)]
                if card not in row:
                    raise ValueError(f"card {card} is not beside this islet")
                m.slot = row.index(card)
                rest = []
            if rest:
                raise ValueError("expected 'lay pay ... [guarantee|release <resource>] [discard card <n>]'")
        elif text.strip() == "end move":
            m.kind = K_END
        elif head == "remove hand" and len(words) == 3:
            m.kind = K_REMOVE_HAND
            types = sorted(TILE_TYPES.index(w) for w in words[2].split(","))
            if len(types) != 3:
                raise ValueError("remove three tiles")
            for k in range(3):
                m.removed[k] = types[k]
        elif text.strip() == "remove bag":
            m.kind = K_REMOVE_BAG
        elif words[0] == "start" and len(words) == 2 and words[1].startswith("@"):
            m.kind = K_START
            m.cell = self._cell_of(words[1][1:])
        elif text.strip() == "draw a tile":
            m.kind = K_DEAL
            m.type = HIDDEN
        elif words[0] == "draw" and len(words) == 2:
            m.kind = K_DEAL
            m.type = TILE_TYPES.index(words[1])
        elif head == "islet tile" and len(words) == 3:
            m.kind = K_DEAL
            m.type = TILE_TYPES.index(words[2])
        elif head == "bag loses" and len(words) == 3:
            m.kind = K_REMOVE_DRAW
            m.type = TILE_TYPES.index(words[2])
        elif head == "reveal card" and len(words) == 3:
            m.kind = K_REVEAL
            m.type = int(words[2])
            if not 1 <= m.type <= NUM_CARDS:
                raise ValueError("cards are numbered 1..13")
        else:
            raise ValueError("see docs/rules/islet.md for the move grammar")
        return encode(&m)

    # -- JSON -------------------------------------------------------------------------------------------------------
    def _header(self):
        cdef Islet* s = self.g()
        data = {"game": "islet_solo" if s.solo else "islet", "players": s.num_players}
        if s.solo:
            data["options"] = {"eggs": int(s.eggs_start)}
        return data

    def _control(self):
        cdef Islet* s = self.g()
        return {
            "phase": PHASES[s.phase],
            "active": int(s.active),
            "round": int(s.round),
            "final_round": None if s.final_round < 0 else int(s.final_round),
            "left": int(s.left),
            "placed": int(s.placed),
            "last_cell": self._name(s.last_cell),
            "steps": int(s.steps),
            "visited": [self._name(c) for c in range(s.num_cells) if (s.visited[c >> 6] >> (c & 63)) & 1],
            "refill_islet": int(s.refill_islet),
            "won": None if s.won < 0 else bool(s.won),
        }

    def _public(self):
        cdef Islet* s = self.g()
        data = {
            "tiles": [[self._name(s.log_cell[k]), TILE_TYPES[s.log_type[k]]] for k in range(s.log_n)],
            "eggs": [[self._name(c), int(s.cell[c].egg)] for c in range(s.num_cells) if s.cell[c].egg >= 0],
            "stacks": {RESOURCES[r]: int(s.stacks[r]) for r in range(NUM_RES)},
        }
        if s.solo:
            data["removed"] = _counts(TILE_TYPES, s.removed)
            data["cards"] = {"day": [int(s.cards[0][k]) for k in range(2)],
                             "night": [int(s.cards[1][k]) for k in range(2)]}
            data["deck"] = [k + 1 for k in range(NUM_CARDS) if (s.deck >> k) & 1]
        return data

    def _seat(self, int i, bint with_hand):
        cdef Seat* p = &self.g().seat[i]
        entry = {
            "hand_size": int(p.hand_n),
            "cards": _counts(RESOURCES, p.cards),
            "guaranteed": _counts(RESOURCES, p.guar),
            "used": _counts(RESOURCES, p.used),
            "free_eggs": int(p.free_eggs),
            "laid": int(p.laid),
            "pawn": self._name(p.pawn) or "sea",
        }
        if with_hand:
            entry["hand"] = _counts(TILE_TYPES, p.hand)
        return entry

    def to_json(self):
        """The full state, hidden facts included; ``from_json`` restores it exactly."""
        cdef Islet* s = self.g()
        data = self._header()
        data["control"] = self._control()
        data.update(self._public())
        data["bag"] = _counts(TILE_TYPES, s.bag)
        data["seats"] = [self._seat(i, True) for i in range(s.num_players)]
        return json.dumps(data, separators=(",", ":"))

    def observation(self, int seat):
        """What ``seat`` knows: everything but the other seats' hand tiles and the bag's order."""
        self.check_seat(seat)
        cdef Islet* s = self.g()
        data = self._header()
        data["seat"] = seat
        data["current_player"] = self.current_player()
        data["control"] = self._control()
        data.update(self._public())
        data["bag_size"] = int(s.bag_n)
        data["seats"] = [self._seat(i, i == seat) for i in range(s.num_players)]
        return data

    def private_info(self, int seat):
        """The seat's hand tiles."""
        self.check_seat(seat)
        hand = _counts(TILE_TYPES, self.g().seat[seat].hand)
        return {"hand": hand} if hand else {}

    def hidden_facts_fixed(self, int seat):
        """True when ``seat``'s observation leaves one possible deal of the other hands: every unseen tile is of one
        type, or the bag is empty and a single other seat holds tiles."""
        cdef Islet* s = self.g()
        cdef int t, i
        pool = [s.bag[t] + sum(s.seat[i].hand[t] for i in range(s.num_players) if i != seat) for t in range(NUM_TYPES)]
        holders = sum(1 for i in range(s.num_players) if i != seat and s.seat[i].hand_n)
        return sum(1 for n in pool if n) <= 1 or (s.bag_n == 0 and holders <= 1)

    # -- queries for tests, tools and the drawing -------------------------------------------------------------------
    def cells(self):
        """Every cell as a dict: name, height (0: sea), top type, islet, egg owner, pawns on it."""
        cdef Islet* s = self.g()
        cdef Cell* cell
        cdef int c
        out = []
        for c in range(s.num_cells):
            cell = &s.cell[c]
            out.append({
                "cell": self._name(c), "x": int(cell.x), "y": int(cell.y), "height": int(cell.height),
                "top": TILE_TYPES[cell.top] if cell.height else None,
                "islet": int(cell.islet) if cell.height else None,
                "egg": int(cell.egg) if cell.egg >= 0 else None,
                "pawns": [i for i in range(s.num_players) if s.seat[i].pawn == c],
            })
        return out

    def invariant_violations(self):
        """Conservation and consistency checks (the simulation test runs them after every step)."""
        cdef Islet* s = self.g()
        cdef Seat* p
        cdef int c, k, t, r, i
        problems = []
        hands = sum(s.seat[i].hand_n for i in range(s.num_players))
        removed = sum(s.removed[t] for t in range(NUM_TYPES))
        if s.bag_n + hands + s.log_n + removed != NUM_TILES:
            problems.append(f"tiles: bag {s.bag_n} + hands {hands} + placed {s.log_n} + removed {removed} != 90")
        for t in range(NUM_TYPES):
            n = s.bag[t] + s.removed[t] + sum(s.seat[i].hand[t] for i in range(s.num_players))
            n += sum(1 for k in range(s.log_n) if s.log_type[k] == t)
            if n != NUM_TILES // NUM_TYPES:
                problems.append(f"{TILE_TYPES[t]}: {n} tiles, not 10")
        if sum(s.bag[t] for t in range(NUM_TYPES)) != s.bag_n:
            problems.append("bag count")
        for r in range(NUM_RES):
            n = s.stacks[r] + sum(s.seat[i].cards[r] + s.seat[i].guar[r] for i in range(s.num_players))
            if n != STACK_SIZE:
                problems.append(f"{RESOURCES[r]}: {n} cards, not 12")
        for i in range(s.num_players):
            p = &s.seat[i]
            if p.free_eggs + _total(p.guar, NUM_RES) + p.laid != s.eggs_start:
                problems.append(f"seat {i}: eggs not conserved")
            if sum(1 for c in range(s.num_cells) if s.cell[c].egg == i) != p.laid:
                problems.append(f"seat {i}: eggs on the islets != laid")
            for r in range(NUM_RES):
                if p.used[r] > p.guar[r] or p.guar[r] > MAX_GUARANTEED:
                    problems.append(f"seat {i}: guaranteed {RESOURCES[r]}")
            if _total(p.hand, NUM_TYPES) != p.hand_n or p.hand_n > MAX_HAND:
                problems.append(f"seat {i}: hand size")
            settling = i == s.active and s.phase in (PH_EXPLORE, PH_DRAW, PH_DISCARD, PH_OVER)
            if unguaranteed(p) > MAX_UNGUARANTEED and not settling:
                problems.append(f"seat {i}: more than 8 unguaranteed resources")
            if p.pawn != NO_CELL and s.cell[p.pawn].height == 0:
                problems.append(f"seat {i}: pawn on a sea cell")
        heights = [0] * s.num_cells
        for k in range(s.log_n):
            heights[s.log_cell[k]] += 1
        for c in range(s.num_cells):
            if heights[c] != s.cell[c].height:
                problems.append(f"cell {self._name(c)}: height {s.cell[c].height}, {heights[c]} tiles placed")
            if s.cell[c].egg >= 0 and s.cell[c].height == 0:
                problems.append(f"cell {self._name(c)}: an egg in the sea")
            for k in range(3):
                nb = s.cell[c].nb[k]
                if s.cell[c].height and nb == NO_CELL:
                    problems.append(f"cell {self._name(c)}: a tile without a cell beside it")
        return problems

    def band(self):
        """Solo: the result band of a won game (None before the end or after a loss)."""
        cdef Islet* s = self.g()
        if not s.solo or s.won != 1:
            return None
        return next(name for floor, name in BANDS if s.bag_n >= floor)

    # -- drawing ----------------------------------------------------------------------------------------------------
    def __str__(self):
        return "\n".join(_board_lines(self.cells(), self.g().num_players) + [self._status_line()])

    def _status_line(self):
        cdef Islet* s = self.g()
        line = f"{self._header()['game']} round {s.round} {PHASES[s.phase]} | bag {s.bag_n}"
        line += " | eggs laid " + " ".join(f"{'ABCD'[i]}:{s.seat[i].laid}" for i in range(s.num_players))
        if s.solo:
            line += (f" | day cards {[int(s.cards[0][k]) for k in range(2)]}"
                     f" night {[int(s.cards[1][k]) for k in range(2)]}")
        return line

    def __repr__(self):
        cdef Islet* s = self.g()
        return f"<IsletState {s.num_players}p round {s.round} {PHASES[s.phase]} to move {self.current_player()}>"

    # -- loading ----------------------------------------------------------------------------------------------------
    def _load(self, dict data, hidden_hands=None):
        """Fill the struct from a full-state dict (the to_json layout), validating every field. ``hidden_hands``:
        observation loading, where other seats' hands are filled from the unseen tiles and the bag gets the rest."""
        cdef Islet* s = self.g()
        cdef int c, k, t, r, i, x, y
        solo = data.get("game") == "islet_solo"
        players = _check_int(data, "players", 1 if solo else 2, 1 if solo else MAX_SEATS)
        eggs = EGGS_PER_PLAYER[players]
        if solo:
            options = data.get("options")
            if not isinstance(options, dict) or options.get("eggs") not in (10, 6):
                raise InvalidObservation("options.eggs", "expected 10 or 6")
            eggs = options["eggs"]
        init_game(s, players, solo, eggs)
        tiles = data.get("tiles")
        if not isinstance(tiles, list) or len(tiles) > NUM_TILES:
            raise InvalidObservation("tiles", "expected a list of at most 90 [cell, type] entries")
        start = 12 if solo else 6
        for k, entry in enumerate(tiles):
            where = f"tiles[{k}]"
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and entry[1] in TILE_TYPES):
                raise InvalidObservation(where, "expected [\"(x,y)\", \"terrain/nest\"]")
            try:
                x, y = _xy(entry[0])
            except ValueError as err:
                raise InvalidObservation(where, str(err)) from None
            c = find_cell(s, x, y)
            if k < start:
                if c != NO_CELL and s.cell[c].height or (x, y) != _START[k]:
                    raise InvalidObservation(where, f"the start islet's tile {k} goes on {_START[k]}")
                if c == NO_CELL:
                    c = new_cell(s, x, y)
                s.cell[c].islet = 1 << (k // 6)
            elif c == NO_CELL or (s.cell[c].height == 0 and s.cell[c].islet not in (1, 2)):
                raise InvalidObservation(where, f"{entry[0]} is not beside one islet")
            elif s.cell[c].egg >= 0:
                raise InvalidObservation(where, "a tile on an egg")
            if s.num_cells > MAX_CELLS - 4:
                raise InvalidObservation(where, "too many cells")
            add_tile(s, c, TILE_TYPES.index(entry[1]))
        eggs_list = data.get("eggs")
        if not isinstance(eggs_list, list):
            raise InvalidObservation("eggs", "expected a list of [cell, seat]")
        for k, entry in enumerate(eggs_list):
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], int) and 0 <= entry[1] < players):
                raise InvalidObservation(f"eggs[{k}]", "expected [\"(x,y)\", seat]")
            c = NO_CELL
            if _XY.fullmatch(entry[0]):
                x, y = _xy(entry[0])
                c = find_cell(s, x, y)
            if c == NO_CELL or s.cell[c].height == 0 or s.cell[c].egg >= 0:
                raise InvalidObservation(f"eggs[{k}]", f"{entry[0]} is not a tile without an egg")
            s.cell[c].egg = entry[1]
        stacks = data.get("stacks")
        for r in range(NUM_RES):
            s.stacks[r] = _check_int(stacks, RESOURCES[r], 0, STACK_SIZE, "stacks.")
        if solo:
            removed = data.get("removed")
            for t in range(NUM_TYPES):
                s.removed[t] = _check_int(removed, TILE_TYPES[t], 0, 10, "removed.", True)
            cards = data.get("cards")
            if not isinstance(cards, dict):
                raise InvalidObservation("cards", "expected {day: [a, b], night: [c, d]}")
            seen = set()
            for islet, side in enumerate(("day", "night")):
                row = cards.get(side)
                if not isinstance(row, list) or len(row) != 2 or not all(
                        isinstance(v, int) and 0 <= v <= NUM_CARDS for v in row):
                    raise InvalidObservation(f"cards.{side}", "expected two card numbers (0: empty)")
                for k in range(2):
                    s.cards[islet][k] = row[k]
                    if row[k]:
                        seen.add(row[k])
            deck = data.get("deck")
            if not isinstance(deck, list) or not all(isinstance(v, int) and 1 <= v <= NUM_CARDS for v in deck) or (
                    seen & set(deck)) or len(set(deck)) != len(deck):
                raise InvalidObservation("deck", "expected the card numbers still in the deck, none beside an islet")
            s.deck = sum(1 << (v - 1) for v in deck)
        seats = data.get("seats")
        if not isinstance(seats, list) or len(seats) != players or not all(isinstance(e, dict) for e in seats):
            raise InvalidObservation("seats", f"expected {players} seat objects")
        for i, entry in enumerate(seats):
            self._load_seat(i, entry, hidden_hands is not None and i != hidden_hands)
        self._load_control(data.get("control"))
        if hidden_hands is None:
            bag = data.get("bag")
            for t in range(NUM_TYPES):
                s.bag[t] = _check_int(bag, TILE_TYPES[t], 0, 10, "bag.", True)
            s.bag_n = sum(s.bag[t] for t in range(NUM_TYPES))
        else:
            self._fill_hidden(hidden_hands, _check_int(data, "bag_size", 0, NUM_TILES))
        if self.invariant_violations():
            raise InvalidObservation("tiles" if hidden_hands is None else "bag_size",
                                     "; ".join(self.invariant_violations()[:2]))

    def _load_seat(self, int i, dict entry, bint hidden):
        cdef Seat* p = &self.g().seat[i]
        cdef int c, x, y
        where = f"seats[{i}]."
        p.hand_n = _check_int(entry, "hand_size", 0, MAX_HAND, where)
        if not hidden:
            hand = entry.get("hand")
            for t in range(NUM_TYPES):
                p.hand[t] = _check_int(hand, TILE_TYPES[t], 0, MAX_HAND, where + "hand.", True)
            if _total(p.hand, NUM_TYPES) != p.hand_n:
                raise InvalidObservation(where + "hand", "does not match hand_size")
        elif "hand" in entry:
            raise InvalidObservation(where + "hand", "another seat's hand is not visible")
        for r in range(NUM_RES):
            p.cards[r] = _check_int(entry.get("cards"), RESOURCES[r], 0, STACK_SIZE, where + "cards.", True)
            p.guar[r] = _check_int(entry.get("guaranteed"), RESOURCES[r], 0, MAX_GUARANTEED, where + "guaranteed.",
                                   True)
            p.used[r] = _check_int(entry.get("used"), RESOURCES[r], 0, p.guar[r], where + "used.", True)
        p.free_eggs = _check_int(entry, "free_eggs", 0, 10, where)
        p.laid = _check_int(entry, "laid", 0, 10, where)
        pawn = entry.get("pawn")
        if pawn == "sea":
            p.pawn = NO_CELL
        else:
            c = NO_CELL
            if isinstance(pawn, str) and _XY.fullmatch(pawn):
                x, y = _xy(pawn)
                c = find_cell(self.g(), x, y)
            if c == NO_CELL or self.g().cell[c].height == 0:
                raise InvalidObservation(where + "pawn", "expected \"sea\" or a tile")
            p.pawn = c

    def _load_control(self, control):
        cdef Islet* s = self.g()
        cdef int c
        if not isinstance(control, dict):
            raise InvalidObservation("control", "expected an object")
        if control.get("phase") not in PHASES:
            raise InvalidObservation("control.phase", f"expected one of {', '.join(PHASES)}")
        s.phase = PHASES.index(control["phase"])
        s.active = _check_int(control, "active", 0, s.num_players - 1, "control.")
        s.round = _check_int(control, "round", 0, MAX_ROUNDS, "control.")
        final = control.get("final_round")
        s.final_round = -1 if final is None else _check_int(control, "final_round", 1, MAX_ROUNDS + 1, "control.")
        s.left = _check_int(control, "left", 0, 12, "control.")
        s.placed = _check_int(control, "placed", 0, 4, "control.")
        s.steps = _check_int(control, "steps", 0, 10_000, "control.")
        s.refill_islet = _check_int(control, "refill_islet", 0, 1, "control.")
        won = control.get("won")
        if won is not None and not isinstance(won, bool):
            raise InvalidObservation("control.won", "expected null, true or false")
        s.won = -1 if won is None else int(won)
        last = control.get("last_cell")
        s.last_cell = NO_CELL if last is None else self._cell_of_field(last, "control.last_cell")
        visited = control.get("visited")
        if not isinstance(visited, list):
            raise InvalidObservation("control.visited", "expected a list of cells")
        for name in visited:
            c = self._cell_of_field(name, "control.visited")
            s.visited[c >> 6] |= (<unsigned long long>1) << (c & 63)

    def _cell_of_field(self, name, str field):
        try:
            return self._cell_of(name)
        except (ValueError, TypeError) as err:
            raise InvalidObservation(field, str(err)) from None

    def _fill_hidden(self, int seat, int bag_size):
        """Other seats' hands get the first unseen tile types; the bag gets the rest (determinize resamples both)."""
        cdef Islet* s = self.g()
        cdef int t, i, k
        unseen = [NUM_TILES // NUM_TYPES - s.removed[t] - s.seat[seat].hand[t]
                  - sum(1 for k in range(s.log_n) if s.log_type[k] == t) for t in range(NUM_TYPES)]
        if min(unseen) < 0:
            raise InvalidObservation("tiles", "more tiles of a type than exist")
        hidden = sum(s.seat[i].hand_n for i in range(s.num_players) if i != seat)
        if sum(unseen) != bag_size + hidden:
            raise InvalidObservation("bag_size", f"{sum(unseen)} tiles are unseen, not {bag_size} + {hidden}")
        for i in range(s.num_players):
            if i == seat:
                continue
            for _k in range(s.seat[i].hand_n):
                t = next(t for t in range(NUM_TYPES) if unseen[t])
                unseen[t] -= 1
                s.seat[i].hand[t] += 1
        for t in range(NUM_TYPES):
            s.bag[t] = unseen[t]
        s.bag_n = bag_size


def new_game(int players=2, long seed=0, bint solo=False, eggs=None):
    """A new game before its first chance event (the start islet is dealt by chance); ``seed`` is ignored: all of
    Islet's randomness is chance nodes. Solo: ``players`` 1 and ``eggs`` 10 or 6."""
    if solo:
        if players != 1:
            raise ValueError("islet_solo takes 1 player")
        eggs = 10 if eggs is None else eggs
        if eggs not in (10, 6):
            raise ValueError("eggs must be 10 or 6")
    else:
        if not 2 <= players <= MAX_SEATS:
            raise ValueError(f"islet takes 2..{MAX_SEATS} players, not {players}")
        eggs = EGGS_PER_PLAYER[players]
    cdef IsletState state = IsletState.__new__(IsletState)
    init_game(<Islet*>state.buf, players, solo, eggs)
    return state


def from_json(str text):
    """The state ``to_json`` wrote; raises ``InvalidObservation`` (a ValueError) naming the first bad field."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("game") not in ("islet", "islet_solo"):
        raise ValueError("not an islet state")
    cdef IsletState state = IsletState.__new__(IsletState)
    state._load(data)
    written = json.loads(state.to_json())
    if written != data:
        raise InvalidObservation(_first_difference(data, written), "contradicts the other fields")
    return state


def from_observation(dict obs):
    """A determinizable state consistent with one seat's observation: other seats' hands get arbitrary unseen tiles
    that ``determinize`` then resamples."""
    solo = obs.get("game") == "islet_solo"
    players = _check_int(obs, "players", 1 if solo else 2, 1 if solo else MAX_SEATS)
    seat = _check_int(obs, "seat", 0, players - 1)
    cdef IsletState state = IsletState.__new__(IsletState)
    state._load(obs, seat)
    seen = state.observation(seat)
    if seen != obs:
        raise InvalidObservation(_first_difference(obs, seen), "contradicts the other fields")
    return state


# ---------------------------------------------------------------------------------------------------------------------
# The board drawing, from cells alone (a state's or an observation's)
# ---------------------------------------------------------------------------------------------------------------------
def _board_lines(cells, int players):
    """Rows of the triangular grid, y growing downwards; a tile is ``/`` (pointing up) or ``\\`` (down), terrain and
    nest letters, height, egg owner (A-D or .) and pawn (a-d or .); a sea cell is ``~``."""
    land = [c for c in cells if c["height"] or c["pawns"]]
    if not land:
        return ["(no tiles yet)"]
    xs = [c["x"] for c in cells]
    ys = [c["y"] for c in cells]
    by_xy = {(c["x"], c["y"]): c for c in cells}
    lines = ["     " + "".join(f"{x:>6}" for x in range(min(xs), max(xs) + 1))]
    for y in range(min(ys), max(ys) + 1):
        row = f"{y:>4} "
        for x in range(min(xs), max(xs) + 1):
            c = by_xy.get((x, y))
            if c is None:
                row += "      "
            elif not c["height"]:
                row += "   ~  "
            else:
                terrain, nest = c["top"].split("/")
                egg = "ABCD"[c["egg"]] if c["egg"] is not None else "."
                pawn = "abcd"[c["pawns"][0]] if c["pawns"] else "."
                shape = "/" if (x + y) & 1 else "\\"
                row += f" {shape}{terrain[0].upper()}{nest[0]}{c['height'] % 10}{egg}{pawn}"
        lines.append(row.rstrip())
    return lines


def draw(dict obs):
    """The islets as the observing seat sees them, from its observation alone."""
    state = from_observation(obs)
    lines = _board_lines(state.cells(), obs["players"])
    lines.append(state._status_line())
    if "cards" in obs:
        for islet, side in enumerate(("day", "night")):
            shown = [f"{c} ({CARDS[c][islet]})" for c in obs["cards"][side] if c]
            lines.append(f"{side} cards (islet {islet + 1}): {', '.join(shown) or 'none'}")
    own = state.observation(obs["seat"])["seats"][obs["seat"]]    # the engine's canonical order, not the wire's

    def listed(counts):
        return ", ".join(f"{name} {n}" for name, n in counts.items()) or "none"

    lines.append(f"your hand: {listed(own['hand'])} | cards: {listed(own['cards'])} | guaranteed: "
                 f"{listed(own['guaranteed'])} (turned over: {listed(own['used'])}) | free eggs {own['free_eggs']}")
    return "\n".join(lines)


def belief_summary(worlds, int seat):
    """Over sampled worlds: how many tiles of each type each other seat holds on average (``"seat k"`` keys in seat
    order, as every game's summary names seats; tile types sorted by name). Counted in a C array over the worlds (part
    of every Suggest reply), then named once."""
    cdef int counts[MAX_SEATS][NUM_TYPES]
    cdef Islet* s
    cdef int other, t, players = 0
    memset(counts, 0, sizeof(counts))
    n = len(worlds)
    for world in worlds:
        s = (<IsletState>world).g()
        players = s.num_players
        for other in range(players):
            for t in range(NUM_TYPES):
                counts[other][t] += s.seat[other].hand[t]
    hands = {}
    for other in range(players):
        if other != seat:
            row = {TILE_TYPES[t]: round(counts[other][t] / n, 3) for t in _TYPES_BY_NAME if counts[other][t]}
            if row:
                hands[f"seat {other}"] = row
    return {"hands": hands, "worlds": n}


_TYPES_BY_NAME = sorted(range(NUM_TYPES), key=TILE_TYPES.__getitem__)


# Chosen in the arena (docs/experiments/islet.md, "Islet search defaults"): playouts cut at once and scored by the
# heuristic beat full light playouts at equal time, 30 ms a decision, 2 players: SPRT 0/30 accepted after 36 pairs (60
# games to 12): atoll bench strength --game islet --players 2 --bot d0=ismcts,time_ms=30,playout_depth=0 --bot
# full=ismcts,time_ms=30,playout_depth=-1 --lineup d0,full --deals 200 --sprt=0,30
_SEARCH = SearchDefaults(exploration=0.7, playout_depth=0, light_playouts=True, baseline=True)

GAME_INFOS = (
    GameInfo(
        name="islet",
        title="Islet",
        description="Islet for 2-4 players with the rulings of docs/rules/islet.md",
        min_players=2,
        max_players=MAX_SEATS,
        module=sys.modules[__name__],
        draw=draw,
        fixed_options={"solo": False},
        belief_summary=belief_summary,
        benchmark_players=4,
        search_defaults=_SEARCH,
        heuristics=("progress", "heights"),
    ),
    GameInfo(
        name="islet_solo",
        title="Islet (solo)",
        description="Islet's solo mode: two islets, day and night cards, lay every egg before the bag runs out",
        min_players=1,
        max_players=1,
        module=sys.modules[__name__],
        draw=draw,
        options=(GameOption("eggs", int, 10, "eggs to lay (6: the simpler variant)", choices=(10, 6)),),
        fixed_options={"solo": True},
        benchmark_players=1,
        search_defaults=_SEARCH,
        heuristics=("progress",),
    ),
)
