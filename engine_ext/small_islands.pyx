# cython: language_level=3
"""Small Islands (2-4 players) on the Cython core.

Parameters: ``players`` 2..4; the seed is ignored (every random event is a chance node: the face-up tiles, the hands,
the Navigation refills, Objective and Discovery draws). The components (56 Landscape tiles with edges and icons, the
4 Starting tiles laid as the 2x2 start island, 12 Objective cards, Discovery tokens) are ``data/small_islands.json``.

The rules are the Japanese rulebook's, completed by ``docs/rules/small_islands.md``. In brief:
- Rounds of Preparation (refill the face-up tiles to 3, 6 tiles to the Navigation deck, each seat draws 2 Objectives
  and keeps one for this round and one for the next, returning the third on top of the deck), Exploration (in turn:
  take a face-up tile, place a hand tile Land-to-Land and Sea-to-Sea, optionally a Bonus token, refill from the
  Navigation deck; or, once that deck is empty, land a Ship, which ends the phase) and Harvest (from the lander: reveal
  the Objective, place Houses on empty House marks of islands of 2+ tiles meeting its Mission, one per island, score
  its Reward per such island, refill Houses to 4).
- The game ends when 6 tiles cannot be drawn for the Navigation deck, when a seat can neither take a tile nor land at
  the start of its turn (a final Harvest from that seat), or after the Harvest in which the last Ship was placed.
- Score: Prestige Points, Discovery tokens, 1 per Port on the 8 tiles around the seat's own coloured Ship. Ties: most
  Houses placed, most Ports around the own Ship, the seat that placed a tile last.

Rulings this module adds (docs/rules/small_islands.md; each is tested):
- Identical tiles (same regions and icons) and turns of a tile that give the same edges are one action each.
- A Reward that lets the player choose a resource scores the best choice (the choice has no other effect).
- A tile discarded because nothing fits is shown (it leaves the game face up).
- A House goes on a free mark of the island's lowest region (which mark never matters, only the island).
- ``determinize`` deals the other seats' Objectives from every card whose place the seat does not know (a card shown
  in this round's Harvest and returned stays in the deck); it does not use that a card kept last round cannot be one
  revealed last round (a belief approximation, not a rule). A search with ``beliefs`` deals the other seats'
  Objectives for the round by its weights instead of uniformly (``weigh_objectives``, ``key_evidence``: what their
  placements and Bonus tokens showed; never part of the position).

Information (``observation(seat)``): the board with every icon and token, the display, every count (deck, Navigation
deck, hands, Houses, tokens, Objective deck), the Prestige Points, the Ships; a seat sees its own hand, Objectives and
Discovery tokens, the hand tiles others took from the display, and the card it returned on top of the deck.
"""

import collections
import json
import re
import sys
from importlib import resources

from libc.stdint cimport int32_t, uint64_t
from libc.string cimport memset

from engine_ext.core cimport State
from engine_ext.core cimport check_int as _check_int
from engine_ext.small_islands_rules cimport *

from engine_ext.core import IllegalAction, InvalidObservation
from engine_ext.fields import parse_xy
from engine_ext.fields import first_difference as _first_difference
from engine_ext.registry import GameInfo, SearchDefaults

COLOURS = ("red", "blue", "green", "yellow")
ICONS = ("flower", "fruit", "leaf", "temple", "house", "port")
ICON_CODES = ("FL", "FR", "LE", "T", "H", "P")
TOKENS = ("flower", "fruit", "leaf", "wild")
BONUS_SIDES = ("port", "flower", "fruit", "leaf")
DISC_VALUES = (7, 6, 5, 4)
EDGE_BITS = {"N": 1, "E": 2, "S": 4, "W": 8}
PHASES = ("setup_display", "setup_hand", "setup_objective", "objective_draw", "objective_keep", "turn", "place",
          "bonus", "refill", "harvest", "discovery_draw", "discovery_keep", "over")
MISSIONS = (
    "more flowers than fruit", "more fruit than leaves", "more leaves than flowers",
    "a temple and 2+ flowers", "a temple and 2+ fruit", "a temple and 2+ leaves", "2+ ports",
    "a flower, a fruit and a leaf", "two present resources equal", "flowers equal to fruit or leaves",
    "fruit equal to flowers or leaves", "leaves equal to flowers or fruit",
)
REWARDS = (
    "1 per flower + 2", "1 per fruit + 2", "1 per leaf + 2", "2 per temple + 2",
    "2 per icon of the scarcest resource + 2",
    "6", "island size: 4/6/8/10 at 3/6/9/12 tiles", "a Discovery token per temple (keep 1)",
    "1 per icon of a chosen resource + 2", "1 per icon of the commonest resource + 1 per 2 ports",
    "1 per empty House mark + 1 per House", "1 per port + 2",
)


def _xy(str text):
    return parse_xy(text, "square")


cdef void _icons_of(dict region, int* out):
    cdef int k
    for k in range(NUM_ICONS):
        out[k] = 0
    for code in region["icons"]:
        out[ICON_CODES.index(code)] += 1


DISCOVERY_TOKENS = 12  # the component list: 7, 7, 6, 6, 6, 6, 5, 5, 5, 5, 4, 4 (checked on load)


def _load_components():
    """Fill the C tile tables from data/small_islands.json and check the data's counts."""
    cdef int icons0[NUM_ICONS]
    cdef int icons1[NUM_ICONS]
    cdef int tile
    data = json.loads(resources.files("engine_ext").joinpath("data/small_islands.json").read_text())
    tiles = data["landscape_tiles"]
    if len(tiles) != NUM_LAND or len(data["starting_tiles"]) != 4 or len(data["objective_cards"]) != NUM_OBJECTIVES:
        raise RuntimeError("data/small_islands.json: unexpected component counts")
    if sorted(data["discovery_tokens"], reverse=True) != [7, 7, 6, 6, 6, 6, 5, 5, 5, 5, 4, 4]:
        raise RuntimeError("data/small_islands.json: unexpected Discovery tokens")
    expected = [[f"O{k + 1}", f"M{k + 1}", f"R{r + 1}"] for k, r in enumerate((0, 1, 2, 7, 3, 6, 9, 4, 8, 10, 5, 11))]
    if data["objective_cards"] != expected:
        raise RuntimeError("data/small_islands.json: Objective cards disagree with the compiled table")
    sides = [t["A"] for t in data["starting_tiles"]]
    for tile, entry in enumerate([t["regions"] for t in tiles] + [[side] for side in sides]):
        _icons_of(entry[0], icons0)
        if len(entry) > 1:
            _icons_of(entry[1], icons1)
        else:
            _icons_of({"icons": []}, icons1)
        set_tables(tile, len(entry), sum(EDGE_BITS[e] for e in entry[0]["edges"]),
                   sum(EDGE_BITS[e] for e in entry[1]["edges"]) if len(entry) > 1 else 0, icons0, icons1)
    for tile in range(FIRST_SHIP, NUM_TILE_IDS):
        _icons_of({"icons": []}, icons0)
        set_tables(tile, 0, 0, 0, icons0, icons0)
    return data


COMPONENTS = _load_components()


def _canonical_ids():
    """Each Landscape tile's kind: the smallest id of an identical tile (same regions, edges and icons). Identical
    tiles are one move: the board records the kind, a hand holds ids."""
    first = {}
    out = []
    for tile in COMPONENTS["landscape_tiles"]:
        key = json.dumps([[sorted(r["edges"]), sorted(r["icons"])] for r in tile["regions"]])
        out.append(first.setdefault(key, tile["id"]))
    return tuple(out)


CANONICAL = _canonical_ids()
# How many tiles of each kind (its lowest id) the game has, and which, kinds in order: what a loaded state is checked
# against and what loading an observation deals hidden tiles from.
KIND_COUNTS = collections.Counter(CANONICAL)
KIND_MEMBERS = tuple(
    (kind, tuple(t for t in range(NUM_LAND) if CANONICAL[t] == kind)) for kind in sorted(set(CANONICAL)))


def tile_name(int tile):
    if tile >= FIRST_SHIP:
        return f"ship {COLOURS[tile - FIRST_SHIP]}"
    if tile >= FIRST_START:
        return f"s{tile - FIRST_START}"
    return f"t{tile}"


def tile_of(str name):
    if re.fullmatch(r"t\d{1,2}", name) and int(name[1:]) < NUM_LAND:
        return int(name[1:])
    raise ValueError(f"expected a Landscape tile t0..t55, not {name[:12]!r}")


def describe_tile(int tile):
    """A tile's regions as text: edges and icons, e.g. ``N,E: flower house``."""
    regions = COMPONENTS["landscape_tiles"][tile]["regions"] if tile < FIRST_START else (
        [COMPONENTS["starting_tiles"][tile - FIRST_START]["A"]])
    return " | ".join(f"{''.join(r['edges'])}: {' '.join(ICONS[ICON_CODES.index(i)] for i in r['icons']) or '-'}"
                      for r in regions)


cdef list _ids(uint64_t bits):
    cdef int k
    return [k for k in range(64) if (bits >> k) & 1]


cdef class SmallIslandsState(State):
    """A Small Islands position; see the module docstring for the rules and rulings."""

    def __cinit__(self):
        self.attach(small_islands_table())

    cdef SmallIslands* g(self):
        return <SmallIslands*>self.buf

    # -- small readers ----------------------------------------------------------------------------------------------
    def _slot_of(self, str text):
        x, y = _xy(text)
        cdef int k = find_slot(self.g(), x, y)
        if k == NO_SLOT:
            raise ValueError(f"no tile at {text}")
        return k

    def island_of(self, int x, int y, int region=0):
        """The island label (its lowest region index) of a tile's region, or None."""
        cdef int k = find_slot(self.g(), x, y)
        if k == NO_SLOT or region >= self.g().placed[k].nreg:
            return None
        return root_of(self.g(), 2 * k + region)

    def islands(self):
        """Every island: label, tiles, icon counts, Houses (per seat) and the squares it spans."""
        cdef SmallIslands* s = self.g()
        cdef int r, root, k, i
        cdef Region* g
        out = {}
        for r in range(2 * s.num_placed):
            if (r & 1) >= s.placed[r >> 1].nreg:
                continue
            root = root_of(s, r)
            entry = out.setdefault(root, {"island": root, "squares": []})
            square = f"({s.placed[r >> 1].x},{s.placed[r >> 1].y})"
            if square not in entry["squares"]:
                entry["squares"].append(square)
        for root, entry in out.items():
            g = &s.region[<int>root]
            entry.update(tiles=int(g.tiles), houses=int(g.houses),
                         by_seat=[int(g.by_seat[i]) for i in range(s.num_players)],
                         **{ICONS[k]: int(g.isl[k]) for k in range(NUM_ICONS)})
        return [out[k] for k in sorted(out)]

    def recount(self):
        """The islands counted from scratch (regions, their icons and Houses), to check the incremental counts."""
        cdef SmallIslands* s = self.g()
        cdef int r, root, k
        out = {}
        for r in range(2 * s.num_placed):
            if (r & 1) >= s.placed[r >> 1].nreg:
                continue
            root = root_of(s, r)
            entry = out.setdefault(root, {"slots": set(), "icons": [0] * NUM_ICONS, "by_seat": [0] * MAX_SEATS})
            entry["slots"].add(r >> 1)
            for k in range(NUM_ICONS):
                entry["icons"][k] += s.region[r].icons[k]
            for k in range(MAX_SEATS):
                entry["by_seat"][k] += (s.region_houses[r] >> (2 * k)) & 3
        return {root: {"tiles": len(e["slots"]), "icons": e["icons"], "by_seat": e["by_seat"]}
                for root, e in out.items()}

    # -- move text --------------------------------------------------------------------------------------------------
    def action_to_string(self, int32_t action):
        """Readable move text (docs/rules/small_islands.md, "Move grammar"); ``string_to_action`` parses it back."""
        cdef SmallIslands* s = self.g()
        cdef Move m = decode(action)
        cdef int k
        if action < 0 or encode(&m) != action:
            raise IllegalAction(f"{action} is not a Small Islands action id")
        kind = m.kind
        if kind == K_DEAL and (m.tile < NUM_LAND or m.tile == HIDDEN_TILE):
            if m.tile == HIDDEN_TILE:
                return "deal a tile"
            return (f"deal {tile_name(m.tile)}" if s.phase == PH_SETUP_HAND else f"display {tile_name(m.tile)}")
        if kind == K_DRAW_OBJ and (m.a < NUM_OBJECTIVES or m.a == HIDDEN_CARD):
            return "draw an objective" if m.a == HIDDEN_CARD else f"draw O{m.a + 1}"
        if kind == K_DRAW_DISC and m.a <= 7:
            return "draw a discovery token" if m.a >= NUM_DISC_VALUES else f"draw discovery {DISC_VALUES[m.a]}"
        if kind == K_OBJ_KEEP:
            if m.a == HIDDEN_CARD:
                return "keep two objectives"
            if m.a < NUM_OBJECTIVES and m.b < NUM_OBJECTIVES and m.a != m.b:
                return f"keep O{m.a + 1} next O{m.b + 1}"
        if kind == K_TAKE and m.a < DISPLAY:
            return f"take {m.a + 1}"
        if kind == K_PLACE and m.tile < NUM_LAND:
            return f"place {tile_name(m.tile)} r{90 * m.rot} @({m.x},{m.y})"
        if kind == K_DISCARD and m.tile < NUM_LAND:
            return f"discard {tile_name(m.tile)}"
        if kind == K_BONUS:
            k = find_slot(s, m.x, m.y)
            text = f"bonus {BONUS_SIDES[m.side]} @({m.x},{m.y})"
            if k != NO_SLOT and s.placed[k].nreg == 2:
                text += f" region {m.region + 1}"
            if m.cover:
                text += f" over {BONUS_SIDES[m.cover]}"
            return text + f" with {TOKENS[m.token]}"
        if kind == K_NO_BONUS:
            return "no bonus"
        if kind == K_LAND:
            colour = COLOURS[m.colour] if m.colour < s.num_players else "grey"
            return f"land {colour} @({m.x},{m.y})"
        if kind == K_HOUSE and m.a < MAX_REGIONS:
            return f"house island {m.a}"
        if kind == K_HARVEST_DONE:
            return "end harvest"
        if kind == K_KEEP_DISC and m.a <= 7:
            return "keep a discovery token" if m.a >= NUM_DISC_VALUES else f"keep discovery {DISC_VALUES[m.a]}"
        raise IllegalAction(f"{action} is not a Small Islands action id")

    def _parse_move_text(self, str text):
        cdef SmallIslands* s = self.g()
        cdef Move m
        memset(&m, 0, sizeof(Move))
        words = text.strip().split()
        head = " ".join(words[:2])
        if not words:
            raise ValueError("empty move")
        if text.strip() == "deal a tile":
            m.kind = K_DEAL
            m.tile = HIDDEN_TILE
        elif words[0] in ("deal", "display") and len(words) == 2:
            m.kind = K_DEAL
            m.tile = tile_of(words[1])
        elif text.strip() == "draw an objective":
            m.kind = K_DRAW_OBJ
            m.a = HIDDEN_CARD
        elif words[0] == "draw" and len(words) == 2:
            m.kind = K_DRAW_OBJ
            m.a = _card(words[1])
        elif text.strip() == "draw a discovery token":
            m.kind = K_DRAW_DISC
            m.a = 7
        elif head == "draw discovery" and len(words) == 3:
            m.kind = K_DRAW_DISC
            m.a = DISC_VALUES.index(int(words[2]))
        elif text.strip() == "keep two objectives":
            m.kind = K_OBJ_KEEP
            m.a = m.b = HIDDEN_CARD
        elif words[0] == "keep" and len(words) == 4 and words[2] == "next":
            m.kind = K_OBJ_KEEP
            m.a = _card(words[1])
            m.b = _card(words[3])
        elif words[0] == "take" and len(words) == 2:
            m.kind = K_TAKE
            m.a = int(words[1]) - 1
            if not 0 <= m.a < DISPLAY:
                raise ValueError("the face-up tiles are 1..3")
        elif words[0] == "place" and len(words) == 4 and words[3].startswith("@"):
            m.kind = K_PLACE
            m.tile = tile_of(words[1])
            if not re.fullmatch(r"r(0|90|180|270)", words[2]):
                raise ValueError("a turn is r0, r90, r180 or r270")
            m.rot = int(words[2][1:]) // 90
            m.x, m.y = _bounded(words[3][1:])
        elif words[0] == "discard" and len(words) == 2:
            m.kind = K_DISCARD
            m.tile = tile_of(words[1])
        elif words[0] == "bonus" and len(words) >= 5 and words[2].startswith("@"):
            m.kind = K_BONUS
            m.side = BONUS_SIDES.index(words[1])
            m.x, m.y = _bounded(words[2][1:])
            rest = words[3:]
            if rest[:1] == ["region"]:
                m.region = int(rest[1]) - 1
                if m.region not in (0, 1):
                    raise ValueError("a tile has regions 1 and 2")
                rest = rest[2:]
            if rest[:1] == ["over"]:
                m.cover = BONUS_SIDES.index(rest[1])
                if m.cover == 0:
                    raise ValueError("a token covers a resource icon")
                rest = rest[2:]
            if len(rest) != 2 or rest[0] != "with":
                raise ValueError("expected 'bonus <port|flower|fruit|leaf> @(x,y) [region 2] [over <resource>] "
                                 "with <flower|fruit|leaf|wild>'")
            m.token = TOKENS.index(rest[1])
        elif text.strip() == "no bonus":
            m.kind = K_NO_BONUS
        elif words[0] == "land" and len(words) == 3 and words[2].startswith("@"):
            m.kind = K_LAND
            if words[1] == "grey":
                greys = [c for c in range(s.num_players, MAX_SEATS) if not (s.ships >> c) & 1]
                if not greys:
                    raise ValueError("no grey Ship is left")
                m.colour = greys[0]
            else:
                m.colour = COLOURS.index(words[1])
            m.x, m.y = _bounded(words[2][1:])
        elif head == "house island" and len(words) == 3:
            m.kind = K_HOUSE
            m.a = int(words[2])
            if not 0 <= m.a < MAX_REGIONS:
                raise ValueError("no such island")
        elif text.strip() == "end harvest":
            m.kind = K_HARVEST_DONE
        elif text.strip() == "keep a discovery token":
            m.kind = K_KEEP_DISC
            m.a = 7
        elif head == "keep discovery" and len(words) == 3:
            m.kind = K_KEEP_DISC
            m.a = DISC_VALUES.index(int(words[2]))
        else:
            raise ValueError("see docs/rules/small_islands.md for the move grammar")
        return encode(&m)

    # -- JSON -------------------------------------------------------------------------------------------------------
    def _control(self):
        cdef SmallIslands* s = self.g()
        cdef int r
        return {
            "phase": PHASES[s.phase], "active": int(s.active), "start_player": int(s.start_player),
            "lander": None if s.lander < 0 else int(s.lander), "round": int(s.round),
            "harvest_left": int(s.harvest_left), "final": bool(s.final), "left": int(s.left),
            "objective_seats_left": int(s.obj_seats_left),
            "taken_slot": None if s.taken_slot < 0 else int(s.taken_slot) + 1,
            "discovery_left": int(s.disc_left), "turn": int(s.turn),
            "harvested": [r for r in range(2 * s.num_placed) if (r & 1) < s.placed[r >> 1].nreg
                          and s.region[r].parent == r and (s.region[r].harvested >> s.active) & 1],
        }

    def _board(self):
        cdef SmallIslands* s = self.g()
        cdef Placed* p
        cdef int k, r
        board = []
        for k in range(s.num_placed):
            p = &s.placed[k]
            entry = [tile_name(p.id), int(90 * p.rot), f"({p.x},{p.y})"]
            regions = []
            for r in range(p.nreg):
                icons = {ICONS[i]: int(s.region[2 * k + r].icons[i]) for i in range(NUM_ICONS)
                         if s.region[2 * k + r].icons[i]}
                houses = [int((s.region_houses[2 * k + r] >> (2 * i)) & 3) for i in range(s.num_players)]
                regions.append({"icons": icons, "houses": houses} if any(houses) else {"icons": icons})
            entry.append(regions)
            board.append(entry)
        return board

    def _seat(self, int i, bint full):
        cdef SmallIslands* s = self.g()
        entry = {
            "hand_size": int(s.hand_n[i]),
            "known_hand": [tile_name(t) for t in _ids(s.known[i])],
            "tokens": [TOKENS[t] for t in range(4) if (s.tokens[i] >> t) & 1],
            "houses_hand": int(s.houses_hand[i]), "houses_stock": int(s.houses_stock[i]),
            "houses_placed": int(s.houses_placed[i]), "pp": int(s.pp[i]),
            "discovery_count": int(sum(s.disc[i][v] for v in range(NUM_DISC_VALUES))),
            "last_place": int(s.last_place[i]),
            "revealed": None if s.revealed[i] < 0 else f"O{s.revealed[i] + 1}",
            "has_objective": s.obj_cur[i] >= 0, "has_next_objective": s.obj_next[i] >= 0,
        }
        if full:
            entry["hand"] = [tile_name(t) for t in _ids(s.hand[i])]
            entry["objective"] = None if s.obj_cur[i] < 0 else f"O{s.obj_cur[i] + 1}"
            entry["next_objective"] = None if s.obj_next[i] < 0 else f"O{s.obj_next[i] + 1}"
            entry["discovery"] = {str(DISC_VALUES[v]): int(s.disc[i][v]) for v in range(NUM_DISC_VALUES)
                                  if s.disc[i][v]}
        return entry

    def _public(self):
        cdef SmallIslands* s = self.g()
        return {
            "game": "small_islands", "players": int(s.num_players),
            "control": self._control(),
            "board": self._board(),
            "display": [None if t == NO_SLOT else tile_name(t) for t in s.display[:DISPLAY]],
            "deck_size": int(s.deck_n), "navigation_size": int(s.nav_n),
            "ships": {COLOURS[c]: f"({s.placed[s.ship_slot[c]].x},{s.placed[s.ship_slot[c]].y})"
                      for c in range(MAX_SEATS) if (s.ships >> c) & 1},
            "objective_deck_size": int(sum((s.obj_deck >> k) & 1 for k in range(NUM_OBJECTIVES))),
            "objective_top_by": None if s.obj_top_by < 0 else int(s.obj_top_by),
            "discovery_pile_size": int(sum(s.disc_pile[v] for v in range(NUM_DISC_VALUES))),
            "discovery_drawn_count": int(sum(s.disc_drawn[v] for v in range(NUM_DISC_VALUES))),
            "discarded": [tile_name(t) for t in _ids(s.gone)],
        }

    def _private_of_active(self, bint full):
        cdef SmallIslands* s = self.g()
        out = {}
        if s.phase == PH_OBJ_KEEP or s.phase == PH_OBJ_DRAW:
            drawn = 2 if s.phase == PH_OBJ_KEEP else 2 - s.left
            if full and drawn:
                out["drawn_objectives"] = [f"O{s.obj_drawn[k] + 1}" for k in range(drawn)]
        if (s.phase == PH_DISC_KEEP or s.phase == PH_DISC_DRAW) and full:
            out["discovery_drawn"] = {str(DISC_VALUES[v]): int(s.disc_drawn[v]) for v in range(NUM_DISC_VALUES)
                                      if s.disc_drawn[v]}
        return out

    def to_json(self):
        """The full state, hidden facts included; ``from_json`` restores it exactly."""
        cdef SmallIslands* s = self.g()
        data = self._public()
        data["pool"] = [tile_name(t) for t in _ids(s.pool)]
        data["objective_deck"] = [f"O{k + 1}" for k in range(NUM_OBJECTIVES) if (s.obj_deck >> k) & 1]
        data["objective_top"] = None if s.obj_top < 0 else f"O{s.obj_top + 1}"
        data["discovery_pile"] = {str(DISC_VALUES[v]): int(s.disc_pile[v]) for v in range(NUM_DISC_VALUES)
                                  if s.disc_pile[v]}
        data["seats"] = [self._seat(i, True) for i in range(s.num_players)]
        data.update(self._private_of_active(True))
        return json.dumps(data, separators=(",", ":"))

    def observation(self, int seat):
        """What ``seat`` knows (see the module docstring)."""
        self.check_seat(seat)
        cdef SmallIslands* s = self.g()
        data = self._public()
        data["seat"] = seat
        data["current_player"] = self.current_player()
        data["seats"] = [self._seat(i, i == seat) for i in range(s.num_players)]
        data.update(self._private_of_active(seat == s.active))
        if s.obj_top >= 0 and s.obj_top_by == seat:
            data["objective_top"] = f"O{s.obj_top + 1}"
        return data

    def private_info(self, int seat):
        """The seat's hand tiles it was dealt, its Objectives and Discovery tokens."""
        self.check_seat(seat)
        cdef SmallIslands* s = self.g()
        info = {}
        hidden = [tile_name(t) for t in _ids(s.hand[seat] & ~s.known[seat])]
        if hidden:
            info["hand"] = hidden
        if s.obj_cur[seat] >= 0 and s.revealed[seat] != s.obj_cur[seat]:
            info["objective"] = f"O{s.obj_cur[seat] + 1}"
        if s.obj_next[seat] >= 0:
            info["next_objective"] = f"O{s.obj_next[seat] + 1}"
        disc = {str(DISC_VALUES[v]): int(s.disc[seat][v]) for v in range(NUM_DISC_VALUES) if s.disc[seat][v]}
        if disc:
            info["discovery"] = disc
        return info

    # -- checks -----------------------------------------------------------------------------------------------------
    def invariant_violations(self):
        cdef SmallIslands* s = self.g()
        cdef Region* g
        cdef int k, r, i
        problems = []
        board = sum(1 for k in range(s.num_placed) if s.placed[k].id < FIRST_SHIP)
        hands = sum(s.hand_n[i] for i in range(s.num_players))
        display = sum(1 for k in range(DISPLAY) if s.display[k] != NO_SLOT)
        pool = len(_ids(s.pool))
        if pool != s.deck_n + s.nav_n:
            problems.append("the unseen pool is not the deck and the Navigation deck")
        seen = set()
        for k in range(s.num_placed):
            if s.placed[k].id < FIRST_START:
                seen.add(int(s.placed[k].id))
        gone = len(_ids(s.gone))
        held = collections.Counter(CANONICAL[t] for t in _ids(s.pool | s.gone) + [
            int(s.display[k]) for k in range(DISPLAY) if s.display[k] != NO_SLOT] + [
            t for i in range(s.num_players) for t in _ids(s.hand[i])])
        held.update(CANONICAL[s.placed[k].id] for k in range(s.num_placed) if s.placed[k].id < FIRST_START)
        if held != KIND_COUNTS:
            problems.append("a kind of tile is not conserved")
        if board + hands + display + pool + gone != NUM_LAND + 4:
            problems.append(f"tiles: board {board} + hands {hands} + display {display} + unseen {pool} + discarded "
                            f"{gone} != 60")
        for i in range(s.num_players):
            if s.houses_hand[i] + s.houses_stock[i] + s.houses_placed[i] != HOUSES_EACH:
                problems.append(f"seat {i}: Houses not conserved")
            if len(_ids(s.hand[i])) != s.hand_n[i] or s.known[i] & ~s.hand[i]:
                problems.append(f"seat {i}: hand")
        placed_houses = sum(s.houses_placed[i] for i in range(s.num_players))
        on_board = sum(s.region[r].houses for r in range(2 * s.num_placed)
                       if (r & 1) < s.placed[r >> 1].nreg and s.region[r].parent == r)
        if placed_houses != on_board:
            problems.append("Houses placed != Houses on islands")
        kept = sum(s.disc[i][v] for i in range(s.num_players) for v in range(NUM_DISC_VALUES))
        if kept + sum(s.disc_pile[v] + s.disc_drawn[v] for v in range(NUM_DISC_VALUES)) != 12:
            problems.append("Discovery tokens not conserved")
        cards = bin(s.obj_deck).count("1") + sum((s.obj_cur[i] >= 0) + (s.obj_next[i] >= 0)
                                                 for i in range(s.num_players))
        cards += 2 if s.phase == PH_OBJ_KEEP else (2 - s.left if s.phase == PH_OBJ_DRAW else 0)
        if s.phase == PH_SETUP_OBJ:
            cards = NUM_OBJECTIVES
        if cards != NUM_OBJECTIVES:
            problems.append(f"Objectives: {cards} accounted for, not 12")
        held_objectives = [k for k in range(NUM_OBJECTIVES) if (s.obj_deck >> k) & 1] + [
            int(c) for i in range(s.num_players) for c in (s.obj_cur[i], s.obj_next[i]) if c >= 0]
        if s.phase == PH_OBJ_KEEP or s.phase == PH_OBJ_DRAW:
            held_objectives += [int(s.obj_drawn[k]) for k in range(2 if s.phase == PH_OBJ_KEEP else 2 - s.left)]
        if s.phase != PH_SETUP_OBJ and len(set(held_objectives)) != len(held_objectives):
            problems.append("Objectives: a card is in two places")
        for root, counted in self.recount().items():
            g = &s.region[<int>root]
            if counted["tiles"] != g.tiles or counted["icons"] != [int(g.isl[k]) for k in range(NUM_ICONS)] or (
                    counted["by_seat"] != [int(g.by_seat[k]) for k in range(MAX_SEATS)]):
                problems.append(f"island {root}: incremental counts differ from a recount")
        for k in range(s.num_placed):
            if s.placed[k].ports > 2 and s.placed[k].id < FIRST_START:
                problems.append(f"tile at ({s.placed[k].x},{s.placed[k].y}): more than 2 ports")
        return problems

    # -- drawing ----------------------------------------------------------------------------------------------------
    def __str__(self):
        return "\n".join(_board_lines(self.observation(0)) + [self._status_line()])

    def _status_line(self):
        cdef SmallIslands* s = self.g()
        pp = " ".join(f"{COLOURS[i]}:{s.pp[i]}" for i in range(s.num_players))
        return (f"small_islands round {s.round} {PHASES[s.phase]} | deck {s.deck_n} navigation {s.nav_n} | "
                f"PP {pp}")

    def __repr__(self):
        cdef SmallIslands* s = self.g()
        return f"<SmallIslandsState {s.num_players}p round {s.round} {PHASES[s.phase]} to move {self.current_player()}>"

    # -- loading ----------------------------------------------------------------------------------------------------
    def _load(self, dict data, observer=None):
        """Fill the struct from a full-state dict (the to_json layout) or, with ``observer``, from that seat's
        observation, giving hidden facts arbitrary consistent values. Field errors raise InvalidObservation."""
        cdef SmallIslands* s = self.g()
        cdef int k, r, tile, rot, x, y, i, v
        players = _check_int(data, "players", 2, MAX_SEATS)
        init_game(s, players)
        s.pool = 0                  # filled from the data (or the observation) below
        s.obj_deck = 0
        memset(s.disc_pile, 0, NUM_DISC_VALUES)
        board = data.get("board")
        if not isinstance(board, list) or not 4 <= len(board) <= MAX_PLACED:
            raise InvalidObservation("board", "expected the placed tiles, the 4 Starting tiles first")
        for k, entry in enumerate(board):
            where = f"board[{k}]"
            if not (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str)
                    and entry[1] in (0, 90, 180, 270) and isinstance(entry[2], str) and isinstance(entry[3], list)):
                raise InvalidObservation(where, "expected [tile, turn, \"(x,y)\", regions]")
            try:
                x, y = _xy(entry[2])
            except ValueError as err:
                raise InvalidObservation(where, str(err)) from None
            if k < 4:
                if entry[0] != f"s{k}" or entry[1] != 0 or (x, y) != ((0, 0), (1, 0), (0, 1), (1, 1))[k]:
                    raise InvalidObservation(where, "the start island is s0..s3 on (0,0) (1,0) (0,1) (1,1)")
            else:
                if entry[0].startswith("ship ") and entry[0][5:] in COLOURS:
                    tile = FIRST_SHIP + COLOURS.index(entry[0][5:])
                    if (s.ships >> (tile - FIRST_SHIP)) & 1:
                        raise InvalidObservation(where, "that Ship is placed twice")
                else:
                    try:
                        tile = tile_of(entry[0])
                    except ValueError as err:
                        raise InvalidObservation(where, str(err)) from None
                rot = entry[1] // 90
                if not fits(s, _rotated_edges(tile, rot), x, y):
                    raise InvalidObservation(where, f"{entry[0]} does not fit at {entry[2]}")
                slot = place_tile(s, tile, rot, x, y)
                if tile >= FIRST_SHIP:
                    s.ships |= 1 << (tile - FIRST_SHIP)
                    s.ship_slot[tile - FIRST_SHIP] = slot
            regions = entry[3]
            if len(regions) != s.placed[k].nreg:
                raise InvalidObservation(where, f"expected {s.placed[k].nreg} regions")
            for r, region in enumerate(regions):
                if not isinstance(region, dict) or not isinstance(region.get("icons"), dict):
                    raise InvalidObservation(f"{where}.regions[{r}]", "expected {icons: {...}}")
                for i in range(NUM_ICONS):
                    s.region[2 * k + r].icons[i] = _check_int(
                        region["icons"], ICONS[i], 0, 9, f"{where}.regions[{r}].icons.", True)
                houses = region.get("houses", [0] * players)
                if not isinstance(houses, list) or len(houses) != players or not all(
                        isinstance(h, int) and 0 <= h <= 3 for h in houses):
                    raise InvalidObservation(f"{where}.regions[{r}].houses", "expected a count per seat")
                s.region_houses[2 * k + r] = sum(h << (2 * i) for i, h in enumerate(houses))
        rebuild_islands(s)
        self._load_control(data.get("control"))
        display = data.get("display")
        if not isinstance(display, list) or len(display) != DISPLAY:
            raise InvalidObservation("display", "expected 3 entries (null for an empty slot)")
        for k in range(DISPLAY):
            s.display[k] = NO_SLOT if display[k] is None else _tile_field(display[k], f"display[{k}]")
        s.deck_n = _check_int(data, "deck_size", 0, NUM_LAND)
        s.nav_n = _check_int(data, "navigation_size", 0, NAV_SIZE)
        gone = data.get("discarded")
        if not isinstance(gone, list):
            raise InvalidObservation("discarded", "expected a list of tiles")
        for name in gone:
            s.gone |= (<uint64_t>1) << _tile_field(name, "discarded")
        seats = data.get("seats")
        if not isinstance(seats, list) or len(seats) != players or not all(isinstance(e, dict) for e in seats):
            raise InvalidObservation("seats", f"expected {players} seat objects")
        for i, entry in enumerate(seats):
            self._load_seat(i, entry, observer is None or observer == i)
        if observer is None:
            for name in data.get("pool", []):
                s.pool |= (<uint64_t>1) << _tile_field(name, "pool")
            for name in data.get("objective_deck", []):
                s.obj_deck |= 1 << _card_field(name, "objective_deck")
            top = data.get("objective_top")
            s.obj_top = -1 if top is None else _card_field(top, "objective_top")
            pile = data.get("discovery_pile")
            for v in range(NUM_DISC_VALUES):
                s.disc_pile[v] = _check_int(pile, str(DISC_VALUES[v]), 0, 4, "discovery_pile.", True)
        else:
            self._fill_hidden(data, observer)
        top_by = data.get("objective_top_by")
        s.obj_top_by = -1 if top_by is None else _check_int(data, "objective_top_by", 0, players - 1)
        if (s.obj_top >= 0) != (s.obj_top_by >= 0):
            raise InvalidObservation("objective_top_by", "a top card goes with the seat that returned it")
        drawn = data.get("drawn_objectives")
        expected = 2 if s.phase == PH_OBJ_KEEP else 2 - s.left if s.phase == PH_OBJ_DRAW else 0
        if drawn is not None:
            if not isinstance(drawn, list) or len(drawn) != expected:
                raise InvalidObservation("drawn_objectives", f"expected {expected} cards")
            for k in range(expected):
                s.obj_drawn[k] = _card_field(drawn[k], "drawn_objectives")
        disc_drawn = data.get("discovery_drawn")
        if disc_drawn is not None:
            for v in range(NUM_DISC_VALUES):
                s.disc_drawn[v] = _check_int(disc_drawn, str(DISC_VALUES[v]), 0, 4, "discovery_drawn.", True)
        problems = self.invariant_violations()
        if problems:
            raise InvalidObservation("board" if "island" in problems[0] else "seats", "; ".join(problems[:2]))

    def _load_control(self, control):
        cdef SmallIslands* s = self.g()
        cdef int r
        if not isinstance(control, dict):
            raise InvalidObservation("control", "expected an object")
        if control.get("phase") not in PHASES:
            raise InvalidObservation("control.phase", f"expected one of {', '.join(PHASES)}")
        s.phase = PHASES.index(control["phase"])
        n = s.num_players
        s.active = _check_int(control, "active", 0, n - 1, "control.")
        s.start_player = _check_int(control, "start_player", 0, n - 1, "control.")
        lander = control.get("lander")
        s.lander = -1 if lander is None else _check_int(control, "lander", 0, n - 1, "control.")
        s.round = _check_int(control, "round", 0, 8, "control.")
        s.harvest_left = _check_int(control, "harvest_left", 0, n, "control.")
        if not isinstance(control.get("final"), bool):
            raise InvalidObservation("control.final", "expected true or false")
        s.final = control["final"]
        s.left = _check_int(control, "left", 0, DISPLAY, "control.")
        s.obj_seats_left = _check_int(control, "objective_seats_left", 0, n, "control.")
        taken = control.get("taken_slot")
        s.taken_slot = -1 if taken is None else _check_int(control, "taken_slot", 1, DISPLAY, "control.") - 1
        # as many as the rewarded island has Temples (any number), at most the 12 Discovery tokens of the game
        s.disc_left = _check_int(control, "discovery_left", 0, DISCOVERY_TOKENS, "control.")
        s.turn = _check_int(control, "turn", 0, 200, "control.")
        harvested = control.get("harvested")
        if not isinstance(harvested, list):
            raise InvalidObservation("control.harvested", "expected island labels")
        for r in harvested:
            if not isinstance(r, int) or not 0 <= r < 2 * s.num_placed or s.region[r].parent != r:
                raise InvalidObservation("control.harvested", f"{r!r} is not an island")
            s.region[r].harvested |= 1 << s.active

    def _load_seat(self, int i, dict entry, bint full):
        cdef SmallIslands* s = self.g()
        cdef int v
        where = f"seats[{i}]."
        s.hand_n[i] = _check_int(entry, "hand_size", 0, 3, where)
        known = entry.get("known_hand")
        if not isinstance(known, list):
            raise InvalidObservation(where + "known_hand", "expected a list of tiles")
        for name in known:
            s.known[i] |= (<uint64_t>1) << _tile_field(name, where + "known_hand")
        tokens = entry.get("tokens")
        if not isinstance(tokens, list) or not set(tokens) <= set(TOKENS) or len(set(tokens)) != len(tokens):
            raise InvalidObservation(where + "tokens", f"expected tokens among {', '.join(TOKENS)}")
        s.tokens[i] = sum(1 << TOKENS.index(t) for t in tokens)
        s.houses_hand[i] = _check_int(entry, "houses_hand", 0, HOUSES_IN_HAND, where)
        s.houses_stock[i] = _check_int(entry, "houses_stock", 0, HOUSES_EACH, where)
        s.houses_placed[i] = _check_int(entry, "houses_placed", 0, HOUSES_EACH, where)
        s.pp[i] = _check_int(entry, "pp", 0, 999, where)
        s.last_place[i] = _check_int(entry, "last_place", 0, 200, where)
        revealed = entry.get("revealed")
        s.revealed[i] = -1 if revealed is None else _card_field(revealed, where + "revealed")
        if full:
            hand = entry.get("hand")
            if not isinstance(hand, list):
                raise InvalidObservation(where + "hand", "expected a list of tiles")
            for name in hand:
                s.hand[i] |= (<uint64_t>1) << _tile_field(name, where + "hand")
            cur, nxt = entry.get("objective"), entry.get("next_objective")
            s.obj_cur[i] = -1 if cur is None else _card_field(cur, where + "objective")
            s.obj_next[i] = -1 if nxt is None else _card_field(nxt, where + "next_objective")
            disc = entry.get("discovery")
            for v in range(NUM_DISC_VALUES):
                s.disc[i][v] = _check_int(disc, str(DISC_VALUES[v]), 0, 4, where + "discovery.", True)
        elif "hand" in entry or "objective" in entry or "discovery" in entry:
            raise InvalidObservation(where + "hand", "another seat's hand, Objectives and tokens are not visible")

    def _fill_hidden(self, dict data, int seat):
        """Observation loading: other seats' hidden hand tiles, Objectives and Discovery tokens get the first values
        still unaccounted for; determinize resamples them."""
        cdef SmallIslands* s = self.g()
        cdef int i, k, t, v
        present = set(_ids(s.gone)) | {int(s.display[k]) for k in range(DISPLAY) if s.display[k] != NO_SLOT}
        for i in range(s.num_players):
            present |= set(_ids(s.hand[i] | s.known[i]))
        board_kinds = collections.Counter(CANONICAL[s.placed[k].id] for k in range(s.num_placed)
                                          if s.placed[k].id < FIRST_START)
        unseen = []
        for kind, members in KIND_MEMBERS:
            free = [t for t in members if t not in present]
            if len(free) < board_kinds[kind]:
                raise InvalidObservation("board", f"more tiles like t{kind} than exist")
            unseen += free[board_kinds[kind]:]
        unseen.sort()
        for i in range(s.num_players):
            if i == seat:
                continue
            s.hand[i] = s.known[i]
            for _ in range(s.hand_n[i] - len(_ids(s.known[i]))):
                if not unseen:
                    raise InvalidObservation(f"seats[{i}].hand_size", "more hidden tiles than are unseen")
                s.hand[i] |= (<uint64_t>1) << unseen.pop(0)
        if len(unseen) != s.deck_n + s.nav_n:
            raise InvalidObservation("deck_size", f"{len(unseen)} tiles are unseen, not deck + navigation")
        for t in unseen:
            s.pool |= (<uint64_t>1) << t
        # Objectives: own and shown cards are known (a card shown and returned in this Harvest is in the deck); the
        # others fill up from the rest.
        known_cards = set()
        for i in range(s.num_players):
            for c in (s.obj_cur[i], s.obj_next[i]):
                if i == seat and c >= 0:
                    known_cards.add(c)
        own_drawn = data.get("drawn_objectives") if seat == s.active else None
        for c in own_drawn or []:
            known_cards.add(_card_field(c, "drawn_objectives"))
        top = data.get("objective_top")
        if top is not None:
            known_cards.add(_card_field(top, "objective_top"))
        returned = set()  # shown in this Harvest and gone back to the deck, where every seat saw it go
        for i, entry in enumerate(data["seats"]):
            if s.revealed[i] < 0 or (i == seat and s.obj_cur[i] >= 0):
                continue  # nothing shown, or the seat's own card in its hand: known already
            if s.revealed[i] in known_cards:
                raise InvalidObservation(f"seats[{i}].revealed", "a card shown twice")
            known_cards.add(s.revealed[i])
            if entry.get("has_objective") is not True:
                returned.add(s.revealed[i])
        free = [c for c in range(NUM_OBJECTIVES) if c not in known_cards]
        for i, entry in enumerate(data["seats"]):
            if i == seat:
                continue
            if entry.get("has_objective") is True:
                s.obj_cur[i] = s.revealed[i] if s.revealed[i] >= 0 else free.pop(0)
            if entry.get("has_next_objective") is True:
                s.obj_next[i] = free.pop(0)
        if (s.phase == PH_OBJ_KEEP or s.phase == PH_OBJ_DRAW) and seat != s.active:
            for k in range(2 if s.phase == PH_OBJ_KEEP else 2 - s.left):
                s.obj_drawn[k] = free.pop(0)
        if top is not None:
            s.obj_top = _card_field(top, "objective_top")
        elif data.get("objective_top_by") is not None:
            s.obj_top = free[0]
        deck_size = _check_int(data, "objective_deck_size", 0, NUM_OBJECTIVES)
        for c in free + sorted(returned):
            s.obj_deck |= 1 << c
        if s.obj_top >= 0:
            s.obj_deck |= 1 << s.obj_top
        if bin(s.obj_deck).count("1") != deck_size:
            raise InvalidObservation("objective_deck_size", "does not match the cards held")
        # Discovery tokens
        pool = [2, 4, 4, 2]
        for v in range(NUM_DISC_VALUES):
            pool[v] -= s.disc[seat][v]
        drawn = data.get("discovery_drawn") if seat == s.active else None
        for v in range(NUM_DISC_VALUES):
            if drawn:
                pool[v] -= _check_int(drawn, str(DISC_VALUES[v]), 0, 4, "discovery_drawn.", True)
        for i, entry in enumerate(data["seats"]):
            if i == seat:
                continue
            for _ in range(_check_int(entry, "discovery_count", 0, 12, f"seats[{i}].")):
                v = next((v for v in range(NUM_DISC_VALUES) if pool[v] > 0), -1)
                if v < 0:
                    raise InvalidObservation(f"seats[{i}].discovery_count", "more tokens than exist")
                pool[v] -= 1
                s.disc[i][v] += 1
        if seat != s.active:
            for _ in range(_check_int(data, "discovery_drawn_count", 0, 12)):  # #Temples: up to every token
                v = next((v for v in range(NUM_DISC_VALUES) if pool[v] > 0), -1)
                if v < 0:
                    raise InvalidObservation("discovery_drawn_count", "more tokens than exist")
                pool[v] -= 1
                s.disc_drawn[v] += 1
        if min(pool) < 0:
            raise InvalidObservation("seats", "more Discovery tokens of a value than exist")
        for v in range(NUM_DISC_VALUES):
            s.disc_pile[v] = pool[v]


cdef int _rotated_edges(int tile, int rot):
    cdef int state_edges = 0
    probe = COMPONENTS["landscape_tiles"][tile]["regions"] if tile < FIRST_START else []
    for region in probe:
        for e in region["edges"]:
            state_edges |= EDGE_BITS[e]
    return ((state_edges << rot) | (state_edges >> (4 - rot))) & 15 if rot else state_edges


def _card(str name):
    if re.fullmatch(r"O\d{1,2}", name) and 1 <= int(name[1:]) <= NUM_OBJECTIVES:
        return int(name[1:]) - 1
    raise ValueError(f"expected an Objective card O1..O12, not {name[:12]!r}")


def _card_field(name, str field):
    try:
        return _card(name)
    except (ValueError, TypeError):
        raise InvalidObservation(field, f"expected an Objective card O1..O12, not {str(name)[:12]!r}") from None


def _tile_field(name, str field):
    try:
        return tile_of(name)
    except (ValueError, TypeError):
        raise InvalidObservation(field, f"expected a Landscape tile t0..t55, not {str(name)[:12]!r}") from None


def _bounded(str text):
    x, y = _xy(text)
    if not -60 <= x <= 60 or not -60 <= y <= 60:
        raise ValueError("squares run from -60 to 60")
    return x, y


def new_game(int players=2, long seed=0):
    """A new game before its first chance event (the start island laid); ``seed`` is ignored."""
    if not 2 <= players <= MAX_SEATS:
        raise ValueError(f"small_islands takes 2..{MAX_SEATS} players, not {players}")
    cdef SmallIslandsState state = SmallIslandsState.__new__(SmallIslandsState)
    init_game(<SmallIslands*>state.buf, players)
    return state


def from_json(str text):
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("game") != "small_islands":
        raise ValueError("not a small_islands state")
    cdef SmallIslandsState state = SmallIslandsState.__new__(SmallIslandsState)
    state._load(data)
    written = json.loads(state.to_json())
    if written != data:
        raise InvalidObservation(_first_difference(data, written), "contradicts the other fields")
    return state


def from_observation(dict obs):
    players = _check_int(obs, "players", 2, MAX_SEATS)
    seat = _check_int(obs, "seat", 0, players - 1)
    cdef SmallIslandsState state = SmallIslandsState.__new__(SmallIslandsState)
    state._load(obs, seat)
    seen = state.observation(seat)
    if seen != obs:
        raise InvalidObservation(_first_difference(obs, seen), "contradicts the other fields")
    return state


# ---------------------------------------------------------------------------------------------------------------------
# Drawing, from an observation
# ---------------------------------------------------------------------------------------------------------------------
def _board_lines(dict obs):
    """The square grid: each tile as 3x3 characters, land ``#`` and sea ``~`` on its edges, its icons in the middle
    row (f flower, r fruit, l leaf, t temple, h house mark, p port; upper case: a House placed / a Bonus port)."""
    squares = {}
    for name, turn, where, regions in obs["board"]:
        x, y = _xy(where)
        squares[(x, y)] = (name, turn, regions)
    xs = [x for x, _ in squares]
    ys = [y for _, y in squares]
    lines = []
    header = "     " + "".join(f"{x:^5}" for x in range(min(xs), max(xs) + 1))
    lines.append(header)
    for y in range(min(ys), max(ys) + 1):
        rows = ["", "", ""]
        for x in range(min(xs), max(xs) + 1):
            cell = squares.get((x, y))
            if cell is None:
                rows = [r + "     " for r in rows]
                continue
            name, turn, regions = cell
            if name.startswith("ship"):
                colour = name.split()[1][0].upper()
                rows[0] += " ~~~ "
                rows[1] += f" ~{colour}~ "
                rows[2] += " ~~~ "
                continue
            edges = _land_edges(name, turn)
            n = "#" if edges & 1 else "~"
            e = "#" if edges & 2 else "~"
            s = "#" if edges & 4 else "~"
            w = "#" if edges & 8 else "~"
            icons = "".join("frlthp"[k] * region["icons"].get(ICONS[k], 0) for region in regions for k in range(6))
            houses = sum(sum(region.get("houses", [])) for region in regions)
            mid = (icons[:3] + "H" * houses)[:3].ljust(3, ".")
            rows[0] += f" ~{n}~ "
            rows[1] += f"{w}{mid}{e}"
            rows[2] += f" ~{s}~ "
        lines += [f"{y:>4} {rows[0]}", "     " + rows[1], "     " + rows[2]]
    return lines


def _land_edges(str name, int turn):
    tile = FIRST_START + int(name[1:]) if name.startswith("s") else int(name[1:])
    regions = COMPONENTS["landscape_tiles"][tile]["regions"] if tile < FIRST_START else [
        COMPONENTS["starting_tiles"][tile - FIRST_START]["A"]]
    mask = sum(EDGE_BITS[e] for region in regions for e in region["edges"])
    rot = turn // 90
    return ((mask << rot) | (mask >> (4 - rot))) & 15 if rot else mask


def draw(dict obs):
    """The board, the display and the seat's own holdings, from its observation alone."""
    state = from_observation(obs)
    lines = _board_lines(obs)
    lines.append(state._status_line())
    lines.append("display: " + ", ".join(
        f"{k + 1}: {name} ({describe_tile(tile_of(name))})" if name else f"{k + 1}: empty"
        for k, name in enumerate(obs["display"])))
    me = obs["seats"][obs["seat"]]
    lines.append(f"your hand: {', '.join(f'{n} ({describe_tile(tile_of(n))})' for n in me['hand']) or 'empty'}")
    for label, key in (("objective", "objective"), ("next objective", "next_objective")):
        card = me.get(key)
        if card:
            mission, reward = COMPONENTS["objective_cards"][_card(card)][1:]
            lines.append(f"your {label}: {card}: {MISSIONS[int(mission[1:]) - 1]} -> {REWARDS[int(reward[1:]) - 1]}")
    lines.append(f"Houses {me['houses_hand']} in hand | tokens {', '.join(me['tokens']) or 'none'} | "
                 f"islands: " + "; ".join(
                     f"{i['island']}: {i['tiles']} tiles, f{i['flower']} r{i['fruit']} l{i['leaf']} t{i['temple']} "
                     f"p{i['port']} h{i['house'] - i['houses']}/{i['house']}"
                     for i in state.islands() if i["tiles"] >= 2))
    return "\n".join(lines)


def belief_summary(worlds, int seat):
    """Over sampled worlds: how often each other seat holds each Objective this round (``"seat k"`` keys in seat
    order, as every game's summary names seats; cards in number order; a card shown face up is not hidden, so it is
    not counted). Counted in a C array over the worlds (part of every Suggest reply), then named once."""
    cdef int counts[MAX_SEATS][NUM_OBJECTIVES]
    cdef SmallIslands* s
    cdef int other, card, players = 0
    memset(counts, 0, sizeof(counts))
    n = len(worlds)
    for world in worlds:
        s = (<SmallIslandsState>world).g()
        players = s.num_players
        for other in range(players):
            card = s.obj_cur[other]
            if card >= 0 and s.revealed[other] != card:
                counts[other][card] += 1
    objectives = {}
    for other in range(players):
        if other != seat:
            row = {f"O{card + 1}": round(counts[other][card] / n, 3)
                   for card in range(NUM_OBJECTIVES) if counts[other][card]}
            if row:
                objectives[f"seat {other}"] = row
    return {"objectives": objectives, "worlds": n}


def evidence_move(int action):
    """What a move (as another seat observes it) says about its mover's private key, the Objective for this round:
    ``"renew"`` when it chooses a new one (what was learnt of the old one no longer applies), ``"weigh"`` when it
    may hint at it (a tile placement or a Bonus token: ``key_evidence``), None otherwise."""
    cdef int kind = a_kind(action)
    if kind == K_OBJ_KEEP:
        return "renew"
    if kind == K_PLACE or kind == K_BONUS:
        return "weigh"
    return None


def key_evidence(SmallIslandsState view, int mover, int action):
    """How likely each Objective (as this round's card) makes ``mover``'s placement or Bonus token ``action`` in
    ``view``, the position just before it (a seat's view: the function reads only what every seat sees), as a list of
    12 likelihoods; None when the move says nothing (see ``objective_evidence`` in the rules)."""
    cdef double out[NUM_OBJECTIVES]
    if not 0 <= mover < view.g().num_players:
        raise ValueError(f"mover: expected a seat of 0..{view.g().num_players - 1}, got {mover}")
    if not objective_evidence(view.g(), mover, action, out):
        return None
    return [out[k] for k in range(NUM_OBJECTIVES)]


def weigh_objectives(SmallIslandsState state, rows):
    """A copy of ``state`` whose ``determinize`` deals each other seat's unrevealed Objective for this round in
    proportion to ``rows[seat][card]`` (a searching seat's beliefs; a row of zeros or a short one: uniformly)."""
    if len(rows) != state.g().num_players:
        raise ValueError("rows: one per seat")
    cdef SmallIslandsState copy = <SmallIslandsState>state.clone()
    cdef SmallIslands* s = copy.g()
    cdef int seat, k
    for seat in range(s.num_players):
        row = rows[seat]
        for k in range(NUM_OBJECTIVES):
            s.obj_weight[seat][k] = max(0.0, float(row[k])) if k < len(row) else 0.0
    return copy


GAME_INFOS = (
    GameInfo(
        name="small_islands",
        title="Small Islands",
        description="Small Islands for 2-4 players (the standard game) with the rulings of docs/rules/small_islands.md",
        min_players=2,
        max_players=MAX_SEATS,
        module=sys.modules[__name__],
        draw=draw,
        belief_summary=belief_summary,
        key_evidence=key_evidence,
        evidence_move=evidence_move,
        weigh_keys=weigh_objectives,
        benchmark_players=4,
        # ISMCTS at 300 iterations is not significantly stronger than greedy here (0.58 [0.49, 0.67] over 50 deal
        # groups); at 1,000 it is (SPRT 0/30 accepted after 43 pairs, +231 Elo [148, 348]: atoll bench strength
        # --game small_islands --players 2 --bot i1k=ismcts,iterations=1000 --bot greedy=greedy --lineup i1k,greedy
        # --deals 300 --sprt=0,30), 3,000 beats 1,000 (accepted after 53 pairs, +138 Elo [72, 215]) and 30,000 beats
        # 3,000 (accepted after 39 pairs, +249 Elo [164, 374], 2026-12-02): docs/benchmarks.md, "Strength levels".
        # The ladder starts searching at 1,000. With beliefs (the default since 2026-12-03) 1,000 beat greedy by +295
        # Elo (H1 after 42 pairs), 3,000 beat 1,000 by +81 [31, 134] (H1 after 105 pairs), and 30,000 beat 3,000 by +88
        # [35, 145] (H1 after 89 pairs: --bot L5=level:5 --bot L4=level:4 --lineup L5,L4 --deals 300 --sprt=0,30).
        bot_levels=(
            {"algorithm": "random"},
            {"algorithm": "greedy"},
            {"algorithm": "ismcts", "iterations": 1_000},
            {"algorithm": "ismcts", "iterations": 3_000},
            {"algorithm": "ismcts", "iterations": 30_000},
        ),
        # Chosen in the arena (docs/experiments/small_islands.md, "Small Islands search defaults"): full light playouts
        # beat playouts cut at once and scored by the heuristic at equal time (30 ms a decision, 2 players), SPRT 0/30
        # accepted after 36 pairs, 34 of them won twice: atoll bench strength --game small_islands --players 2 --bot
        # full=ismcts,time_ms=30,playout_depth=-1 --bot d0=ismcts,time_ms=30,playout_depth=0 --lineup full,d0 --deals
        # 200 --sprt=0,30. Exploration scaled by each node's reward spread (constant 1) beat the constant 0.7 at equal
        # time by +48 Elo [13, 84] (SPRT 0/30 accepted after 189 pairs: atoll bench strength --game small_islands
        # --players 2 --bot scaled=ismcts,time_ms=30,scaled_exploration=1,exploration=1 --bot const=ismcts,time_ms=30
        # --lineup scaled,const --deals 300 --sprt=0,30). Progressive widening (factor 2) with each new child the best
        # of 4 untried moves by "points" one ply on beat neither at equal time by +44 Elo [11, 78] (SPRT 0/30 accepted
        # after 223 pairs, 2026-12-02: --bot wc=ismcts,time_ms=30,candidates=4,widening=2 --bot old=ismcts,time_ms=30
        # --lineup wc,old --deals 300 --sprt=0,30 --workers 1). The search keeps "points" (for its candidates and
        # control variate "missions" lost: -41 Elo [-89, 6], SPRT 0/30 H0 after 119 pairs at 30 ms, 2026-12-03); the
        # greedy bot scores one ply on by "missions" at once, which beat greedy over playouts to the end 0.81 [0.72,
        # 0.91] over 40 deal groups (2026-12-03: --bot gm=greedy,heuristic=missions,playout_depth=0 --bot gp=greedy
        # --lineup gm,gp --deals 40). With two seats the search cuts its playouts after 40 steps and scores them by
        # "missions": +215 Elo [136, 320] at equal time (5,400 iterations against 3,000; the cut playouts are 1.95 times
        # faster), SPRT 0/30 accepted after 40 pairs (2026-12-03: --bot
        # d40=ismcts,iterations=5400,heuristic=missions,playout_depth=40 --bot full=ismcts,iterations=3000 --lineup
        # d40,full --deals 300 --sprt=0,30). With four seats, where 40 steps are two turns a seat, the cut at 40 was not
        # better at equal iterations (-0.053 win share [-0.125, +0.019] against greedy, paired by deal over 94 groups);
        # 3-4 players keep playouts to the end until a match decides. With four seats the search deals the other seats'
        # Objectives by beliefs from their placements and Bonus tokens (``beliefs``, ``key_evidence``): 0.500 against
        # 0.446 of three greedy seats' games, +0.054 [+0.008, +0.099] paired by deal over a pre-set 200 groups at equal
        # iterations (it costs no measurable time), 2026-12-03: --players 4 --bot
        # bel=ismcts,iterations=3000,beliefs=true --bot greedy=greedy --lineup bel,greedy,greedy,greedy --deals 200,
        # against the same row without (docs/experiments/small_islands.md, "Small Islands with four seats: beliefs about
        # the other seats' Objectives"). With two seats too: +107 Elo [49, 172] at equal iterations (and time), SPRT
        # 0/30 accepted after 67 pairs (2026-12-03: --players 2 --bot bel=ismcts,iterations=3000,beliefs=true --bot
        # base=ismcts,iterations=3000 --lineup bel,base --deals 300 --sprt=0,30). With three: +0.113 [+0.004, +0.223]
        # win share over the same search without, both in the same games with a greedy seat, paired by deal over a
        # pre-set 50 groups (2026-12-03: --players 3 --bot bel=ismcts,iterations=3000,beliefs=true --bot
        # base=ismcts,iterations=3000,beliefs=false --bot greedy=greedy --lineup bel,base,greedy --deals 50). So on at
        # every seat count. With four seats and beliefs, playouts cut after 80 steps (about as many turns of each seat
        # as 40 with two) and scored by "missions" beat playouts to the end at equal time (4,500 iterations against
        # 3,000: 3 % more CPU time over 47 positions): 0.573 against 0.490 of three greedy seats' games, +0.083 [+0.021,
        # +0.144] paired by deal over 100 groups (2026-12-03, commit 49b6ad1: --players 4 --bot
        # d80t=ismcts,iterations=4500, heuristic=missions,playout_depth=80 --bot greedy=greedy --lineup
        # d80t,greedy,greedy,greedy --deals 100, against the default row; docs/experiments/small_islands.md, "Small
        # Islands, 4 players: the 80-step cut with beliefs"). With three seats, playouts cut after 60 steps (two rounds,
        # as 40 with two seats and 80 with four) and scored by "missions" beat playouts to the end head to head at equal
        # time (4,700 iterations against 3,000: the cut searches took 1/1.58 of the CPU time over 15 positions of greedy
        # games): one cut seat against two seats playing to the end, every seating in turn, SPRT 0/30 accepted
        # (2026-12-04, commit 085505d: --players 3 --bot cut=ismcts,iterations=4700,heuristic=missions,playout_depth=60
        # --bot full=ismcts,iterations=3000 --lineup cut,full,full --deals 200 --sprt=0,30;
        # docs/experiments/small_islands.md, "Small Islands, 3 players: the cut"). With two seats, implicit minimax
        # backups (weight 0.5: a child ranked by half its mean and half its best line through its mover's own next
        # decisions, e.g. a Bonus token and the placements it allows) beat none at 3,000 iterations each (1.04 times the
        # CPU time over 14 positions): +70 Elo [24, 118], SPRT 0/30 accepted after 106 pairs (2026-12-04, commit
        # 4c20c70: --bot mm5=ismcts,iterations=3000,minimax=0.5 --bot off=ismcts,iterations=3000 --lineup mm5,off
        # --deals 300 --sprt=0,30; docs/experiments/small_islands.md, "Small Islands: implicit minimax backups"). With
        # four seats too: one seat at 3,000 iterations against three greedy seats won 0.605 [0.555, 0.655] against 0.496
        # without, +0.108 [+0.040, +0.175] paired by deal over a pre-set 100 groups (2026-12-04, commit 4c20c70:
        # --players 4 --bot mm5=ismcts,iterations=3000,minimax=0.5 --bot greedy=greedy --lineup mm5,greedy,greedy,greedy
        # --deals 100, against the default row). Three seats wait for a match.
        search_defaults=SearchDefaults(
            exploration=1.0,
            scaled_exploration=True,
            playout_depth=-1,
            light_playouts=True,
            baseline=True,
            candidates=4,
            widening=2.0,
            greedy_heuristic="missions",
            greedy_playout_depth=0,
            beliefs=True,
            by_players={
                2: {"playout_depth": 40, "heuristic": "missions", "minimax": 0.5},
                3: {"playout_depth": 60, "heuristic": "missions"},
                4: {"playout_depth": 80, "heuristic": "missions", "minimax": 0.5},
            },
        ),
        heuristics=("points", "missions"),
        playout_policies=("light", "purposeful", "objectives"),
    ),
)
