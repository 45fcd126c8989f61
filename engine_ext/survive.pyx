# cython: language_level=3
"""Survive The Island (Asmodee 2024 rulebook) on the Cython core.

Parameters: ``players`` 2..5; ``seed`` shuffles the 40 island tiles (16 beach, 16 forest, 8 mountain) onto the
outline; options ``hourglass`` = ``"beach_forest"`` (default: every beach and forest tile carries the hourglass) or
``"beach"``; ``layout`` = a 40-letter string of ``b``/``f``/``m`` giving the tiles in ``island_slots`` order (for a
frontend that holds a real board), overriding the shuffle.

The rules are the rulebook's, completed by ``docs/rules/survive.md`` (the project's rulings). In brief:
- Set-up as decisions: in seat order each seat places one Adventurer of its choice (colour and treasure value) on an
  empty tile (5 players: once all 40 hold one, on tiles holding exactly one), then one Raft at a time on an empty water
  cell next to a tile, 2 each (4 each with 2 players, who play two colours each that score as one).
- A turn: Action phase (up to 3 one-space movements of own Adventurers and Rafts, swimming once per Adventurer per
  turn, Ability tiles usable at any point, ``end`` closes it; a seat with no Adventurer left on the board makes no
  movements, and loses the rest of its movements as soon as its last one leaves the board), Rising Waters (remove a
  tile of the thinnest type, 2 tiles once no hourglass tile remains, then a chance reveal of its back: Effects apply
  at once, Abilities go face down to the player), Creatures (a chance die roll, then the active player moves one
  creature of that kind if any move is legal).
- Interactions happen when a creature and elements meet. The active player makes every choice in them (which
  Adventurer goes where when a Kaiju pushes, where displaced creatures go, who boards a crowded raft), one atomic
  decision at a time. Repellent is a reaction: before a Shark or Kaiju acts on a seat's Adventurers, every concerned
  seat that holds any Ability tile is asked in seat order from the active player (asking only holders of a Repellent
  would reveal who holds one; ability counts per land type are public).
- The game ends at once when no Adventurer is left on the board or the 3rd volcano is revealed. Score: the sum of the
  rescued treasure values. Returns: sole winner 1, a k-way tie 1/k each, others 0.

Rulings this module adds where the rulebook and docs/rules/survive.md are silent (each is tested):
- A Kaiju that must push an Adventurer with no legal adjacent cell eliminates it.
- A creature displaced by a Kaiju never re-enters the Kaiju's cell; it returns to the supply if it cannot move.
- A Raft Effect on a cell where a Kaiju stands does nothing (nothing enters a Kaiju's cell).
- While a Kaiju resolves its cell (pushes and displacements in the active player's order), the other elements there
  do not interact with each other: nothing entered anything.
- Which of several identical-looking Adventurers of another seat a choice moves (``push blue:?``) is the same hidden
  meeple for every choice; the owner observes which one it was.

The module is split by role: ``survive_board.py`` (geometry and component tables), ``survive_rules.pxd/.pyx`` (the
state struct, the decoded ``Move``, every rule and the game table, compiled as one unit) and this module (the Python
state, JSON, observations and the move grammar ``GRAMMAR``, read by both ``action_to_string`` and the parser).

Information (``observation(seat)``): the board, all pieces, every seat's ability counts per land type and all face-up
tiles are public; a seat sees its own treasure values and its own Ability types. ``determinize`` deals every other
colour's values as a random permutation of its multiset and other seats' Abilities from the unaccounted Ability backs
of their land types; backs still on the board are chance at reveal, drawn from that land type's remaining backs.
"""

import json
import random as _random
import re
import sys

from libc.math cimport exp
from libc.stdint cimport int32_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

from engine_ext.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, GameVTable, State, clone_into
from engine_ext.core cimport check_int as _check_int
from engine_ext.survive_rules cimport *

from engine_ext.survive_board import (
    BACK_NAMES,
    BACKS,
    RESCUE_AT,
    CELLS,
    COLOUR_NAMES,
    CREATURE_NAMES,
    LAND_NAMES,
    PHASE_NAMES,
    SERPENT_STARTS,
    SLOT_CELLS,
    SUPPLY,
    TERRAIN_LETTERS,
    VALUES,
    node_name,
    parse_node,
)

from engine_ext.core import IllegalAction, InvalidObservation
from engine_ext.fields import first_difference as _first_difference
from engine_ext.registry import BudgetDefaults, GameInfo, GameOption, SearchDefaults

# ---------------------------------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------------------------------
HOURGLASS_OPTIONS = ("beach_forest", "beach")
CONTINUATION_NAMES = (None, "paddles", "dolphin")
STATUS_NAMES = ("unplaced", "board", "rescued", "eliminated")


def _optional_node(value, field):
    if value is None:
        return NO_NODE
    if not isinstance(value, str):
        raise InvalidObservation(field, f"expected a cell name like '(0,-3)', got {value!r}")
    try:
        return parse_node(value)
    except ValueError as err:
        raise InvalidObservation(field, str(err)) from None


def _name_or_none(int node):
    return None if node == NO_NODE else node_name(node)


cdef class SurviveState(State):
    """A Survive The Island position; see the module docstring for the rules and rulings."""

    def __cinit__(self):
        self.attach(survive_table())

    cdef Survive* g(self):
        return <Survive*>self.buf

    # -- move text --------------------------------------------------------------------------------------------------
    def action_to_string(self, int32_t action):
        """Readable move text by the move grammar (``GRAMMAR``; docs/rules/survive.md); ``string_to_action`` parses
        it back."""
        cdef Move m = decode(action)
        template = _TEMPLATES.get(m.kind)
        if template is not None and m.colour < MAX_SEATS and m.value <= 5:
            try:
                return template.format_map(_Printer(self, m))
            except (IndexError, KeyError):
                pass
        raise IllegalAction(f"{action} is not a Survive action id")

    def _parse_move_text(self, str text):
        return _parse_move(text)

    def in_setup(self):
        """Whether the position is a set-up decision (placing Adventurers or Rafts)."""
        return self.g().phase < PH_ACTION

    def _raft_at(self, int node):
        return node < FIRST_RESCUE and self.g().raft[node]

    # -- JSON -------------------------------------------------------------------------------------------------------
    def _control(self, bint with_private):
        cdef Survive* s = self.g()
        cont = None
        if s.cont_kind != CONT_NONE:
            cont = {"kind": CONTINUATION_NAMES[s.cont_kind], "cell": node_name(s.cont_cell)}
            if s.cont_kind == CONT_DOLPHIN:
                cont["colour"] = COLOUR_NAMES[s.cont_colour]
                cont["swum"] = bool(s.cont_swum)
                if with_private:
                    cont["value"] = s.cont_value
        return {
            "phase": PHASE_NAMES[s.phase],
            "active": s.active,
            "turn": s.turn,
            "setup_count": s.setup_count,
            "moves_left": s.moves_left,
            "rising_left": s.rising_left,
            "volcanoes": s.volcanoes,
            "die": CREATURE_NAMES[s.die_type],
            "effect_cell": _name_or_none(s.effect_cell),
            "effect_land": LAND_NAMES[s.effect_land],
            "summon": "raft" if s.summon_type == SUMMON_RAFT else CREATURE_NAMES[s.summon_type],
            "reaction": None if s.react_type < 0 else {
                "creature": CREATURE_NAMES[s.react_type],
                "cell": node_name(s.react_cell),
                "declined": [p for p in range(s.num_players) if s.react_asked & (1 << p)],
            },
            "kaiju_resolving": [node_name(s.kaiju_cell[k]) for k in range(s.kaiju_depth)],
            "continuation": cont,
        }

    def _board_dict(self):
        cdef Survive* s = self.g()
        return {
            "terrain": "".join(TERRAIN_LETTERS[s.terrain[c]] for c in range(NUM_CELLS)),
            "rafts": [node_name(c) for c in range(NUM_CELLS) if s.raft[c]],
            "creatures": {
                CREATURE_NAMES[k]: [node_name(c) for c in range(NUM_CELLS) for _ in range(s.creatures[c][k])]
                for k in range(3)
            },
            "revealed": {
                LAND_NAMES[land]: {BACK_NAMES[b]: s.revealed[land][b] for b in range(NUM_BACKS) if BACKS[land][b]}
                for land in range(3)
            },
        }

    def _meeple_entry(self, int i, bint with_value):
        cdef Meeple* m = &self.g().meeple[i]
        entry = {
            "status": STATUS_NAMES[m.status],
            "cell": node_name(m.cell) if m.status in (ST_BOARD, ST_RESCUED) else None,
            "aboard": bool(m.aboard),
            "swum": bool(m.swum),
        }
        if with_value:
            entry["value"] = m.value
        return entry

    def _held_by_type(self, int seat):
        cdef Survive* s = self.g()
        return {
            LAND_NAMES[land]: {BACK_NAMES[FIRST_ABILITY + k]: s.held[seat][land][k]
                               for k in range(NUM_ABILITIES) if BACKS[land][FIRST_ABILITY + k]}
            for land in range(2)
        }

    def _held_counts(self, int seat):
        cdef Survive* s = self.g()
        return {LAND_NAMES[land]: sum(s.held[seat][land][k] for k in range(NUM_ABILITIES)) for land in range(2)}

    def _header(self):
        cdef Survive* s = self.g()
        return {
            "game": "survive",
            "players": s.num_players,
            "options": {"hourglass": HOURGLASS_OPTIONS[s.hourglass_beach_only]},
        }

    def to_json(self):
        """The full state, hidden facts included; ``from_json`` restores it exactly."""
        cdef Survive* s = self.g()
        data = self._header()
        data["control"] = self._control(True)
        data.update(self._board_dict())
        data["adventurers"] = [
            [self._meeple_entry(i, True) for i in range(c * MEEPLES_PER_COLOUR, (c + 1) * MEEPLES_PER_COLOUR)]
            for c in range(s.num_colours)
        ]
        data["held"] = [self._held_by_type(p) for p in range(s.num_players)]
        return json.dumps(data, separators=(",", ":"))

    def observation(self, int seat):
        """What ``seat`` knows: everything public, its own treasure values and its own Ability types."""
        self.check_seat(seat)
        cdef Survive* s = self.g()
        data = self._header()
        data["seat"] = seat
        data["current_player"] = self.current_player()
        data["control"] = self._control(seat == s.active)
        data.update(self._board_dict())
        adventurers = []
        for c in range(s.num_colours):
            own = seat_of_colour(s, c) == seat
            entries = [self._meeple_entry(i, own)
                       for i in range(c * MEEPLES_PER_COLOUR, (c + 1) * MEEPLES_PER_COLOUR)]
            adventurers.append(sorted(entries, key=_entry_order))
        data["adventurers"] = adventurers
        data["held"] = [self._held_by_type(p) if p == seat else self._held_counts(p) for p in range(s.num_players)]
        data["score"] = self.scores()[seat]
        return data

    def private_info(self, int seat):
        """The seat's secrets that matter: treasure values of its Adventurers on the board or rescued (unplaced ones
        follow from the multiset, eliminated ones never count) and the types of its Ability tiles."""
        self.check_seat(seat)
        cdef Survive* s = self.g()
        info = {}
        for c in range(first_colour(s, seat), first_colour(s, seat) + colours_per_seat(s)):
            entries = sorted((self._meeple_entry(i, True)
                              for i in range(c * MEEPLES_PER_COLOUR, (c + 1) * MEEPLES_PER_COLOUR)
                              if s.meeple[i].status in (ST_BOARD, ST_RESCUED)), key=_entry_order)
            if entries:
                info[COLOUR_NAMES[c]] = entries
        abilities = {f"{land}:{name}": n for land, row in self._held_by_type(seat).items()
                     for name, n in row.items() if n}
        if abilities:
            info["abilities"] = abilities
        return info

    def invariant_violations(self):
        """Component-conservation and bookkeeping checks (for the random-simulation tests): [] when all hold."""
        cdef Survive* s = self.g()
        cdef int c, i, kind, land, b
        problems = []
        adv = [0] * NUM_CELLS
        aboard = [0] * NUM_CELLS
        status_counts = [0, 0, 0, 0]
        rescued_value = [0] * s.num_players
        for i in range(s.num_colours * MEEPLES_PER_COLOUR):
            m = s.meeple[i]
            status_counts[m.status] += 1
            if m.status == ST_BOARD:
                adv[m.cell] += 1
                aboard[m.cell] += m.aboard
                if s.terrain[m.cell] == VOLCANO:
                    problems.append(f"adventurer {i} stands on a volcano")
                if m.aboard and not s.raft[m.cell]:
                    problems.append(f"adventurer {i} aboard a missing raft")
            elif m.status == ST_RESCUED:
                rescued_value[seat_of_colour(s, i // MEEPLES_PER_COLOUR)] += m.value
                if m.cell < FIRST_RESCUE:
                    problems.append(f"rescued adventurer {i} is not on a Rescue Island")
        if s.phase >= PH_ACTION and status_counts[ST_UNPLACED]:
            problems.append("unplaced adventurers after set-up")
        if sum(status_counts) != s.num_colours * MEEPLES_PER_COLOUR:
            problems.append("adventurers not conserved")
        if status_counts[ST_BOARD] != s.on_board:
            problems.append("on-board count out of step")
        if rescued_value != self.scores():
            problems.append("scores differ from the sum of rescued values")
        for c in range(NUM_CELLS):
            if adv[c] != s.adv_at[c] or aboard[c] != s.aboard_at[c]:
                problems.append(f"cell {node_name(c)}: adventurer counts out of step")
            if aboard[c] > RAFT_CAPACITY:
                problems.append(f"raft at {node_name(c)} over capacity")
            if s.raft[c] and s.terrain[c] != WATER:
                problems.append(f"raft on land at {node_name(c)}")
            if (s.creatures[c][SERPENT] or s.creatures[c][SHARK]) and s.terrain[c] != WATER:
                problems.append(f"a creature other than a Kaiju on a tile at {node_name(c)}")
            if s.creatures[c][KAIJU] and s.terrain[c] == VOLCANO:
                problems.append(f"a Kaiju on a volcano at {node_name(c)}")
            if s.decision == D_PHASE or s.decision == D_CONTINUE:
                if s.creatures[c][SHARK] and swimmers(s, c):
                    problems.append(f"a Shark shares {node_name(c)} with swimmers at rest")
                if s.creatures[c][SERPENT] and (s.adv_at[c] or s.raft[c]):
                    problems.append(f"a Serpent shares {node_name(c)} with elements at rest")
        for kind in range(3):
            if on_board_count(s, kind) > SUPPLY[kind]:
                problems.append(f"more {CREATURE_NAMES[kind]}s than the supply holds")
        if on_board_count(s, SUMMON_RAFT) > NUM_RAFTS:
            problems.append("more rafts than the supply holds")
        tiles = sum(is_land(s, c) for c in range(NUM_CELLS))
        turned = sum(s.revealed[land][b] for land in range(3) for b in range(NUM_BACKS))
        held = sum(held_total(s, p) for p in range(s.num_players))
        if tiles + turned + held + (1 if s.phase == PH_REVEAL else 0) != NUM_SLOTS:
            problems.append(f"tiles not conserved: {tiles} on board, {turned} face up, {held} held")
        for land in range(3):
            for b in range(NUM_BACKS):
                if backs_left(s, land, b) < 0:
                    problems.append(f"negative {LAND_NAMES[land]} {BACK_NAMES[b]} backs")
        return problems

    # -- drawing ----------------------------------------------------------------------------------------------------
    def __str__(self):
        """The hex board in text (one 4-character token per cell: terrain, then what stands there), the public status
        and every seat's score (the true state's: a drawing for one seat is ``draw(observation)``)."""
        return "\n".join(self._board_lines() + [f"{self._status_line()} | scores {self.scores()}"])

    def _status_line(self):
        cdef Survive* s = self.g()
        return (f"turn {s.turn} | phase {PHASE_NAMES[s.phase]} | active seat {s.active} | to move "
                f"{self.current_player()} | moves left {s.moves_left} | volcanoes {s.volcanoes}")

    def _board_lines(self):
        """The board and its legend: only public facts (terrain, creatures, rafts, how many Adventurers where)."""
        cdef int c
        lines = []
        for r in range(-6, 7):
            # Pointy-top hexes: a cell's column is 4q + 2r characters (x = q + r/2), shifted so the board starts at 0.
            line = [" "] * 80
            tokens = [(q, f" {name} ") for (q, rr), name in RESCUE_AT.items() if rr == r]
            tokens += [(CELLS[c][0], self._token(c)) for c in range(NUM_CELLS) if CELLS[c][1] == r]
            for q, token in tokens:
                col = 4 * q + 2 * r + 24
                line[col:col + 4] = token
            lines.append("".join(line).rstrip())
        lines.append("terrain ~ water, b beach, f forest, m mountain, V volcano | S serpent s shark K kaiju "
                     "| R raft with n aboard | digits: adventurers (swimmers or on the tile)")
        return lines

    def _token(self, int c):
        cdef Survive* s = self.g()
        t = TERRAIN_LETTERS[s.terrain[c]]
        mark = ""
        if s.creatures[c][KAIJU]:
            mark += "K"
        if s.creatures[c][SERPENT]:
            mark += "S"
        if s.creatures[c][SHARK]:
            mark += "s"
        if s.raft[c]:
            mark += f"R{s.aboard_at[c]}"
        loose = s.adv_at[c] - s.aboard_at[c]
        if loose:
            mark += str(loose)
        return (t + mark)[:4].ljust(4)

    def __repr__(self):
        cdef Survive* s = self.g()
        return f"<SurviveState {s.num_players}p turn {s.turn} {PHASE_NAMES[s.phase]} to move {self.current_player()}>"

    # -- loading ----------------------------------------------------------------------------------------------------
    def _load(self, dict data):
        """Fill the struct from a full-state dict (the to_json layout), validating every field."""
        cdef Survive* s = self.g()
        cdef int c, k, land, b
        memset(s, 0, sizeof(Survive))
        players = _check_int(data, "players", 2, 5)
        s.num_players = players
        s.num_colours = 4 if players == 2 else players
        options = data.get("options", {})
        if not isinstance(options, dict) or options.get("hourglass", "beach_forest") not in HOURGLASS_OPTIONS:
            raise InvalidObservation("options.hourglass", f"expected one of {HOURGLASS_OPTIONS}")
        s.hourglass_beach_only = HOURGLASS_OPTIONS.index(options.get("hourglass", "beach_forest"))
        terrain = data.get("terrain")
        if not isinstance(terrain, str) or len(terrain) != NUM_CELLS or set(terrain) - set(TERRAIN_LETTERS):
            raise InvalidObservation("terrain", f"expected {NUM_CELLS} letters from {TERRAIN_LETTERS!r}")
        for c in range(NUM_CELLS):
            s.terrain[c] = TERRAIN_LETTERS.index(terrain[c])
            if s.terrain[c] != WATER and c not in SLOT_CELLS:
                raise InvalidObservation("terrain", f"{node_name(c)} is not an island slot and must be water")
            if BEACH <= s.terrain[c] <= MOUNTAIN:
                s.tiles[s.terrain[c]] += 1
        for letter, most in (("b", 16), ("f", 16), ("m", 8), ("V", 4)):
            if terrain.count(letter) > most:
                raise InvalidObservation("terrain", f"more than {most} {letter!r} cells")
        rafts = data.get("rafts", [])
        if not isinstance(rafts, list) or len(rafts) > NUM_RAFTS:
            raise InvalidObservation("rafts", f"expected a list of at most {NUM_RAFTS} cells")
        for k, name in enumerate(rafts):
            c = _optional_node(name, f"rafts[{k}]")
            if c >= FIRST_RESCUE or s.terrain[c] != WATER or s.raft[c]:
                raise InvalidObservation(f"rafts[{k}]", f"{name} is not a free water cell")
            set_raft(s, c, True)
        creatures = data.get("creatures", {})
        if not isinstance(creatures, dict):
            raise InvalidObservation("creatures", "expected {serpent: [...], shark: [...], kaiju: [...]}")
        for kind in range(3):
            cells = creatures.get(CREATURE_NAMES[kind], [])
            if not isinstance(cells, list) or len(cells) > SUPPLY[kind]:
                raise InvalidObservation(f"creatures.{CREATURE_NAMES[kind]}", f"at most {SUPPLY[kind]} cells")
            for k, name in enumerate(cells):
                c = _optional_node(name, f"creatures.{CREATURE_NAMES[kind]}[{k}]")
                if c >= FIRST_RESCUE or s.terrain[c] == VOLCANO or (kind != KAIJU and s.terrain[c] != WATER):
                    raise InvalidObservation(f"creatures.{CREATURE_NAMES[kind]}[{k}]", f"{name}: not a legal cell")
                add_creature(s, c, kind, 1)
        revealed = data.get("revealed", {})
        for land in range(3):
            row = revealed.get(LAND_NAMES[land], {}) if isinstance(revealed, dict) else None
            if not isinstance(row, dict):
                raise InvalidObservation(f"revealed.{LAND_NAMES[land]}", "expected {back: count}")
            for b in range(NUM_BACKS):
                if BACKS[land][b]:
                    s.revealed[land][b] = _check_int(row, BACK_NAMES[b], 0, BACKS[land][b],
                                                     f"revealed.{LAND_NAMES[land]}.")
        self._load_adventurers(data.get("adventurers"))
        self._load_held(data.get("held"))
        self._load_control(data.get("control"))
        for land in range(3):
            for b in range(NUM_BACKS):
                if backs_left(s, land, b) < 0:
                    raise InvalidObservation("held", f"more {LAND_NAMES[land]} {BACK_NAMES[b]} tiles than exist")
        settle(s)

    def _load_adventurers(self, adventurers):
        cdef Survive* s = self.g()
        cdef int base, cell
        cdef Meeple* m
        if not isinstance(adventurers, list) or len(adventurers) != s.num_colours:
            raise InvalidObservation("adventurers", f"expected {s.num_colours} colours of 10")
        for colour, entries in enumerate(adventurers):
            field = f"adventurers[{colour}]"
            if (not isinstance(entries, list) or len(entries) != MEEPLES_PER_COLOUR
                    or not all(isinstance(e, dict) for e in entries)):
                raise InvalidObservation(field, "expected 10 adventurers, each an object")
            values = sorted(e.get("value") for e in entries if isinstance(e, dict))
            if values != list(VALUES):
                raise InvalidObservation(field, "treasure values must be 1,1,2,2,3,3,4,4,5,5")
            base = colour * MEEPLES_PER_COLOUR
            for k, entry in enumerate(entries):
                m = &s.meeple[base + k]
                where = f"{field}[{k}]"
                if entry.get("status") not in STATUS_NAMES:
                    raise InvalidObservation(f"{where}.status", f"expected one of {STATUS_NAMES}")
                m.status = STATUS_NAMES.index(entry["status"])
                m.value = entry["value"]
                m.aboard = bool(entry.get("aboard"))
                m.swum = bool(entry.get("swum"))
                cell = _optional_node(entry.get("cell"), f"{where}.cell")
                if m.status == ST_BOARD:
                    if cell >= FIRST_RESCUE or s.terrain[cell] == VOLCANO:
                        raise InvalidObservation(f"{where}.cell", "an adventurer on the board stands on a cell")
                    if m.aboard and not (s.raft[cell] and s.terrain[cell] == WATER):
                        raise InvalidObservation(f"{where}.aboard", "there is no raft at that cell")
                    m.cell = cell
                    s.adv_at[cell] += 1
                    s.aboard_at[cell] += m.aboard
                    s.on_board += 1
                    if s.aboard_at[cell] > RAFT_CAPACITY:
                        raise InvalidObservation(f"{where}.aboard", "a raft holds 3 adventurers")
                elif m.status == ST_RESCUED:
                    if cell < FIRST_RESCUE:
                        raise InvalidObservation(f"{where}.cell", "a rescued adventurer is on a Rescue Island")
                    m.cell = cell
                else:
                    if cell != NO_NODE or m.aboard:
                        raise InvalidObservation(f"{where}.cell", "unplaced and eliminated adventurers have no cell")
                    m.cell = 0

    def _load_held(self, held):
        cdef Survive* s = self.g()
        if not isinstance(held, list) or len(held) != s.num_players:
            raise InvalidObservation("held", "expected one entry per seat")
        for seat, lands in enumerate(held):
            for land in range(2):
                row = lands.get(LAND_NAMES[land], {}) if isinstance(lands, dict) else None
                if not isinstance(row, dict):
                    raise InvalidObservation(f"held[{seat}].{LAND_NAMES[land]}", "expected {ability: count}")
                for k in range(NUM_ABILITIES):
                    if BACKS[land][FIRST_ABILITY + k]:
                        s.held[seat][land][k] = _check_int(row, BACK_NAMES[FIRST_ABILITY + k], 0,
                                                           BACKS[land][FIRST_ABILITY + k],
                                                           f"held[{seat}].{LAND_NAMES[land]}.")

    def _load_control(self, control):
        cdef Survive* s = self.g()
        cdef int k
        if not isinstance(control, dict):
            raise InvalidObservation("control", "expected an object")
        s.phase = _check_choice(control, "phase", PHASE_NAMES)
        s.active = _check_int(control, "active", 0, s.num_players - 1, "control.")
        s.turn = _check_int(control, "turn", 0, 10_000, "control.")
        s.setup_count = _check_int(control, "setup_count", 0, MAX_MEEPLES, "control.")
        s.moves_left = _check_int(control, "moves_left", 0, MAX_MOVES, "control.")
        s.rising_left = _check_int(control, "rising_left", 0, 2, "control.")
        s.volcanoes = _check_int(control, "volcanoes", 0, 3, "control.")
        if s.volcanoes != sum(s.terrain[c] == VOLCANO for c in range(NUM_CELLS)):
            raise InvalidObservation("control.volcanoes", "does not match the volcanoes on the board")
        s.die_type = _check_choice(control, "die", CREATURE_NAMES)
        s.effect_cell = _optional_node(control.get("effect_cell"), "control.effect_cell")
        s.effect_land = _check_choice(control, "effect_land", LAND_NAMES)
        s.summon_type = _check_choice(control, "summon", CREATURE_NAMES + ("raft",))
        reaction = control.get("reaction")
        s.react_type = -1
        if reaction is not None:
            if not isinstance(reaction, dict):
                raise InvalidObservation("control.reaction", "expected an object or null")
            s.react_type = _check_choice(reaction, "creature", CREATURE_NAMES, "control.reaction.")
            s.react_cell = _optional_node(reaction.get("cell"), "control.reaction.cell")
            for p in reaction.get("declined", []):
                if not isinstance(p, int) or not 0 <= p < s.num_players:
                    raise InvalidObservation("control.reaction.declined", "expected seats")
                s.react_asked |= 1 << p
        kaiju_cells = control.get("kaiju_resolving", [])
        if not isinstance(kaiju_cells, list) or len(kaiju_cells) > 2:
            raise InvalidObservation("control.kaiju_resolving", "at most 2 cells")
        for k, name in enumerate(kaiju_cells):
            s.kaiju_cell[k] = _optional_node(name, f"control.kaiju_resolving[{k}]")
        s.kaiju_depth = len(kaiju_cells)
        cont = control.get("continuation")
        if cont is not None:
            if not isinstance(cont, dict):
                raise InvalidObservation("control.continuation", "expected an object or null")
            s.cont_kind = _check_choice(cont, "kind", CONTINUATION_NAMES, "control.continuation.")
            if s.cont_kind == CONT_NONE:
                raise InvalidObservation("control.continuation.kind", "expected paddles or dolphin")
            s.cont_cell = _optional_node(cont.get("cell"), "control.continuation.cell")
            if s.cont_kind == CONT_DOLPHIN:
                s.cont_colour = _check_choice(cont, "colour", COLOUR_NAMES[:s.num_colours], "control.continuation.")
                s.cont_swum = bool(cont.get("swum"))
                s.cont_value = _check_int(cont, "value", 1, 5, "control.continuation.")
        placed = sum(s.meeple[i].status != ST_UNPLACED for i in range(s.num_colours * MEEPLES_PER_COLOUR))
        rafts = sum(s.raft[c] for c in range(NUM_CELLS))
        if s.phase == PH_SETUP_ADV and (placed != s.setup_count or rafts):
            raise InvalidObservation("control.setup_count", "does not match the adventurers placed")
        if s.phase == PH_SETUP_RAFT and (placed != s.num_colours * MEEPLES_PER_COLOUR or rafts != s.setup_count):
            raise InvalidObservation("control.setup_count", "does not match the rafts placed")
        if s.phase >= PH_ACTION and placed != s.num_colours * MEEPLES_PER_COLOUR:
            raise InvalidObservation("adventurers", "every adventurer is placed once the game has started")


def _entry_order(entry):
    return (STATUS_NAMES.index(entry["status"]), entry["cell"] or "", entry["aboard"], entry["swum"],
            entry.get("value", 0))


def _check_choice(dict data, str key, tuple names, str prefix="control."):
    value = data.get(key)
    if value not in names:
        raise InvalidObservation(prefix + key, f"expected one of {[n for n in names if n is not None]}, got {value!r}")
    return names.index(value)


# ---------------------------------------------------------------------------------------------------------------------
# The move grammar: one template per action kind, read by both action_to_string and the parser. Placeholders:
# {who} an Adventurer as colour:value (? when unseen, * once it has swum this turn); {from} {to} a node: (q,r) or
# NW/NE/SW/SE; {src} the moving Adventurer's node, raft@(q,r) when it is aboard; {dest} a node, raft@(q,r) when a raft
# is there, or "out"; {land} {creature} {summoned} {repelled} {back} names.
# ---------------------------------------------------------------------------------------------------------------------
GRAMMAR = (
    (K_PLACE_ADV, "place {who} {to}"),
    (K_PLACE_RAFT, "place raft {to}"),
    (K_MOVE_ADV, "move {who} {src}->{dest}"),
    (K_MOVE_RAFT, "move raft {from}->{to}"),
    (K_END, "end"),
    (K_REMOVE_TILE, "remove {land} {from}"),
    (K_MOVE_CREATURE, "move {creature} {from}->{to}"),
    (K_SUMMON, "summon {summoned} {from}->{to}"),
    (K_PADDLES, "use paddles:beach raft {from}->{to}"),
    (K_DOLPHIN, "use dolphin:{land} {who} {from}->{dest}"),
    (K_DIVE, "use dive:forest {creature} {from}->{to}"),
    (K_DIE, "use die:{land}"),
    (K_REPEL, "use repellent:{land} {repelled} {from}"),
    (K_DECLINE, "decline"),
    (K_CONTINUE, "continue {from}->{dest}"),
    (K_STOP, "stop"),
    (K_PUSH, "push {who} {from}->{dest}"),
    (K_DISPLACE, "displace {creature} {from}->{dest}"),
    (K_BOARD, "board {who} {from}"),
    (K_REVEAL, "reveal {land}:{back}"),
    (K_ROLL, "roll {creature}"),
)
_TEMPLATES = dict(GRAMMAR)
# Fields a kind's text does not carry: placements come from nowhere, boarding goes nowhere.
_UNWRITTEN = {K_PLACE_ADV: {"frm": NO_NODE}, K_PLACE_RAFT: {"frm": NO_NODE}, K_BOARD: {"to": NO_NODE}}
_NODE = r"(?:raft@)?(?:\(-?\d+,\s?-?\d+\)|NW|NE|SW|SE)"
_PATTERNS = {
    "who": r"(?:red|blue|green|yellow|purple):[1-5?]\*?",
    "from": _NODE,
    "to": _NODE,
    "src": _NODE,
    "dest": _NODE + "|out",
    "land": "|".join(LAND_NAMES),
    "creature": "|".join(CREATURE_NAMES),
    "summoned": "|".join(CREATURE_NAMES + ("raft",)),
    "repelled": "|".join(CREATURE_NAMES),
    "back": "|".join(BACK_NAMES + ("ability",)),
}
_FIELD = re.compile(r"\{(\w+)\}")


class _Printer(dict):
    """The placeholder values of one decoded action, as ``str.format_map`` asks for them."""

    def __init__(self, state, m):
        super().__init__()
        self.state = state
        self.m = m

    def __missing__(self, key):
        m = self.m
        if key == "who":
            return f"{COLOUR_NAMES[m['colour']]}:{m['value'] or '?'}{'*' if m['flag'] else ''}"
        if key in ("from", "to"):
            return node_name(m["frm" if key == "from" else "to"])
        if key == "src":
            return ("raft@" if m["sub"] else "") + node_name(m["frm"])
        if key == "dest":
            if m["to"] == NO_NODE:
                return "out"
            return ("raft@" if self.state._raft_at(m["to"]) else "") + node_name(m["to"])
        if key == "land":
            return LAND_NAMES[m["sub"]]
        if key == "creature":
            return CREATURE_NAMES[m["sub"]]
        if key == "summoned":
            return "raft" if m["sub"] == SUMMON_RAFT else CREATURE_NAMES[m["sub"]]
        if key == "repelled":
            return CREATURE_NAMES[m["value"]]
        if key == "back":
            return "ability" if m["to"] == HIDDEN_ABILITY else BACK_NAMES[m["to"]]
        raise KeyError(key)


def _compile(template):
    parts = []
    last = 0
    for match in _FIELD.finditer(template):
        parts.append(re.escape(template[last:match.start()]))
        parts.append(f"(?P<{match.group(1)}>{_PATTERNS[match.group(1)]})")
        last = match.end()
    parts.append(re.escape(template[last:]))
    return re.compile("".join(parts), re.IGNORECASE)


_PARSERS = tuple((kind, _compile(template)) for kind, template in GRAMMAR)


def _read_field(dict m, str key, str value):
    """Store one placeholder's parsed value in the Move fields ``m``."""
    low = value.lower()
    if key == "who":
        colour, _, rest = low.partition(":")
        m["colour"] = COLOUR_NAMES.index(colour)
        m["value"] = 0 if rest[0] == "?" else int(rest[0])
        m["flag"] = 1 if rest.endswith("*") else 0
    elif key in ("from", "src"):
        m["frm"] = parse_node(value)
        if key == "src":
            m["sub"] = 1 if low.startswith("raft@") else 0
    elif key in ("to", "dest"):
        m["to"] = NO_NODE if low == "out" else parse_node(value)
    elif key == "land":
        m["sub"] = LAND_NAMES.index(low)
    elif key == "creature":
        m["sub"] = CREATURE_NAMES.index(low)
    elif key == "summoned":
        m["sub"] = SUMMON_RAFT if low == "raft" else CREATURE_NAMES.index(low)
    elif key == "repelled":
        m["value"] = CREATURE_NAMES.index(low)
    elif key == "back":
        m["to"] = HIDDEN_ABILITY if low == "ability" else BACK_NAMES.index(low)


def _parse_move(str text):
    """The action id that move text names, by the grammar; ValueError says what is wrong."""
    cleaned = " ".join(text.split())
    if not cleaned:
        raise ValueError("empty text")
    for kind, pattern in _PARSERS:
        match = pattern.fullmatch(cleaned)
        if match is None:
            continue
        fields = {"kind": kind, "sub": 0, "colour": 0, "value": 0, "flag": 0, "frm": 0, "to": 0}
        fields.update(_UNWRITTEN.get(kind, {}))
        for key, value in match.groupdict().items():
            _read_field(fields, key, value)
        return _encode_fields(fields)
    raise ValueError("no move reads like this; examples: 'move raft (2,-1)->(3,-1)', 'remove forest (1,2)', 'end'")


def _encode_fields(dict fields):
    cdef Move m
    m.kind = fields["kind"]
    m.sub = fields["sub"]
    m.colour = fields["colour"]
    m.value = fields["value"]
    m.flag = fields["flag"]
    m.frm = fields["frm"]
    m.to = fields["to"]
    return encode(&m)


def _random_layout(seed):
    tiles = ["b"] * 16 + ["f"] * 16 + ["m"] * 8
    _random.Random(seed).shuffle(tiles)
    return "".join(tiles)


def new_game(int players=4, long seed=0, str hourglass="beach_forest", layout=None):
    """A new game at the start of set-up: island tiles laid (``layout`` or shuffled by ``seed``), Sea Serpents on their
    five spaces, everything else in hand or supply."""
    cdef int k, colour
    if not 2 <= players <= MAX_SEATS:
        raise ValueError(f"survive takes 2..{MAX_SEATS} players, not {players}")
    if hourglass not in HOURGLASS_OPTIONS:
        raise ValueError(f"hourglass must be one of {HOURGLASS_OPTIONS}, not {hourglass!r}")
    if layout is None:
        layout = _random_layout(seed)
    if (not isinstance(layout, str) or len(layout) != NUM_SLOTS or layout.count("b") != 16
            or layout.count("f") != 16 or layout.count("m") != 8):
        raise ValueError("layout must be 40 letters b/f/m (16 b, 16 f, 8 m) in island_slots order")
    cdef SurviveState state = SurviveState.__new__(SurviveState)
    cdef Survive* s = <Survive*>state.buf
    s.num_players = players
    s.num_colours = 4 if players == 2 else players
    s.hourglass_beach_only = HOURGLASS_OPTIONS.index(hourglass)
    for k in range(NUM_SLOTS):
        s.terrain[SLOT_CELLS[k]] = " bfm".index(layout[k])
        s.tiles[s.terrain[SLOT_CELLS[k]]] += 1
    for k in range(5):
        add_creature(s, SERPENT_STARTS[k], SERPENT, 1)
    # Meeples of a colour are stored in a seeded random order, so storage order says nothing about values.
    order = _random.Random(seed + 1)
    for colour in range(s.num_colours):
        values = list(VALUES)
        order.shuffle(values)
        for k in range(MEEPLES_PER_COLOUR):
            s.meeple[colour * MEEPLES_PER_COLOUR + k].value = values[k]
    s.phase = PH_SETUP_ADV
    s.react_type = -1
    s.effect_cell = NO_NODE
    settle(s)
    return state


def _canonical(dict data):
    """``data`` with its unordered lists (rafts, creatures, each colour's adventurers) in the order we write them."""
    out = dict(data)

    def by_cell(names):
        return sorted(names, key=lambda name: parse_node(name) if isinstance(name, str) else -1)

    if isinstance(out.get("rafts"), list):
        out["rafts"] = by_cell(out["rafts"])
    if isinstance(out.get("creatures"), dict):
        out["creatures"] = {k: by_cell(v) if isinstance(v, list) else v for k, v in out["creatures"].items()}
    return out


def from_json(str text):
    """The state ``to_json`` wrote; raises ``InvalidObservation`` (a ValueError) naming the first bad field."""
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("game") != "survive":
        raise ValueError("not a survive state")
    cdef SurviveState state = SurviveState.__new__(SurviveState)
    state._load(data)
    written = json.loads(state.to_json())
    if written != _canonical(data):
        field = _first_difference(_canonical(data), written)
        raise InvalidObservation(field, "not a position the rules can rest in (something automatic is left "
                                        "unresolved, or a field contradicts the others)")
    return state


def from_observation(dict obs):
    """A determinizable state consistent with one seat's observation: hidden values and Abilities get arbitrary
    consistent values that ``determinize`` then resamples."""
    players = _check_int(obs, "players", 2, 5)
    seat = _check_int(obs, "seat", 0, players - 1)
    num_colours = 4 if players == 2 else players
    owned = [c for c in range(num_colours) if (c // 2 if players == 2 else c) == seat]
    data = {k: obs.get(k) for k in ("game", "players", "options", "terrain", "rafts", "creatures", "revealed")}
    adventurers = obs.get("adventurers")
    if not isinstance(adventurers, list) or len(adventurers) != num_colours:
        raise InvalidObservation("adventurers", f"expected {num_colours} colours")
    data["adventurers"] = []
    for colour, entries in enumerate(adventurers):
        if not isinstance(entries, list) or len(entries) != MEEPLES_PER_COLOUR or not all(
                isinstance(e, dict) for e in entries):
            raise InvalidObservation(f"adventurers[{colour}]", "expected 10 adventurers")
        if colour in owned:
            data["adventurers"].append([dict(e) for e in entries])
        else:
            if any("value" in e for e in entries):
                raise InvalidObservation(f"adventurers[{colour}]", "another seat's treasure values are not visible")
            data["adventurers"].append([dict(e, value=VALUES[k]) for k, e in enumerate(entries)])
    held = obs.get("held")
    if not isinstance(held, list) or len(held) != players:
        raise InvalidObservation("held", "expected one entry per seat")
    data["held"] = _fill_held(held, seat, obs.get("revealed"))
    control = obs.get("control")
    if not isinstance(control, dict):
        raise InvalidObservation("control", "expected an object")
    control = dict(control)
    cont = control.get("continuation")
    if isinstance(cont, dict) and cont.get("kind") == "dolphin" and control.get("active") != seat:
        cont = dict(cont)
        colour = cont.get("colour")
        candidates = [k for k, e in enumerate(data["adventurers"][COLOUR_NAMES.index(colour)])
                      if e.get("status") == "board" and e.get("cell") == cont.get("cell") and not e.get("aboard")
                      and bool(e.get("swum")) == bool(cont.get("swum"))] if colour in COLOUR_NAMES else []
        if not candidates:
            raise InvalidObservation("control.continuation", "no such swimmer to continue with")
        cont["value"] = data["adventurers"][COLOUR_NAMES.index(colour)][candidates[0]]["value"]
        control["continuation"] = cont
    data["control"] = control
    cdef SurviveState state = SurviveState.__new__(SurviveState)
    state._load(data)
    expected = _canonical(obs)
    if isinstance(expected.get("adventurers"), list):
        expected["adventurers"] = [sorted(entries, key=_entry_order) for entries in expected["adventurers"]]
    seen = state.observation(seat)
    if seen != expected:
        raise InvalidObservation(_first_difference(expected, seen),
                                 "contradicts the other fields (not a position the rules can rest in)")
    return state


def _fill_held(held, int seat, revealed):
    """Other seats' Ability tiles, given only per land type, get the first unaccounted types of that land."""
    filled = []
    for p, entry in enumerate(held):
        if p == seat:
            filled.append(entry)
            continue
        if not isinstance(entry, dict):
            raise InvalidObservation(f"held[{p}]", "expected counts per land type")
        filled.append({LAND_NAMES[land]: {} for land in range(2)})
    for land in range(2):
        name = LAND_NAMES[land]
        pool = {}
        for k in range(NUM_ABILITIES):
            back = FIRST_ABILITY + k
            if not BACKS[land][back]:
                continue
            used = revealed.get(name, {}).get(BACK_NAMES[back], 0) if isinstance(revealed, dict) else 0
            mine = held[seat].get(name, {}).get(BACK_NAMES[back], 0) if isinstance(held[seat], dict) else 0
            pool[BACK_NAMES[back]] = BACKS[land][back] - (used if isinstance(used, int) else 0) - (
                mine if isinstance(mine, int) else 0)
        for p, entry in enumerate(held):
            if p == seat:
                continue
            count = entry.get(name)
            if not isinstance(count, int) or count < 0:
                raise InvalidObservation(f"held[{p}].{name}", "expected a count of Ability tiles")
            row = {b: 0 for b in pool}
            for _ in range(count):
                choice = next((b for b in pool if pool[b] > 0), None)
                if choice is None:
                    raise InvalidObservation(f"held[{p}].{name}", "more Ability tiles than remain unaccounted")
                pool[choice] -= 1
                row[choice] += 1
            filled[p][name] = row
    return filled


def tide_weights(str name="tide"):
    """The weights (``TideWeights``: base, raft_steps, eat, sink, capsize, removal, floor, raft_cost, points,
    horizon) of the evaluation ``name``, ``tide``, ``fitted``, ``horizon`` or ``bold``, as a dict."""
    cdef tuple names = ("tide", "fitted", "horizon", "bold")
    if name not in names:
        raise ValueError(f"tide_weights: {name!r} is not 'tide', 'fitted', 'horizon' or 'bold'")
    cdef dict values = tide_weights_of(names.index(name))
    return values


def tide_shares(SurviveState state, dict weights=None):
    """``tide``'s win shares for ``state`` (every seat's, summing to 1) with the weights named in ``weights`` in place
    of its own (``tide_weights()`` names them). For fitting the weights to game outcomes
    (``benchmarks/fit_tide.py``)."""
    cdef TideWeights w = tide_weights_of(0)
    cdef double out[MAX_SEATS]
    cdef dict values = w
    if weights:
        unknown = sorted(set(weights) - set(values))
        if unknown:
            raise ValueError(f"unknown tide weights {unknown}; they are {sorted(values)}")
        values.update(weights)
        w = values
    tide_estimate(state.buf, out, &w, 0.0)
    return [out[k] for k in range(state.num_players())]


def weigh_values(SurviveState state, dict table):
    """A copy of ``state`` whose ``determinize`` deals the other colours' treasure values by a seat's beliefs:
    ``table`` maps ``(colour, slot)`` (``value_slots``' public part) to five weights, one per value 1-5; each
    Adventurer in that slot takes that row (Adventurers sharing a slot share one). A colour none of whose slots is in
    the table keeps the uniform deal. Reads only public facts of ``state``: where each Adventurer stands."""
    cdef SurviveState copy = <SurviveState>state.clone()
    cdef Survive* s = copy.g()
    cdef int i, v
    memset(&s.value_weight[0][0], 0, sizeof(s.value_weight))
    s.value_weighted = 0
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        row = table.get((i // MEEPLES_PER_COLOUR, slot_key(&s.meeple[i])))
        if row is None:
            continue
        if len(row) != NUM_VALUE_KINDS:
            raise ValueError(f"table: a row has {NUM_VALUE_KINDS} weights (values 1-{NUM_VALUE_KINDS}), got {row!r}")
        for v in range(NUM_VALUE_KINDS):
            if not row[v] >= 0.0:
                raise ValueError(f"table: weights are numbers >= 0, got {row!r}")
            s.value_weight[i][v] = row[v]
        s.value_weighted |= 1 << (i // MEEPLES_PER_COLOUR)
    return copy


def value_slots(SurviveState state, colours):
    """``((colour, slot), value)`` for every Adventurer of ``colours``: its slot (status, cell, raft, swum, packed:
    what every seat sees of it) and its treasure value in this world."""
    cdef Survive* s = state.g()
    cdef int i
    wanted = set(colours)
    return [((i // MEEPLES_PER_COLOUR, slot_key(&s.meeple[i])), s.meeple[i].value)
            for i in range(s.num_colours * MEEPLES_PER_COLOUR) if i // MEEPLES_PER_COLOUR in wanted]


def swap_values(SurviveState world, int colour, int first, int second):
    """Swap the treasure values of two Adventurers of ``colour`` (indices 0-9 within the colour) in ``world``: a
    belief filter's move between worlds that show the same board."""
    cdef Survive* s = world.g()
    if not 0 <= colour < s.num_colours or not 0 <= first < MEEPLES_PER_COLOUR or not 0 <= second < MEEPLES_PER_COLOUR:
        raise ValueError(f"swap_values: colour 0..{s.num_colours - 1}, Adventurers 0..9, got {colour, first, second}")
    cdef int base = colour * MEEPLES_PER_COLOUR
    cdef uint8_t held = s.meeple[base + first].value
    s.meeple[base + first].value = s.meeple[base + second].value
    s.meeple[base + second].value = held
    if s.cont_kind == CONT_DOLPHIN:
        match_dolphin_value(s)


def transplant_values(SurviveState world, SurviveState source, colours):
    """Give ``world``'s Adventurers of ``colours`` the treasure values ``source``'s hold in the same slots (two
    worlds of one board: the same Adventurers stand in the same places); a belief filter's repair of a particle
    whose hidden Abilities could not have made a move, keeping the values it has learnt."""
    cdef Survive* s = world.g()
    cdef Survive* t = source.g()
    cdef int colour, k, base
    cdef int keys[MEEPLES_PER_COLOUR]
    cdef int order[MEEPLES_PER_COLOUR]
    cdef uint8_t values[MEEPLES_PER_COLOUR]
    cdef uint8_t unused[MEEPLES_PER_COLOUR]
    if s.num_colours != t.num_colours:
        raise ValueError("transplant_values: the worlds have different colours")
    for colour in colours:
        if not 0 <= colour < s.num_colours:
            raise ValueError(f"transplant_values: colour 0..{s.num_colours - 1}, got {colour}")
        base = colour * MEEPLES_PER_COLOUR
        for k in range(MEEPLES_PER_COLOUR):
            keys[k] = slot_key(&t.meeple[base + k])
            values[k] = t.meeple[base + k].value
        sort_entries(keys, values, MEEPLES_PER_COLOUR)
        for k in range(MEEPLES_PER_COLOUR):
            order[k] = slot_key(&s.meeple[base + k])
            unused[k] = k
        sort_entries(order, unused, MEEPLES_PER_COLOUR)
        for k in range(MEEPLES_PER_COLOUR):
            if order[k] != keys[k]:
                raise ValueError("transplant_values: the worlds' Adventurers stand in different places")
            s.meeple[base + unused[k]].value = values[k]
    if s.cont_kind == CONT_DOLPHIN:
        match_dolphin_value(s)


def follow_move(SurviveState world, int seat, int actor, int32_t observed, double beta, double u):
    """Play in ``world`` a move by ``actor`` (a seat or ``CHANCE``; 0 returned where another is to act there) that
    ``seat`` would observe as ``observed`` and return how likely it was there: for
    chance, the matching outcomes' total probability (one of them played in proportion to it); for ``seat``'s own
    move, 1 (itself); for another seat's, the total probability of its matching moves under a model of a player
    (a softmax at ``beta`` per unit of win share over its ``tide`` share one ply on), one of them played in
    proportion. ``u`` in [0, 1) picks the one played. 0 when nothing matches (the world is left as it was)."""
    cdef const GameVTable* vt = world.vt
    cdef int mover = vt.current_player(world.buf)
    cdef int n = max(vt.max_actions, vt.max_chance_outcomes), k, chosen = -1
    cdef int32_t* actions = <int32_t*>malloc(n * sizeof(int32_t))
    cdef double* probs = <double*>malloc(n * sizeof(double))
    cdef void* scratch = malloc(vt.state_size)
    cdef double out[MAX_SEATS]
    cdef double top = -1e300, total = 0.0, matching = 0.0, pick
    if actions == NULL or probs == NULL or scratch == NULL:
        free(actions)
        free(probs)
        free(scratch)
        raise MemoryError()
    try:
        if mover != actor or mover == TERMINAL_PLAYER:
            return 0.0
        if mover == CHANCE_PLAYER:
            n = vt.chance_outcomes(world.buf, actions, probs)
            total = 1.0
        else:
            n = vt.legal_actions(world.buf, actions)
            for k in range(n):
                if mover == seat:  # its own move: whichever matches what it saw
                    probs[k] = 1.0
                    continue
                clone_into(vt, scratch, world.buf)
                vt.apply(scratch, actions[k])
                s_tide_heuristic(scratch, out)
                probs[k] = beta * out[mover]
                top = max(top, probs[k])
            if mover != seat:
                for k in range(n):
                    probs[k] = exp(probs[k] - top)
                    total += probs[k]
            else:
                total = 1.0
        for k in range(n):
            if vt.observed_action(world.buf, actions[k], seat) != observed:
                probs[k] = 0.0
            matching += probs[k]
        if matching <= 0.0:
            return 0.0
        pick = u * matching
        for k in range(n):
            if probs[k] > 0.0:
                chosen = k
                if pick < probs[k]:
                    break
                pick -= probs[k]
        vt.apply(world.buf, actions[chosen])
        return matching / total
    finally:
        free(actions)
        free(probs)
        free(scratch)


def value_beliefs(SurviveState state, int seat, seed):
    """``GameInfo.belief_filter``: ``seat``'s beliefs about the other colours' treasure values from here on
    (``survive_beliefs.ValueBeliefs``)."""
    from engine_ext.survive_beliefs import ValueBeliefs

    return ValueBeliefs(state, seat, seed)


def belief_summary(worlds, int seat):
    """From sampled worlds: for each other colour's Adventurer on the board (by cell), the distribution of its
    treasure value; for each other seat, how often it holds each Ability type. Counted in C arrays over the worlds
    (part of every Suggest reply: about a tenth of a Python loop's time), then named once, places in the order they
    were first met."""
    cdef int value_counts[MAX_SEATS * NUM_CELLS * 2][NUM_VALUE_KINDS + 1]
    cdef int order[MAX_SEATS * NUM_CELLS * 2]
    cdef int held_counts[MAX_SEATS][2][NUM_ABILITIES]
    cdef Survive* s
    cdef int i, c, cell, place, seen = 0, players = 0, other, land, k, value
    memset(value_counts, 0, sizeof(value_counts))
    memset(held_counts, 0, sizeof(held_counts))
    n = len(worlds)
    for world in worlds:
        s = (<SurviveState>world).g()
        players = s.num_players
        for i in range(s.num_colours * MEEPLES_PER_COLOUR):
            if s.meeple[i].status != ST_BOARD:
                continue
            c = i // MEEPLES_PER_COLOUR
            if (c // 2 if players == 2 else c) == seat:
                continue
            value, cell = s.meeple[i].value, s.meeple[i].cell
            if not (0 <= value <= NUM_VALUE_KINDS and 0 <= cell < NUM_CELLS):
                raise ValueError(f"an Adventurer on the board at node {cell} with value {value} in a sampled world")
            place = (c * NUM_CELLS + cell) * 2 + (1 if s.meeple[i].aboard else 0)
            if not any_count(value_counts[place]):
                order[seen] = place
                seen += 1
            value_counts[place][value] += 1
        for other in range(players):
            if other != seat:
                for land in range(2):
                    for k in range(NUM_ABILITIES):
                        held_counts[other][land][k] += s.held[other][land][k]
    adventurers = {}
    for i in range(seen):
        place = order[i]
        total = 0
        for value in range(NUM_VALUE_KINDS + 1):
            total += value_counts[place][value]
        where = ("raft@" if place % 2 else "") + node_name(place // 2 % NUM_CELLS)
        adventurers.setdefault(COLOUR_NAMES[place // 2 // NUM_CELLS], {})[where] = {
            str(value): round(value_counts[place][value] / total, 4)
            for value in range(NUM_VALUE_KINDS + 1) if value_counts[place][value]
        }
    abilities = {}
    for other in range(players):
        if other == seat:
            continue
        row = {f"{LAND_NAMES[land]}:{BACK_NAMES[FIRST_ABILITY + k]}": round(held_counts[other][land][k] / n, 4)
               for land in range(2) for k in range(NUM_ABILITIES)
               if BACKS[land][FIRST_ABILITY + k] and held_counts[other][land][k]}
        if row:
            abilities[f"seat {other}"] = dict(sorted(row.items()))
    return {"treasure_values": adventurers, "abilities": abilities, "worlds": n}


cdef inline bint any_count(int* counts) noexcept:
    cdef int value
    for value in range(NUM_VALUE_KINDS + 1):
        if counts[value]:
            return True
    return False


def draw(dict obs):
    """The board as the observing seat sees it, drawn from its observation alone: the public board and status, and
    that seat's own score (others' scores stay hidden until the end)."""
    state = from_observation(obs)
    return "\n".join(state._board_lines() + [f"{state._status_line()} | your score {obs['score']}"])


GAME_INFOS = (
    GameInfo(
        name="survive",
        title="Survive The Island",
        description="Survive The Island (Asmodee 2024 rulebook) with the rulings of docs/rules/survive.md",
        min_players=2,
        max_players=MAX_SEATS,
        module=sys.modules[__name__],
        draw=draw,
        options=(
            GameOption("hourglass", str, "beach_forest",
                       "which tiles carry the hourglass: beach_forest (beach and forest) or beach (only beaches)",
                       choices=HOURGLASS_OPTIONS),
            GameOption("layout", str, None,
                       "the 40 island tiles as letters b/f/m (16 b, 16 f, 8 m) in island_slots order, for a frontend "
                       "that holds a real board; default: shuffled by the seed", required_length=NUM_SLOTS),
        ),
        belief_summary=belief_summary,
        belief_filter=value_beliefs,
        in_setup=SurviveState.in_setup,
        random_setup=True,
        benchmark_players=4,
        # The generic ladder (search.play.LEVELS: random, greedy, ISMCTS 300, 3,000, 30,000). At the current defaults
        # (tide, greedy set-up, scaled exploration) 300 iterations beat greedy (+215 Elo [135, 323], SPRT 0/30 H1 after
        # 40 pairs) and 3,000 beat 300 (+96 Elo [42, 155], H1 after 65 pairs), while 3,000 against the former level 3
        # (1,000) was undecided after 64 pairs (+5 Elo [-51, 62]): docs/benchmarks.md, "Strength levels". Chosen in the
        # arena (docs/experiments/survive.md, "Survive search defaults"): playouts cut at once and scored by the
        # heuristic, the root control variate, and UCB constant 0.02, which beat 0.2 at 1,000 iterations by +49 Elo [13,
        # 87] (SPRT 0/30 accepted after 124 pairs: atoll bench strength --game survive --players 2 --bot
        # c002=ismcts,iterations=1000,exploration=0.02 --bot c02=ismcts,iterations=1000 --lineup c002,c02 --deals 400
        # --sprt=0,30). The "danger" evaluation (treasure within a creature's reach discounted) beat "treasure" at equal
        # time by +132 Elo [68, 206] (SPRT 0/30 accepted after 47 pairs: atoll bench strength --game survive --players 2
        # --bot danger=ismcts,time_ms=30,heuristic=danger --bot treasure=ismcts,time_ms=30 --lineup danger,treasure
        # --deals 300 --sprt=0,30); it scores greedy's moves and the control variate too. A new child taken as the best
        # (by "danger" one ply on) of 4 untried moves drawn at random beat 1 (a random untried move) at equal time by
        # +42 Elo [10, 75] (SPRT 0/30 accepted after 178 pairs: atoll bench strength --game survive --players 2 --bot
        # cand4=ismcts,time_ms=30,candidates=4 --bot plain=ismcts,time_ms=30 --lineup cand4,plain --deals 300
        # --sprt=0,30); progressive widening (factor 2) lost by -110 Elo [-185, -45]. "escape" (danger, and a tile of
        # the thinnest type may go under its Adventurers) beat "danger" at equal time by +45 Elo [11, 79] (SPRT 0/30
        # accepted after 188 pairs: --bot escape=ismcts,time_ms=30,heuristic=escape --bot danger=ismcts,time_ms=30
        # --lineup escape,danger), and "rafts" (escape, a raft passenger's spaces counted 0.6) beat "escape" by +53 Elo
        # [15, 92] (SPRT 0/30 accepted after 148 pairs: --bot rafts=ismcts,time_ms=30,heuristic=rafts --bot
        # escape=ismcts,time_ms=30,heuristic=escape --lineup rafts,escape --deals 300 --sprt=0,30): "rafts" is the
        # default evaluation since. Progressive widening (factor 2: a node visited v times holds at most ceil(2 sqrt(v))
        # children), now with each new child the best of 4 candidates, beat no widening at equal time by +61 Elo [19,
        # 104] (SPRT 0/30 accepted after 110 pairs: --bot wide=ismcts,time_ms=30,widening=2 --bot old=ismcts,time_ms=30
        # --lineup wide,old --deals 300 --sprt=0,30 --workers 1, 2026-12-02). Each new child the best of 8 candidates
        # instead of 4 beat it by +55 Elo [16, 96] (SPRT 0/30 accepted after 118 pairs: --bot
        # c8=ismcts,time_ms=30,candidates=8 --bot c4=ismcts,time_ms=30 --lineup c8,c4 --deals 300 --sprt=0,30 --workers
        # 1, 2026-12-02); widening 1 and 3 both lost to 2 (H0). "tide" (rafts, and an Adventurer its seat lacks the
        # movements to rescue before the expected end of the game counts for less) beat "rafts" at equal time by +209
        # Elo [130, 313] (SPRT 0/30 accepted after 40 pairs: --bot tide=ismcts,time_ms=30,heuristic=tide --bot
        # rafts=ismcts,time_ms=30 --lineup tide,rafts --deals 300 --sprt=0,30 --workers 1, 2026-12-02): "tide" is the
        # default since. "tempo" ("tide" with each seat's place in the round, which takes "tide"'s error by phase from
        # +-0.06 to +-0.02) lost to it at 3,000 iterations each: -64 Elo [-119, -13], H0 after 49 pairs (--bot
        # tempo=ismcts,iterations=3000,heuristic=tempo --bot tide=ismcts,iterations=3000 --lineup tempo,tide --deals 300
        # --sprt=0,30, 2026-12-03; docs/experiments/survive.md, "Survive: the evaluation's error by the point of the
        # round"). Set-up placements by greedy (one ply of "tide" over sampled worlds, on the search's budget) instead
        # of the search beat the search at equal time by +84 Elo [33, 139] (SPRT 0/30 accepted after 61 pairs: --bot
        # sg=ismcts,time_ms=30,setup_algorithm=greedy --bot same=ismcts,time_ms=30 --lineup sg,same --deals 300
        # --sprt=0,30 --workers 1, 2026-12-02). Scaled exploration (UCB constant 2 in units of the spread of the acting
        # seat's rewards at the node) instead of the constant 0.02: with four seats, one ISMCTS seat at 3,000 iterations
        # against three greedy seats won 0.456 [0.401, 0.511] of the deal groups' shares against 0.379 [0.321, 0.437]
        # (paired over 50 deals: +0.077 [0.007, 0.147]; --players 4 --bot
        # s2=ismcts,iterations=3000,scaled_exploration=true,exploration=2 --bot greedy=greedy --lineup
        # s2,greedy,greedy,greedy --deals 50), level with PIMC; with two seats it plays the same at equal time (+11 Elo
        # [-19, 41] after 174 pairs: --bot s2=ismcts,time_ms=30, scaled_exploration=true,exploration=2 --bot
        # c02=ismcts,time_ms=30 --lineup s2,c02 --sprt=0,30, 2026-12-02), and at 3,000 iterations each +29 Elo [-11, 68]
        # after 122 pairs (undecided, stopped). The constant 0.02 was tuned with two seats; more seats add noise to each
        # reward (three seats' hidden values, more chance between decisions), and a constant that does not grow with it
        # commits on too few samples. Implicit minimax backups (weight 0.4: selection ranks a child by 0.6 of its mean
        # and 0.4 of its best line through its mover's own next decisions) beat none at 3,000 iterations each (the same
        # cost an iteration): +73 Elo [27, 122], SPRT 0/30 accepted after 75 pairs (2026-12-04, commit cbfdbe8: --bot
        # mm=ismcts,iterations=3000,minimax=0.4 --bot one=ismcts,iterations=3000 --lineup mm,one --deals 400
        # --sprt=0,30; docs/experiments/survive.md, "Survive: implicit minimax backups with tide"). Before "tide" it was
        # +20 Elo [-14, 54] after 169 pairs, undecided. Weight 0.7 beat 0.4 by +52 Elo [14, 90], SPRT 0/30 accepted
        # after 119 pairs, the same cost an iteration (2026-12-04, commit 714ae47: --bot
        # mm7=ismcts,iterations=3000,minimax=0.7 --bot mm4=ismcts,iterations=3000 --lineup mm7,mm4 --deals 300
        # --sprt=0,30): 0.7 is the default since; 1.0 (the best line only) lost to 0.7 by -37 Elo [-82, 8], H0 after 90
        # pairs. Measured with two seats. Strength levels: the generic ladder (search.play.LEVELS: random, greedy, 300,
        # 3,000, 30,000 iterations), each beating the one below by SPRT 0/30 on duplicate pairs at these defaults
        # (2026-12-04, commit 8803a98; docs/benchmarks.md, "Strength levels"): 300 iterations beat greedy by +185 Elo
        # [112, 277] (H1 after 40 pairs), 3,000 beat 300 by +141 [74, 220] (H1 after 48), 30,000 beat 3,000 by +113 [56,
        # 176] (H1 after 43; before minimax backups it was -14 [-72, 44] after 51 pairs and the ladder stopped at
        # 3,000); greedy beats random in every pair.
        search_defaults=SearchDefaults(
            exploration=2.0,
            scaled_exploration=True,
            playout_depth=0,
            light_playouts=True,
            baseline=True,
            heuristic="tide",
            candidates=8,
            widening=2.0,
            minimax=0.7,
            setup_algorithm="greedy",
            # What the other colours' moves say of their treasure values (engine_ext/survive_beliefs.py): +58 Elo [18,
            # 100] with two seats, SPRT H1 after 108 pairs (docs/experiments/survive.md, "Survive: the clairvoyant bot's
            # lead is the treasure values").
            by_players={2: {"beliefs": True}},
            # Four seats, 30,000 iterations and more (level 5): ``refine``. A screen of 3,000 iterations at these
            # defaults ranks the root's moves; the rest of the budget searches the best three again with each leaf
            # scored at the start of the seat's next turn, after the rivals' replies played on by the light policy. At
            # equal time (26,000 iterations with it against 30,000 without; 452 against 499 ms of CPU a decision) one
            # such seat beat three at the defaults by +51 Elo [13, 86], +0.41 points a game [0.10, 0.73], SPRT H1 after
            # 83 deal groups (docs/experiments/survive.md, "`refine` adopted at level 5 with four seats", commit
            # f89fc4e; the record: benchmarks/records/). Scoring every leaf that way (no screen) had beaten 3,000 but
            # was not stronger than 30,000 at equal time (+6 Elo [-28, 37] at its 120-group bound, commit 301b2c1).
            by_budget=(
                BudgetDefaults(
                    iterations=30_000,
                    players=4,
                    settings={"refine": 3, "playout_to": "own_turn", "playout_candidates": 1},
                ),
            ),
        ),
        heuristics=(
            "treasure", "danger", "escape", "rafts", "hunt", "swim", "tide", "calm", "tempo", "fitted", "horizon",
            "bold",
        ),
        # ``hunting``: the rivals a playout plays on strike (a Shark or Sea Serpent where it takes most from the other
        # seats, Rising Waters under them); for ``playout_to=own_turn``. Not a default: with four seats at equal time
        # (21,000 iterations with own_turn, one candidate and hunting against the defaults' 30,000) it lost, -40 Elo
        # [-89, 2], SPRT H0 after 85 deal groups (docs/experiments/survive.md, commit b4538d4; benchmarks/records/).
        playout_policies=("light", "hunting"),
    ),
)
