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
  movements), Rising Waters (remove a tile of the thinnest type, 2 tiles once no hourglass tile remains, then a chance
  reveal of its back: Effects apply at once, Abilities go face down to the player), Creatures (a chance die roll, then
  the active player moves one creature of that kind if any move is legal).
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

Information (``observation(seat)``): the board, all pieces, every seat's ability counts per land type and all face-up
tiles are public; a seat sees its own treasure values and its own Ability types. ``determinize`` deals every other
colour's values as a random permutation of its multiset and other seats' Abilities from the unaccounted Ability backs
of their land types; backs still on the board are chance at reveal, drawn from that land type's remaining backs.
"""

import json
import random as _random
import re
from importlib import resources

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.math cimport exp, pow
from libc.string cimport memcpy, memset

from engine_ext.core cimport (
    CHANCE_PLAYER,
    TERMINAL_PLAYER,
    GameVTable,
    Rng,
    State,
    rng_below,
)

from engine_ext.core import IllegalAction, InvalidObservation

cdef enum:
    NUM_CELLS = 143             # board cells that are not Rescue Islands
    NUM_NODES = 147             # plus the four Rescue Islands, one node each
    FIRST_RESCUE = 143
    NO_NODE = 255
    MAX_NEIGHBOURS = 7
    NUM_SLOTS = 40
    MAX_SEATS = 5
    MEEPLES_PER_COLOUR = 10
    MAX_MEEPLES = 50
    NUM_RAFTS = 12
    RAFT_CAPACITY = 3
    MAX_ACTIONS = 4096
    MAX_MOVES = 3

    # terrain of a cell
    WATER = 0
    BEACH = 1
    FOREST = 2
    MOUNTAIN = 3
    VOLCANO = 4

    # creatures
    SERPENT = 0
    SHARK = 1
    KAIJU = 2
    SUMMON_RAFT = 3

    # tile backs
    BK_SHARK = 0
    BK_KAIJU = 1
    BK_RAFT = 2
    BK_WHIRLPOOL = 3
    BK_VOLCANO = 4
    BK_PADDLES = 5
    BK_DOLPHIN = 6
    BK_DIVE = 7
    BK_DIE = 8
    BK_REPELLENT = 9
    NUM_BACKS = 10
    FIRST_ABILITY = 5
    NUM_ABILITIES = 5
    HIDDEN_ABILITY = 15

    # adventurer status
    ST_UNPLACED = 0
    ST_BOARD = 1
    ST_RESCUED = 2
    ST_DEAD = 3

    # phases (PH_RISING_NEXT and PH_END_TURN are transient: settle() always moves on from them)
    PH_SETUP_ADV = 0
    PH_SETUP_RAFT = 1
    PH_ACTION = 2
    PH_RISING = 3
    PH_REVEAL = 4
    PH_SUMMON = 5
    PH_RISING_NEXT = 6
    PH_ROLL = 7
    PH_CREATURE = 8
    PH_DIE_ROLL = 9
    PH_DIE_MOVE = 10
    PH_END_TURN = 11
    PH_OVER = 12

    # what the node asks for, on top of the phase
    D_PHASE = 0
    D_BOARD = 1
    D_REACT = 2
    D_KAIJU = 3
    D_CONTINUE = 4
    D_TERMINAL = 5

    CONT_NONE = 0
    CONT_PADDLES = 1
    CONT_DOLPHIN = 2

    # action kinds (bits 26..30 of an action id)
    K_PLACE_ADV = 0
    K_PLACE_RAFT = 1
    K_MOVE_ADV = 2
    K_MOVE_RAFT = 3
    K_END = 4
    K_REMOVE_TILE = 5
    K_MOVE_CREATURE = 6
    K_SUMMON = 7
    K_PADDLES = 8
    K_DOLPHIN = 9
    K_DIVE = 10
    K_DIE = 11
    K_REPEL = 12
    K_DECLINE = 13
    K_CONTINUE = 14
    K_STOP = 15
    K_PUSH = 16
    K_DISPLACE = 17
    K_BOARD = 18
    K_REVEAL = 24
    K_ROLL = 25


# ---------------------------------------------------------------------------------------------------------------------
# Board geometry, filled once from data/survive_board.json when the module loads.
# ---------------------------------------------------------------------------------------------------------------------
cdef int8_t NODE_Q[NUM_NODES]
cdef int8_t NODE_R[NUM_NODES]
cdef uint8_t NEIGHBOURS[NUM_NODES][MAX_NEIGHBOURS]
cdef uint8_t NUM_NEIGHBOURS[NUM_NODES]
cdef uint8_t SLOT_CELL[NUM_SLOTS]      # island_slots order (the ``layout`` option)
cdef uint8_t SLOTS_ASCENDING[NUM_SLOTS]
cdef uint8_t IS_SLOT[NUM_CELLS]
cdef uint8_t SERPENT_START[5]
cdef uint8_t RESCUE_DISTANCE[NUM_NODES]      # steps to the nearest Rescue Island, ignoring what stands between

# Tile backs per land type (rulebook, "Tile Descriptions"); rows beach, forest, mountain.
cdef uint8_t BACKS[3][NUM_BACKS]
BACKS[0][:] = [3, 3, 1, 0, 0, 2, 3, 0, 2, 2]
BACKS[1][:] = [3, 2, 3, 2, 0, 0, 1, 2, 2, 1]
BACKS[2][:] = [0, 0, 0, 4, 4, 0, 0, 0, 0, 0]
cdef uint8_t SUPPLY[3]
SUPPLY[:] = [5, 6, 2]
cdef uint8_t VALUES[MEEPLES_PER_COLOUR]
VALUES[:] = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]

RESCUE_NAMES = ("NW", "NE", "SW", "SE")
COLOUR_NAMES = ("red", "blue", "green", "yellow", "purple")
CREATURE_NAMES = ("serpent", "shark", "kaiju")
LAND_NAMES = ("beach", "forest", "mountain")
BACK_NAMES = ("shark", "kaiju", "raft", "whirlpool", "volcano", "paddles", "dolphin", "dive", "die", "repellent")
TERRAIN_LETTERS = "~bfmV"
PHASE_NAMES = ("setup_adventurers", "setup_rafts", "action", "rising_waters", "reveal", "summon", "rising_next",
               "creature_roll", "creature_move", "die_roll", "die_move", "end_turn", "over")


def _load_board():
    data = json.loads(resources.files("engine_ext").joinpath("data/survive_board.json").read_text())
    rescue_cells = {tuple(c) for cells in data["rescue_islands"].values() for c in cells}
    cells = sorted((tuple(c) for c in data["board_cells"] if tuple(c) not in rescue_cells), key=lambda c: (c[1], c[0]))
    assert len(cells) == NUM_CELLS, "board data: expected 143 cells outside the Rescue Islands"
    index = {c: i for i, c in enumerate(cells)}
    for i, (q, r) in enumerate(cells):
        NODE_Q[i] = q
        NODE_R[i] = r
    neighbours = {i: [] for i in range(NUM_NODES)}
    for i, (q, r) in enumerate(cells):
        for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)):
            j = index.get((q + dq, r + dr))
            if j is not None:
                neighbours[i].append(j)
    for k, name in enumerate(RESCUE_NAMES):
        node = FIRST_RESCUE + k
        NODE_Q[node] = 0
        NODE_R[node] = 0
        for c in data["landing_spaces"][name]:
            neighbours[node].append(index[tuple(c)])
            neighbours[index[tuple(c)]].append(node)
    for node, ns in neighbours.items():
        ns.sort()                       # ascending, so moves come out in action-id order
        NUM_NEIGHBOURS[node] = len(ns)
        for k, n in enumerate(ns):
            NEIGHBOURS[node][k] = n
    for i in range(NUM_CELLS):
        IS_SLOT[i] = 0
    for k, c in enumerate(data["island_slots"]):
        SLOT_CELL[k] = index[tuple(c)]
        IS_SLOT[index[tuple(c)]] = 1
    for k, c in enumerate(sorted(index[tuple(c)] for c in data["island_slots"])):
        SLOTS_ASCENDING[k] = c
    for k, c in enumerate(data["serpent_starts"]):
        SERPENT_START[k] = index[tuple(c)]
    distance = {FIRST_RESCUE + k: 0 for k in range(4)}
    frontier = list(distance)
    while frontier:
        node = frontier.pop(0)
        for n in neighbours[node]:
            if n not in distance:
                distance[n] = distance[node] + 1
                frontier.append(n)
    for node in range(NUM_NODES):
        RESCUE_DISTANCE[node] = distance[node]
    return cells, index, data


CELLS, CELL_INDEX, BOARD_DATA = _load_board()


# ---------------------------------------------------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------------------------------------------------
cdef struct Meeple:
    uint8_t status
    uint8_t cell             # board cell, or Rescue Island node once rescued
    uint8_t aboard           # on the raft at its cell
    uint8_t swum             # has swum this turn
    uint8_t value


cdef struct Survive:
    int8_t num_players
    int8_t num_colours
    int8_t hourglass_beach_only
    int8_t phase
    int8_t decision          # cached by settle(): what the node asks for
    int8_t to_move           # cached by settle(): seat, CHANCE_PLAYER or TERMINAL_PLAYER
    int8_t active            # seat whose turn it is (during set-up: the seat placing)
    int8_t moves_left
    int8_t rising_left
    int8_t volcanoes
    int8_t die_type          # creature kind rolled, for PH_CREATURE and PH_DIE_MOVE
    uint8_t effect_cell      # the cell whose tile was removed in Rising Waters
    int8_t effect_land
    int8_t summon_type
    int8_t react_type        # creature whose interaction awaits reactions, -1 when none
    uint8_t react_cell
    uint8_t react_asked      # bit per seat that declined for this interaction
    uint8_t board_cell       # D_BOARD: where the active player picks who boards
    int8_t kaiju_depth       # Kaijus resolving their cells (a displaced Kaiju can start a second)
    uint8_t kaiju_cell[2]
    int8_t cont_kind         # a Paddles or Dolphin second step may follow
    uint8_t cont_cell
    uint8_t cont_colour
    uint8_t cont_value       # the Dolphin swimmer's value: private to the active seat
    uint8_t cont_swum
    uint8_t setup_count
    int16_t turn
    int16_t on_board
    uint64_t raft_bits[3]                # cells holding a raft, as a bitset (the loops visit only these)
    uint64_t creature_bits[3]            # cells holding any creature
    uint8_t terrain[NUM_CELLS]
    uint8_t raft[NUM_CELLS]
    uint8_t creatures[NUM_CELLS][4]      # serpent, shark, kaiju, padding (one 32-bit load tests "any")
    uint8_t adv_at[NUM_CELLS]
    uint8_t aboard_at[NUM_CELLS]
    Meeple meeple[MAX_MEEPLES]
    uint8_t held[MAX_SEATS][2][NUM_ABILITIES]   # Ability tiles held: seat, land (beach, forest), ability
    uint8_t revealed[3][NUM_BACKS]               # face-up backs: Effects revealed and Abilities used


# ---------------------------------------------------------------------------------------------------------------------
# Action ids: kind(5) sub(3) colour(3) value(3) flag(1) from(8) to(8), most significant first.
# ---------------------------------------------------------------------------------------------------------------------
cdef inline int32_t act(int kind, int sub, int colour, int value, int flag, int frm, int to) noexcept nogil:
    return (kind << 26) | (sub << 23) | (colour << 20) | (value << 17) | (flag << 16) | (frm << 8) | to


cdef inline int a_kind(int32_t a) noexcept nogil:
    return a >> 26


cdef inline int a_sub(int32_t a) noexcept nogil:
    return (a >> 23) & 7


cdef inline int a_colour(int32_t a) noexcept nogil:
    return (a >> 20) & 7


cdef inline int a_value(int32_t a) noexcept nogil:
    return (a >> 17) & 7


cdef inline int a_flag(int32_t a) noexcept nogil:
    return (a >> 16) & 1


cdef inline int a_from(int32_t a) noexcept nogil:
    return (a >> 8) & 255


cdef inline int a_to(int32_t a) noexcept nogil:
    return a & 255


# ---------------------------------------------------------------------------------------------------------------------
# Small queries
# ---------------------------------------------------------------------------------------------------------------------
cdef inline int seat_of_colour(const Survive* s, int colour) noexcept nogil:
    """With 2 players each seat plays two colours that score as one (set-up, 2-player games)."""
    return colour // 2 if s.num_players == 2 else colour


cdef inline int first_colour(const Survive* s, int seat) noexcept nogil:
    return 2 * seat if s.num_players == 2 else seat


cdef inline int colours_per_seat(const Survive* s) noexcept nogil:
    return 2 if s.num_players == 2 else 1


cdef inline bint is_land(const Survive* s, int c) noexcept nogil:
    return BEACH <= s.terrain[c] <= MOUNTAIN


cdef inline bint is_water(const Survive* s, int c) noexcept nogil:
    return s.terrain[c] == WATER


cdef inline int swimmers(const Survive* s, int c) noexcept nogil:
    """A Swimmer is an Adventurer on a Water space, not on a Raft."""
    return s.adv_at[c] - s.aboard_at[c] if s.terrain[c] == WATER else 0


cdef inline int room(const Survive* s, int c) noexcept nogil:
    return RAFT_CAPACITY - s.aboard_at[c] if s.raft[c] else 0


cdef inline bint has_kaiju(const Survive* s, int c) noexcept nogil:
    return s.creatures[c][KAIJU] > 0


cdef inline bint any_creature(const Survive* s, int c) noexcept nogil:
    cdef uint32_t word
    memcpy(&word, s.creatures[c], 4)
    return word != 0


cdef extern from *:
    int ctz64 "__builtin_ctzll"(unsigned long long) nogil


cdef inline void set_bit(uint64_t* bits, int c, bint on) noexcept nogil:
    if on:
        bits[c >> 6] |= (<uint64_t>1) << (c & 63)
    else:
        bits[c >> 6] &= ~((<uint64_t>1) << (c & 63))


cdef inline int next_bit(const uint64_t* bits, int after) noexcept nogil:
    """The first set bit above ``after`` (-1 to start), or -1: iterate with ``c = next_bit(bits, c)``."""
    cdef int c = after + 1
    cdef int w = c >> 6
    cdef uint64_t word
    if w >= 3:
        return -1
    word = bits[w] & (~(<uint64_t>0) << (c & 63))
    while True:
        if word:
            return (w << 6) + ctz64(word)
        w += 1
        if w >= 3:
            return -1
        word = bits[w]


cdef inline void set_raft(Survive* s, int c, bint on) noexcept nogil:
    s.raft[c] = on
    set_bit(s.raft_bits, c, on)


cdef inline void add_creature(Survive* s, int c, int kind, int delta) noexcept nogil:
    s.creatures[c][kind] += delta
    set_bit(s.creature_bits, c, any_creature(s, c))


cdef inline int creatures_at(const Survive* s, int c) noexcept nogil:
    return s.creatures[c][SERPENT] + s.creatures[c][SHARK] + s.creatures[c][KAIJU]


cdef inline bint cell_is_empty(const Survive* s, int c) noexcept nogil:
    return s.adv_at[c] == 0 and not s.raft[c] and creatures_at(s, c) == 0


cdef inline int on_board_count(const Survive* s, int kind) noexcept nogil:
    cdef int n = 0
    cdef int c
    cdef const uint64_t* bits = &s.creature_bits[0]
    if kind == SUMMON_RAFT:
        bits = &s.raft_bits[0]
    c = next_bit(bits, -1)
    while c >= 0:
        n += 1 if kind == SUMMON_RAFT else s.creatures[c][kind]
        c = next_bit(bits, c)
    return n


cdef inline int held_total(const Survive* s, int seat) noexcept nogil:
    cdef int land, k, n = 0
    for land in range(2):
        for k in range(NUM_ABILITIES):
            n += s.held[seat][land][k]
    return n


cdef inline int backs_left(const Survive* s, int land, int back) noexcept nogil:
    """Face-down backs of ``land`` still on the board: the table minus everything face up or held."""
    cdef int n = BACKS[land][back] - s.revealed[land][back]
    cdef int seat
    if back >= FIRST_ABILITY and land < 2:
        for seat in range(s.num_players):
            n -= s.held[seat][land][back - FIRST_ABILITY]
    return n


cdef inline bint seat_has_meeples_on_board(const Survive* s, int seat) noexcept nogil:
    cdef int i
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int hi = lo + colours_per_seat(s) * MEEPLES_PER_COLOUR
    for i in range(lo, hi):
        if s.meeple[i].status == ST_BOARD:
            return True
    return False


cdef int find_meeple(const Survive* s, int colour, int value, int swum, int aboard, int cell) noexcept nogil:
    """The meeple an action names: given colour at ``cell``; value 0 = any (the highest-index match)."""
    cdef int i
    cdef const Meeple* m
    for i in range((colour + 1) * MEEPLES_PER_COLOUR - 1, colour * MEEPLES_PER_COLOUR - 1, -1):
        m = &s.meeple[i]
        if (m.status == ST_BOARD and m.cell == cell and m.swum == swum and m.aboard == aboard
                and (value == 0 or m.value == value)):
            return i
    return -1


# ---------------------------------------------------------------------------------------------------------------------
# Moving pieces (bookkeeping of the per-cell counts lives here only)
# ---------------------------------------------------------------------------------------------------------------------
cdef void lift(Survive* s, int i) noexcept nogil:
    cdef Meeple* m = &s.meeple[i]
    s.adv_at[m.cell] -= 1
    if m.aboard:
        s.aboard_at[m.cell] -= 1
        m.aboard = 0


cdef void drop(Survive* s, int i, int node) noexcept nogil:
    """Put meeple ``i`` (already lifted) on ``node``; a Rescue Island saves it."""
    cdef Meeple* m = &s.meeple[i]
    m.cell = node
    m.aboard = 0
    if node >= FIRST_RESCUE:
        m.status = ST_RESCUED
        m.swum = 0
        s.on_board -= 1
    else:
        s.adv_at[node] += 1


cdef void eliminate(Survive* s, int i) noexcept nogil:
    lift(s, i)
    s.meeple[i].status = ST_DEAD
    s.meeple[i].cell = 0
    s.meeple[i].swum = 0
    s.on_board -= 1


cdef void eliminate_all_at(Survive* s, int c) noexcept nogil:
    cdef int i
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        if s.meeple[i].status == ST_BOARD and s.meeple[i].cell == c:
            eliminate(s, i)


cdef void eliminate_swimmers_at(Survive* s, int c) noexcept nogil:
    cdef int i
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        if s.meeple[i].status == ST_BOARD and s.meeple[i].cell == c and not s.meeple[i].aboard:
            eliminate(s, i)


cdef void sink_raft(Survive* s, int c) noexcept nogil:
    """The raft at ``c`` returns to the supply; its passengers become swimmers there."""
    cdef int i
    set_raft(s, c, False)
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        if s.meeple[i].status == ST_BOARD and s.meeple[i].cell == c:
            s.meeple[i].aboard = 0
    s.aboard_at[c] = 0


cdef void move_raft(Survive* s, int frm, int to) noexcept nogil:
    """A Raft's passengers move with it."""
    cdef int i
    set_raft(s, frm, False)
    set_raft(s, to, True)
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        if s.meeple[i].status == ST_BOARD and s.meeple[i].cell == frm and s.meeple[i].aboard:
            s.meeple[i].cell = to
    s.adv_at[to] += s.aboard_at[frm]
    s.adv_at[frm] -= s.aboard_at[frm]
    s.aboard_at[to] = s.aboard_at[frm]
    s.aboard_at[frm] = 0


cdef void clear_cell(Survive* s, int c, bint rafts) noexcept nogil:
    """Whirlpool / Volcano: Adventurers are eliminated, creatures (and rafts) go back to the supply."""
    eliminate_all_at(s, c)
    s.creatures[c][SERPENT] = 0
    s.creatures[c][SHARK] = 0
    s.creatures[c][KAIJU] = 0
    set_bit(s.creature_bits, c, False)
    if rafts:
        set_raft(s, c, False)
        s.aboard_at[c] = 0


# ---------------------------------------------------------------------------------------------------------------------
# Creature movement (Creatures: Movements and Interactions)
# ---------------------------------------------------------------------------------------------------------------------
cdef inline bint creature_may_enter(const Survive* s, int kind, int c, int forbidden) noexcept nogil:
    if c >= FIRST_RESCUE or c == forbidden:
        return False
    if kind == KAIJU:
        return s.terrain[c] != VOLCANO          # water and/or land, a Kaiju may enter a Kaiju's cell
    return s.terrain[c] == WATER and not has_kaiju(s, c)


cdef inline bint creature_stops_at(const Survive* s, int kind, int c) noexcept nogil:
    """A creature ends its movement as soon as it enters a space with elements it interacts with."""
    if kind == SERPENT:
        return s.adv_at[c] > 0 or s.raft[c]
    if kind == SHARK:
        return swimmers(s, c) > 0
    return s.adv_at[c] > 0 or s.raft[c] or creatures_at(s, c) > 0


cdef int creature_destinations(const Survive* s, int kind, int frm, int forbidden, uint8_t* out) noexcept nogil:
    """Cells a creature of ``kind`` at ``frm`` can reach: Serpent 1 water space, Shark 1-2, Kaiju 1-2 over land or
    water. A 2-space move passes only through a cell it does not stop at, so the path does not matter."""
    cdef int n = 0
    cdef int k, j, a, b
    for k in range(NUM_NEIGHBOURS[frm]):
        a = NEIGHBOURS[frm][k]
        if not creature_may_enter(s, kind, a, forbidden):
            continue
        if not listed(out, n, a):
            out[n] = a
            n += 1
        if kind == SERPENT or creature_stops_at(s, kind, a):
            continue
        for j in range(NUM_NEIGHBOURS[a]):
            b = NEIGHBOURS[a][j]
            if b == frm or not creature_may_enter(s, kind, b, forbidden) or listed(out, n, b):
                continue
            out[n] = b
            n += 1
    return n


cdef inline bint listed(const uint8_t* cells, int n, int c) noexcept nogil:
    cdef int k
    for k in range(n):
        if cells[k] == c:
            return True
    return False


# ---------------------------------------------------------------------------------------------------------------------
# settle(): run everything automatic after an action, until a decision or chance node
# ---------------------------------------------------------------------------------------------------------------------
cdef int boarding_cell(const Survive* s) noexcept nogil:
    """An Adventurer on the same space as a Raft with room is placed aboard at once."""
    cdef int c = next_bit(s.raft_bits, -1)
    while c >= 0:
        if s.aboard_at[c] < RAFT_CAPACITY and swimmers(s, c) > 0:
            return c
        c = next_bit(s.raft_bits, c)
    return -1


cdef void board_all(Survive* s, int c) noexcept nogil:
    cdef int i
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        if s.meeple[i].status == ST_BOARD and s.meeple[i].cell == c and not s.meeple[i].aboard:
            s.meeple[i].aboard = 1
            s.aboard_at[c] += 1


cdef inline bint kaiju_resolving(const Survive* s, int c) noexcept nogil:
    cdef int k
    for k in range(s.kaiju_depth):
        if s.kaiju_cell[k] == c:
            return True
    return False


cdef bint find_interaction(const Survive* s, int* kind, int* cell) noexcept nogil:
    """A creature sharing a cell with elements it interacts with (outside cells a Kaiju is resolving)."""
    cdef int c = -1
    while True:
        c = next_bit(s.creature_bits, c)
        if c < 0:
            return False
        if kaiju_resolving(s, c):
            continue
        if s.creatures[c][KAIJU] and (s.adv_at[c] > 0 or s.raft[c] or creatures_at(s, c) > 1):
            kind[0] = KAIJU
        elif s.creatures[c][SERPENT] and (s.adv_at[c] > 0 or s.raft[c]):
            kind[0] = SERPENT
        elif s.creatures[c][SHARK] and swimmers(s, c) > 0:
            kind[0] = SHARK
        else:
            continue
        cell[0] = c
        return True


cdef bint seat_concerned(const Survive* s, int seat, int kind, int c) noexcept nogil:
    """Does the creature threaten one of this seat's Adventurers (a Shark: its swimmers; a Kaiju: any)?"""
    cdef int i
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int hi = lo + colours_per_seat(s) * MEEPLES_PER_COLOUR
    for i in range(lo, hi):
        if s.meeple[i].status == ST_BOARD and s.meeple[i].cell == c:
            if kind == KAIJU or (not s.meeple[i].aboard and s.terrain[c] == WATER):
                return True
    return False


cdef int next_reactor(const Survive* s) noexcept nogil:
    """Seats decide in seat order from the active player; only seats holding an Ability tile are asked."""
    cdef int k, seat
    for k in range(s.num_players):
        seat = (s.active + k) % s.num_players
        if s.react_asked & (1 << seat):
            continue
        if held_total(s, seat) > 0 and seat_concerned(s, seat, s.react_type, s.react_cell):
            return seat
    return -1


cdef bint continuation_possible(const Survive* s) noexcept nogil:
    cdef int i
    if s.cont_kind == CONT_PADDLES:
        return s.raft[s.cont_cell] != 0
    i = find_meeple(s, s.cont_colour, s.cont_value, s.cont_swum, 0, s.cont_cell)
    return i >= 0 and s.terrain[s.cont_cell] == WATER


cdef bint no_tiles_left(const Survive* s) noexcept nogil:
    cdef int c
    for c in range(NUM_CELLS):
        if is_land(s, c):
            return False
    return True


cdef bint hourglass_left(const Survive* s) noexcept nogil:
    cdef int c
    for c in range(NUM_CELLS):
        if s.terrain[c] == BEACH or (s.terrain[c] == FOREST and not s.hourglass_beach_only):
            return True
    return False


cdef bint creature_can_move(const Survive* s, int kind) noexcept nogil:
    cdef uint8_t dest[64]
    cdef int c = next_bit(s.creature_bits, -1)
    while c >= 0:
        if s.creatures[c][kind] and creature_destinations(s, kind, c, NO_NODE, dest) > 0:
            return True
        c = next_bit(s.creature_bits, c)
    return False


cdef bint summon_possible(const Survive* s) noexcept nogil:
    cdef int32_t options[NUM_RAFTS + 6]
    return gen_summons(s, options) > 0


cdef int gen_summons(const Survive* s, int32_t* out) noexcept nogil:
    """Effect with every piece of its kind on the board: move one (an empty Raft, for rafts) onto the revealed
    space."""
    cdef int n = 0
    cdef bint raft = s.summon_type == SUMMON_RAFT
    cdef const uint64_t* bits = &s.creature_bits[0]
    cdef int c
    if raft:
        bits = &s.raft_bits[0]
    c = next_bit(bits, -1)
    while c >= 0:
        if c != s.effect_cell and ((raft and s.aboard_at[c] == 0) or (not raft and s.creatures[c][s.summon_type])):
            out[n] = act(K_SUMMON, s.summon_type, 0, 0, 0, c, s.effect_cell)
            n += 1
        c = next_bit(bits, c)
    return n


cdef void end_turn(Survive* s) noexcept nogil:
    cdef int i
    s.active = (s.active + 1) % s.num_players
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        s.meeple[i].swum = 0
    s.moves_left = MAX_MOVES if seat_has_meeples_on_board(s, s.active) else 0
    s.turn += 1
    s.phase = PH_ACTION


cdef void settle(Survive* s) noexcept nogil:
    """Resolve everything nobody chooses, then cache who decides next and what (decision, to_move)."""
    cdef int kind, cell, seat
    while True:
        if s.phase == PH_OVER or (s.phase >= PH_ACTION and s.on_board == 0):
            # End of the Game: no Adventurers left to be rescued, or the 3rd volcano (phase set by the reveal).
            s.phase = PH_OVER
            s.decision = D_TERMINAL
            s.to_move = TERMINAL_PLAYER
            return
        cell = boarding_cell(s)
        if cell >= 0:
            if swimmers(s, cell) <= room(s, cell):
                board_all(s, cell)
                continue
            # FAQ: more Adventurers than spots aboard: the active player decides who gets onto the Raft.
            s.decision = D_BOARD
            s.board_cell = cell
            s.to_move = s.active
            return
        if find_interaction(s, &kind, &cell):
            if kind == SERPENT:
                # Sea Serpent: eliminates Rafts and all Adventurers.
                eliminate_all_at(s, cell)
                set_raft(s, cell, False)
                s.aboard_at[cell] = 0
                continue
            if s.react_type != kind or s.react_cell != cell:
                s.react_type = kind
                s.react_cell = cell
                s.react_asked = 0
            seat = next_reactor(s)
            if seat >= 0:
                s.decision = D_REACT
                s.to_move = seat
                return
            s.react_type = -1
            s.react_asked = 0
            if kind == SHARK:
                eliminate_swimmers_at(s, cell)        # Shark: eliminates Swimmers
            else:
                if s.raft[cell]:
                    sink_raft(s, cell)                # Kaiju: eliminates Rafts ...
                s.kaiju_cell[s.kaiju_depth] = cell    # ... then pushes and displaces, as the active player chooses
                s.kaiju_depth += 1
            continue
        if s.kaiju_depth > 0:
            cell = s.kaiju_cell[s.kaiju_depth - 1]
            if not has_kaiju(s, cell) or (s.adv_at[cell] == 0 and creatures_at(s, cell) == 1):
                s.kaiju_depth -= 1
                continue
            s.decision = D_KAIJU
            s.to_move = s.active
            return
        if s.cont_kind != CONT_NONE:
            if continuation_possible(s):
                s.decision = D_CONTINUE
                s.to_move = s.active
                return
            s.cont_kind = CONT_NONE
        s.decision = D_PHASE
        if s.phase == PH_END_TURN:
            end_turn(s)
            continue
        if s.phase == PH_RISING_NEXT:
            s.phase = PH_RISING if s.rising_left > 0 and not no_tiles_left(s) else PH_ROLL
            continue
        if s.phase == PH_CREATURE and not creature_can_move(s, s.die_type):
            s.phase = PH_END_TURN
            continue
        if s.phase == PH_DIE_MOVE and not creature_can_move(s, s.die_type):
            s.phase = PH_ACTION
            continue
        if s.phase == PH_RISING and no_tiles_left(s):
            s.phase = PH_ROLL
            continue
        if s.phase == PH_SUMMON and not summon_possible(s):
            s.phase = PH_RISING_NEXT
            continue
        if s.phase == PH_REVEAL or s.phase == PH_ROLL or s.phase == PH_DIE_ROLL:
            s.to_move = CHANCE_PLAYER
        else:
            s.to_move = s.active
        return


# ---------------------------------------------------------------------------------------------------------------------
# Legal actions
# ---------------------------------------------------------------------------------------------------------------------
cdef int sort_unique(int32_t* out, int n) noexcept nogil:
    """Ascending, without repeats. The generators emit nearly in id order, so insertion sort is close to linear."""
    cdef int i, j, k = 0
    cdef int32_t x
    if n == 0:
        return 0
    for i in range(1, n):
        x = out[i]
        j = i - 1
        while j >= 0 and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x
    for i in range(1, n):
        if out[i] != out[k]:
            k += 1
            out[k] = out[i]
    return k + 1


cdef int gen_setup_adventurers(const Survive* s, int32_t* out) noexcept nogil:
    cdef int n = 0
    cdef int colour, i, k, c, crowd = 0
    cdef uint8_t has_value[6]
    # 5-player games: once all 40 tiles are occupied, place on tiles that contain only one other meeple.
    for k in range(NUM_SLOTS):
        if s.adv_at[SLOT_CELL[k]] == 0:
            break
    else:
        crowd = 1
    for colour in range(first_colour(s, s.active), first_colour(s, s.active) + colours_per_seat(s)):
        memset(has_value, 0, 6)
        for i in range(colour * MEEPLES_PER_COLOUR, (colour + 1) * MEEPLES_PER_COLOUR):
            if s.meeple[i].status == ST_UNPLACED:
                has_value[s.meeple[i].value] = 1
        for k in range(1, 6):
            if not has_value[k]:
                continue
            for i in range(NUM_SLOTS):
                c = SLOTS_ASCENDING[i]
                if s.adv_at[c] == crowd:
                    out[n] = act(K_PLACE_ADV, 0, colour, k, 0, NO_NODE, c)
                    n += 1
    return n


cdef int gen_setup_rafts(const Survive* s, int32_t* out) noexcept nogil:
    cdef int n = 0
    cdef int c, k
    for c in range(NUM_CELLS):
        if not is_water(s, c) or not cell_is_empty(s, c):
            continue
        for k in range(NUM_NEIGHBOURS[c]):
            if NEIGHBOURS[c][k] < FIRST_RESCUE and is_land(s, NEIGHBOURS[c][k]):
                out[n] = act(K_PLACE_RAFT, 0, 0, 0, 0, NO_NODE, c)
                n += 1
                break
    return n


cdef int gen_adventurer_moves(const Survive* s, int i, int32_t* out) noexcept nogil:
    """Movements of meeple ``i``: on foot between tiles, rafts and Rescue Islands; swimming (start or end in water)
    once per turn."""
    cdef const Meeple* m = &s.meeple[i]
    cdef int c = m.cell
    cdef int n = 0
    cdef int k, t
    cdef bint swimmer = not m.aboard and s.terrain[c] == WATER
    cdef bint swim
    for k in range(NUM_NEIGHBOURS[c]):
        t = NEIGHBOURS[c][k]
        if t < FIRST_RESCUE:
            if s.terrain[t] == VOLCANO or has_kaiju(s, t):
                continue
            swim = swimmer or (s.terrain[t] == WATER and room(s, t) == 0)
        else:
            swim = swimmer
        if swim and m.swum:
            continue
        out[n] = act(K_MOVE_ADV, m.aboard, i // MEEPLES_PER_COLOUR, m.value, m.swum, c, t)
        n += 1
    return n


cdef int gen_raft_steps(const Survive* s, int kind, int sub, int c, int32_t* out) noexcept nogil:
    """A Raft moves to an adjacent Water space with no Raft (never into a Kaiju's cell)."""
    cdef int n = 0
    cdef int k, t
    for k in range(NUM_NEIGHBOURS[c]):
        t = NEIGHBOURS[c][k]
        if t < FIRST_RESCUE and s.terrain[t] == WATER and not s.raft[t] and not has_kaiju(s, t):
            out[n] = act(kind, sub, 0, 0, 0, c, t)
            n += 1
    return n


cdef int gen_dolphin_steps(const Survive* s, int kind, int sub, int colour, int value, int swum, int c,
                           int32_t* out) noexcept nogil:
    """Dolphin: a Swimmer moves through water; only the last step may leave it, onto a tile, raft or Rescue Island."""
    cdef int n = 0
    cdef int k, t
    for k in range(NUM_NEIGHBOURS[c]):
        t = NEIGHBOURS[c][k]
        if t < FIRST_RESCUE and (s.terrain[t] == VOLCANO or has_kaiju(s, t)):
            continue
        out[n] = act(kind, sub, colour, value, swum, c, t)
        n += 1
    return n


cdef int gen_creature_moves(const Survive* s, int kind, int32_t* out) noexcept nogil:
    cdef int n = 0
    cdef int k, m
    cdef uint8_t dest[64]
    cdef int c = next_bit(s.creature_bits, -1)
    while c >= 0:
        if s.creatures[c][kind]:
            m = creature_destinations(s, kind, c, NO_NODE, dest)
            for k in range(m):
                out[n] = act(K_MOVE_CREATURE, kind, 0, 0, 0, c, dest[k])
                n += 1
        c = next_bit(s.creature_bits, c)
    return n


cdef int own_meeples_by_key(const Survive* s, int seat, int* order) noexcept nogil:
    """The seat's Adventurers on the board, ordered as their action ids order them (aboard, colour, value, swum,
    cell); returns how many."""
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int hi = lo + colours_per_seat(s) * MEEPLES_PER_COLOUR
    cdef int keys[2 * MEEPLES_PER_COLOUR]
    cdef int n = 0
    cdef int i, j, key
    cdef const Meeple* m
    for i in range(lo, hi):
        m = &s.meeple[i]
        if m.status != ST_BOARD:
            continue
        key = (m.aboard << 20) | ((i // MEEPLES_PER_COLOUR) << 16) | (m.value << 12) | (m.swum << 8) | m.cell
        j = n - 1
        while j >= 0 and keys[j] > key:
            keys[j + 1] = keys[j]
            order[j + 1] = order[j]
            j -= 1
        keys[j + 1] = key
        order[j + 1] = i
        n += 1
    return n


cdef void raft_control(const Survive* s, int seat, uint8_t* controlled) noexcept nogil:
    """``controlled[c]`` for every cell: a Raft there that ``seat`` may move (empty, or at least as many of its
    Adventurers aboard as any opponent's)."""
    cdef int cells[NUM_RAFTS]
    cdef int counts[NUM_RAFTS][MAX_SEATS]
    cdef int rafts = 0
    cdef int c, i, k, p
    cdef const Meeple* m
    memcpy(controlled, s.raft, NUM_CELLS)
    c = next_bit(s.raft_bits, -1)
    while c >= 0:
        if s.aboard_at[c]:
            cells[rafts] = c
            for p in range(MAX_SEATS):
                counts[rafts][p] = 0
            rafts += 1
        c = next_bit(s.raft_bits, c)
    if rafts == 0:
        return
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        if m.status == ST_BOARD and m.aboard:
            for k in range(rafts):
                if cells[k] == m.cell:
                    counts[k][seat_of_colour(s, i // MEEPLES_PER_COLOUR)] += 1
                    break
    for k in range(rafts):
        for p in range(s.num_players):
            if counts[k][p] > counts[k][seat]:
                controlled[cells[k]] = 0


cdef int gen_action_phase(const Survive* s, int32_t* out) noexcept nogil:
    """Every Action-phase option, emitted in ascending id order (kinds 2, 3, 4, 8..12) so sorting is nearly free."""
    cdef int n = 0
    cdef int seat = s.active
    cdef int order[2 * MEEPLES_PER_COLOUR]
    cdef uint8_t controlled[NUM_CELLS]
    cdef int mine = own_meeples_by_key(s, seat, order)
    cdef int i, k, c, land, kind
    cdef const Meeple* m
    cdef const Meeple* prev
    raft_control(s, seat, controlled)
    if s.moves_left > 0:
        for k in range(mine):
            m = &s.meeple[order[k]]
            if k > 0:
                prev = &s.meeple[order[k - 1]]
                if (prev.aboard == m.aboard and prev.value == m.value and prev.swum == m.swum and prev.cell == m.cell
                        and order[k - 1] // MEEPLES_PER_COLOUR == order[k] // MEEPLES_PER_COLOUR):
                    continue                          # an identical meeple: the same moves
            n += gen_adventurer_moves(s, order[k], out + n)
        c = next_bit(s.raft_bits, -1)
        while c >= 0:
            if controlled[c]:
                n += gen_raft_steps(s, K_MOVE_RAFT, 0, c, out + n)
            c = next_bit(s.raft_bits, c)
    out[n] = act(K_END, 0, 0, 0, 0, 0, 0)
    n += 1
    if s.held[seat][0][BK_PADDLES - FIRST_ABILITY]:
        c = next_bit(s.raft_bits, -1)
        while c >= 0:
            if controlled[c]:
                n += gen_raft_steps(s, K_PADDLES, 0, c, out + n)
            c = next_bit(s.raft_bits, c)
    for land in range(2):
        if s.held[seat][land][BK_DOLPHIN - FIRST_ABILITY]:
            for k in range(mine):
                m = &s.meeple[order[k]]
                if not m.aboard and s.terrain[m.cell] == WATER:
                    n += gen_dolphin_steps(s, K_DOLPHIN, land, order[k] // MEEPLES_PER_COLOUR, m.value, m.swum,
                                           m.cell, out + n)
    if s.held[seat][1][BK_DIVE - FIRST_ABILITY]:
        # Dive: move any Creature on the board to any empty Water space.
        for kind in range(3):
            for c in range(NUM_CELLS):
                if not s.creatures[c][kind]:
                    continue
                for i in range(NUM_CELLS):
                    if i != c and s.terrain[i] == WATER and cell_is_empty(s, i):
                        out[n] = act(K_DIVE, kind, 0, 0, 0, c, i)
                        n += 1
    for land in range(2):
        if s.held[seat][land][BK_DIE - FIRST_ABILITY]:
            out[n] = act(K_DIE, land, 0, 0, 0, 0, 0)
            n += 1
    for land in range(2):
        if s.held[seat][land][BK_REPELLENT - FIRST_ABILITY]:
            # Repellent in one's own Action phase: an own Adventurer shares the space with a Shark or a Kaiju.
            for kind in range(SHARK, KAIJU + 1):
                for c in range(NUM_CELLS):
                    if s.creatures[c][kind] and seat_concerned(s, seat, KAIJU, c):
                        out[n] = act(K_REPEL, land, 0, kind, 0, c, 0)
                        n += 1
    return n


cdef int gen_kaiju_resolution(const Survive* s, int32_t* out) noexcept nogil:
    """The Kaiju pushes each Adventurer onto an adjacent space and displaces each other creature by its own rules."""
    cdef int c = s.kaiju_cell[s.kaiju_depth - 1]
    cdef int n = 0
    cdef int i, k, t, kind, m, before, colour, value
    cdef uint8_t dest[64]
    cdef const Meeple* mp
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        mp = &s.meeple[i]
        if mp.status != ST_BOARD or mp.cell != c:
            continue
        colour = i // MEEPLES_PER_COLOUR
        value = mp.value if seat_of_colour(s, colour) == s.active else 0
        before = n
        for k in range(NUM_NEIGHBOURS[c]):
            t = NEIGHBOURS[c][k]
            if t >= FIRST_RESCUE or s.terrain[t] == VOLCANO or has_kaiju(s, t):
                continue
            out[n] = act(K_PUSH, 0, colour, value, mp.swum, c, t)
            n += 1
        if n == before:
            out[n] = act(K_PUSH, 0, colour, value, mp.swum, c, NO_NODE)
            n += 1
    for kind in range(3):
        # The resolving Kaiju stays; a second Kaiju in the cell is the one to displace.
        if s.creatures[c][kind] == 0 or (kind == KAIJU and s.creatures[c][KAIJU] < 2):
            continue
        m = creature_destinations(s, kind, c, c, dest)
        for k in range(m):
            out[n] = act(K_DISPLACE, kind, 0, 0, 0, c, dest[k])
            n += 1
        if m == 0:
            out[n] = act(K_DISPLACE, kind, 0, 0, 0, c, NO_NODE)
            n += 1
    return n


cdef int gen_boarding(const Survive* s, int32_t* out) noexcept nogil:
    cdef int c = s.board_cell
    cdef int n = 0
    cdef int i, colour
    cdef const Meeple* m
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        if m.status == ST_BOARD and m.cell == c and not m.aboard:
            colour = i // MEEPLES_PER_COLOUR
            out[n] = act(K_BOARD, 0, colour, m.value if seat_of_colour(s, colour) == s.active else 0, m.swum, c,
                         NO_NODE)
            n += 1
    return n


cdef int gen_reaction(const Survive* s, int32_t* out) noexcept nogil:
    cdef int n = 0
    cdef int land
    for land in range(2):
        if s.held[s.to_move][land][BK_REPELLENT - FIRST_ABILITY]:
            out[n] = act(K_REPEL, land, 0, s.react_type, 0, s.react_cell, 0)
            n += 1
    out[n] = act(K_DECLINE, 0, 0, 0, 0, 0, 0)
    return n + 1


cdef int gen_continuation(const Survive* s, int32_t* out) noexcept nogil:
    cdef int n
    if s.cont_kind == CONT_PADDLES:
        n = gen_raft_steps(s, K_CONTINUE, 0, s.cont_cell, out)
    else:
        n = gen_dolphin_steps(s, K_CONTINUE, 0, 0, 0, 0, s.cont_cell, out)
    out[n] = act(K_STOP, 0, 0, 0, 0, 0, 0)
    return n + 1


cdef int s_legal_actions(const void* p, int32_t* out) noexcept nogil:
    cdef const Survive* s = <const Survive*>p
    cdef int n = 0
    cdef int c, land
    if s.to_move < 0:
        return 0
    if s.decision == D_BOARD:
        n = gen_boarding(s, out)
    elif s.decision == D_REACT:
        n = gen_reaction(s, out)
    elif s.decision == D_KAIJU:
        n = gen_kaiju_resolution(s, out)
    elif s.decision == D_CONTINUE:
        n = gen_continuation(s, out)
    elif s.phase == PH_SETUP_ADV:
        n = gen_setup_adventurers(s, out)
    elif s.phase == PH_SETUP_RAFT:
        n = gen_setup_rafts(s, out)
    elif s.phase == PH_ACTION:
        n = gen_action_phase(s, out)
    elif s.phase == PH_RISING:
        # Rising Waters: take any Island tile among the thinnest tiles remaining on the board.
        for land in range(BEACH, MOUNTAIN + 1):
            for c in range(NUM_CELLS):
                if s.terrain[c] == land:
                    out[n] = act(K_REMOVE_TILE, land - BEACH, 0, 0, 0, c, 0)
                    n += 1
            if n:
                break
    elif s.phase == PH_CREATURE or s.phase == PH_DIE_MOVE:
        n = gen_creature_moves(s, s.die_type, out)
    elif s.phase == PH_SUMMON:
        n = gen_summons(s, out)
    return sort_unique(out, n)


# ---------------------------------------------------------------------------------------------------------------------
# Chance
# ---------------------------------------------------------------------------------------------------------------------
cdef int s_chance_outcomes(const void* p, int32_t* actions, double* probs) noexcept nogil:
    cdef const Survive* s = <const Survive*>p
    cdef int n = 0
    cdef int back, left, total = 0
    if s.phase == PH_REVEAL:
        for back in range(NUM_BACKS):
            total += backs_left(s, s.effect_land, back)
        for back in range(NUM_BACKS):
            left = backs_left(s, s.effect_land, back)
            if left > 0:
                actions[n] = act(K_REVEAL, s.effect_land, 0, 0, 0, 0, back)
                probs[n] = <double>left / total
                n += 1
        return n
    for back in range(3):
        actions[back] = act(K_ROLL, back, 0, 0, 0, 0, 0)
        probs[back] = 1.0 / 3.0         # creature die: 2 faces each (docs/rules/survive.md)
    return 3


cdef int32_t s_sample_chance(const void* p, Rng* rng) noexcept nogil:
    cdef const Survive* s = <const Survive*>p
    cdef int back, left, total = 0
    cdef int pick
    if s.phase != PH_REVEAL:
        return act(K_ROLL, rng_below(rng, 3), 0, 0, 0, 0, 0)
    for back in range(NUM_BACKS):
        total += backs_left(s, s.effect_land, back)
    pick = rng_below(rng, total)
    for back in range(NUM_BACKS):
        left = backs_left(s, s.effect_land, back)
        if pick < left:
            return act(K_REVEAL, s.effect_land, 0, 0, 0, 0, back)
        pick -= left
    return -1


# ---------------------------------------------------------------------------------------------------------------------
# Applying actions (unchecked: the action is legal)
# ---------------------------------------------------------------------------------------------------------------------
cdef void creature_arrives(Survive* s, int kind, int frm, int to) noexcept nogil:
    if frm != NO_NODE:
        add_creature(s, frm, kind, -1)
    if to != NO_NODE:
        add_creature(s, to, kind, 1)


cdef void apply_effect(Survive* s, int back) noexcept nogil:
    """Tiles with Effects, applied at once on the revealed space."""
    cdef int c = s.effect_cell
    cdef int k, t, kind
    s.revealed[s.effect_land][back] += 1
    if back == BK_SHARK or back == BK_KAIJU:
        kind = SHARK if back == BK_SHARK else KAIJU
        if kind == SHARK and has_kaiju(s, c):
            return                                   # FAQ: only a Kaiju can come into play on a Kaiju's space
        if on_board_count(s, kind) < SUPPLY[kind]:
            add_creature(s, c, kind, 1)
        elif not (kind == KAIJU and has_kaiju(s, c)):
            s.summon_type = kind                     # all on the board: move one onto this space
            s.phase = PH_SUMMON
    elif back == BK_RAFT:
        if has_kaiju(s, c):
            return
        if on_board_count(s, SUMMON_RAFT) < NUM_RAFTS:
            set_raft(s, c, True)
        else:
            s.summon_type = SUMMON_RAFT              # FAQ: supply depleted, move an empty Raft here
            s.phase = PH_SUMMON
    elif back == BK_WHIRLPOOL:
        clear_cell(s, c, True)
        for k in range(NUM_NEIGHBOURS[c]):
            t = NEIGHBOURS[c][k]
            if t < FIRST_RESCUE and s.terrain[t] == WATER:
                clear_cell(s, t, True)
    elif back == BK_VOLCANO:
        clear_cell(s, c, False)
        s.terrain[c] = VOLCANO
        s.volcanoes += 1
        if s.volcanoes >= 3:
            s.phase = PH_OVER                        # the game ends as soon as 3 Volcanoes are revealed


cdef void s_apply(void* p, int32_t a) noexcept nogil:
    cdef Survive* s = <Survive*>p
    cdef int kind = a_kind(a)
    cdef int sub = a_sub(a)
    cdef int frm = a_from(a)
    cdef int to = a_to(a)
    cdef int i, seat = s.to_move
    cdef bint swim
    if kind == K_PLACE_ADV:
        i = find_meeple_unplaced(s, a_colour(a), a_value(a))
        s.meeple[i].status = ST_BOARD
        s.on_board += 1
        drop(s, i, to)
        s.setup_count += 1
        if s.setup_count == s.num_colours * MEEPLES_PER_COLOUR:
            s.phase = PH_SETUP_RAFT
            s.setup_count = 0
        s.active = s.setup_count % s.num_players
    elif kind == K_PLACE_RAFT:
        set_raft(s, to, True)
        s.setup_count += 1
        s.active = s.setup_count % s.num_players
        if s.setup_count == s.num_players * (4 if s.num_players == 2 else 2):
            s.active = s.num_players - 1
            s.turn = 0
            end_turn(s)                              # seat 0 starts
    elif kind == K_MOVE_ADV:
        i = find_meeple(s, a_colour(a), a_value(a), a_flag(a), sub, frm)
        swim = (not s.meeple[i].aboard and s.terrain[frm] == WATER) or (
            to < FIRST_RESCUE and s.terrain[to] == WATER and room(s, to) == 0)
        lift(s, i)
        drop(s, i, to)
        if swim:
            s.meeple[i].swum = 1
        s.moves_left -= 1
    elif kind == K_MOVE_RAFT:
        move_raft(s, frm, to)
        s.moves_left -= 1
    elif kind == K_END:
        s.rising_left = 1 if hourglass_left(s) else 2
        s.phase = PH_RISING
    elif kind == K_REMOVE_TILE:
        # Adventurers or Creatures on the tile stay on the Water space just revealed.
        s.effect_cell = frm
        s.effect_land = s.terrain[frm] - BEACH
        s.terrain[frm] = WATER
        s.rising_left -= 1
        s.phase = PH_REVEAL
    elif kind == K_REVEAL:
        s.phase = PH_RISING_NEXT
        if to >= FIRST_ABILITY:
            s.held[s.active][sub][to - FIRST_ABILITY] += 1
        else:
            apply_effect(s, to)
    elif kind == K_ROLL:
        s.die_type = sub
        s.phase = PH_CREATURE if s.phase == PH_ROLL else PH_DIE_MOVE
    elif kind == K_MOVE_CREATURE:
        creature_arrives(s, sub, frm, to)
        s.phase = PH_END_TURN if s.phase == PH_CREATURE else PH_ACTION
    elif kind == K_SUMMON:
        if sub == SUMMON_RAFT:
            move_raft(s, frm, to)
        else:
            creature_arrives(s, sub, frm, to)
        s.phase = PH_RISING_NEXT
    elif kind == K_PADDLES:
        use_ability(s, seat, 0, BK_PADDLES)
        move_raft(s, frm, to)
        s.cont_kind = CONT_PADDLES
        s.cont_cell = to
    elif kind == K_DOLPHIN:
        use_ability(s, seat, sub, BK_DOLPHIN)
        i = find_meeple(s, a_colour(a), a_value(a), a_flag(a), 0, frm)
        dolphin_step(s, i, to)
    elif kind == K_CONTINUE:
        if s.cont_kind == CONT_PADDLES:
            s.cont_kind = CONT_NONE
            move_raft(s, frm, to)
        else:
            s.cont_kind = CONT_NONE
            i = find_meeple(s, s.cont_colour, s.cont_value, s.cont_swum, 0, frm)
            lift(s, i)
            drop(s, i, to)
    elif kind == K_STOP:
        s.cont_kind = CONT_NONE
    elif kind == K_DIVE:
        use_ability(s, seat, 1, BK_DIVE)
        creature_arrives(s, sub, frm, to)
    elif kind == K_DIE:
        use_ability(s, seat, sub, BK_DIE)
        s.phase = PH_DIE_ROLL
    elif kind == K_REPEL:
        use_ability(s, seat, sub, BK_REPELLENT)
        creature_arrives(s, a_value(a), frm, NO_NODE)
        s.react_type = -1
        s.react_asked = 0
    elif kind == K_DECLINE:
        s.react_asked |= 1 << seat
    elif kind == K_PUSH:
        i = find_meeple(s, a_colour(a), a_value(a), a_flag(a), 0, frm)
        if to == NO_NODE:
            eliminate(s, i)
        else:
            lift(s, i)
            drop(s, i, to)
    elif kind == K_DISPLACE:
        creature_arrives(s, sub, frm, to)
    elif kind == K_BOARD:
        i = find_meeple(s, a_colour(a), a_value(a), a_flag(a), 0, frm)
        s.meeple[i].aboard = 1
        s.aboard_at[frm] += 1
    settle(s)


cdef int find_meeple_unplaced(const Survive* s, int colour, int value) noexcept nogil:
    cdef int i
    for i in range(colour * MEEPLES_PER_COLOUR, (colour + 1) * MEEPLES_PER_COLOUR):
        if s.meeple[i].status == ST_UNPLACED and s.meeple[i].value == value:
            return i
    return -1


cdef void use_ability(Survive* s, int seat, int land, int back) noexcept nogil:
    """Abilities are discarded face up to apply their effect."""
    s.held[seat][land][back - FIRST_ABILITY] -= 1
    s.revealed[land][back] += 1


cdef void dolphin_step(Survive* s, int i, int to) noexcept nogil:
    """One Dolphin step; a second may follow while the swimmer is still in the water (not on a tile or raft)."""
    cdef Meeple* m = &s.meeple[i]
    lift(s, i)
    drop(s, i, to)
    if to < FIRST_RESCUE and s.terrain[to] == WATER and room(s, to) == 0:
        s.cont_kind = CONT_DOLPHIN
        s.cont_cell = to
        s.cont_colour = i // MEEPLES_PER_COLOUR
        s.cont_value = m.value
        s.cont_swum = m.swum


# ---------------------------------------------------------------------------------------------------------------------
# Returns, scores, information
# ---------------------------------------------------------------------------------------------------------------------
cdef int s_num_players(const void* p) noexcept nogil:
    return (<const Survive*>p).num_players


cdef int s_current_player(const void* p) noexcept nogil:
    return (<const Survive*>p).to_move


cdef void s_scores(const void* p, int32_t* out) noexcept nogil:
    """Score = the sum of the rescued treasure values (both colours of a 2-player seat)."""
    cdef const Survive* s = <const Survive*>p
    cdef int i
    for i in range(s.num_players):
        out[i] = 0
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        if s.meeple[i].status == ST_RESCUED:
            out[seat_of_colour(s, i // MEEPLES_PER_COLOUR)] += s.meeple[i].value


cdef void s_returns(const void* p, double* out) noexcept nogil:
    """The player with the most treasure points wins; tied players share the victory."""
    cdef const Survive* s = <const Survive*>p
    cdef int32_t sc[MAX_SEATS]
    cdef int i, best = -1, winners = 0
    for i in range(s.num_players):
        out[i] = 0.0
    if s.phase != PH_OVER:
        return
    s_scores(p, sc)
    for i in range(s.num_players):
        if sc[i] > best:
            best = sc[i]
            winners = 1
        elif sc[i] == best:
            winners += 1
    for i in range(s.num_players):
        if sc[i] == best:
            out[i] = 1.0 / winners


cdef inline int slot_key(const Meeple* m) noexcept nogil:
    return (m.status << 24) | (m.cell << 16) | (m.aboard << 8) | m.swum


cdef void sort_entries(int* keys, uint8_t* values, int n) noexcept nogil:
    """Insertion sort of (key, value) pairs by key then value (10 entries)."""
    cdef int i, j, k
    cdef uint8_t v
    for i in range(1, n):
        k = keys[i]
        v = values[i]
        j = i - 1
        while j >= 0 and (keys[j] > k or (keys[j] == k and values[j] > v)):
            keys[j + 1] = keys[j]
            values[j + 1] = values[j]
            j -= 1
        keys[j + 1] = k
        values[j + 1] = v


cdef void s_determinize(void* p, int seat, Rng* rng) noexcept nogil:
    """Rebuild every colour's meeples from their public slots in canonical order (values: the seat's own as known,
    others' a random permutation of the colour's multiset), shuffle storage order, and deal other seats' held
    Abilities from the unaccounted backs of their land types. Reads nothing hidden from ``seat``."""
    cdef Survive* s = <Survive*>p
    cdef int colour, i, j, k, base, other, land, ability, count, pick, total, _tile
    cdef bint own
    cdef int keys[MEEPLES_PER_COLOUR]
    cdef uint8_t values[MEEPLES_PER_COLOUR]
    cdef uint8_t tmp
    cdef int pool[NUM_ABILITIES]
    cdef Meeple rebuilt[MEEPLES_PER_COLOUR]
    cdef Meeple swap
    for colour in range(s.num_colours):
        base = colour * MEEPLES_PER_COLOUR
        own = seat_of_colour(s, colour) == seat
        for k in range(MEEPLES_PER_COLOUR):
            keys[k] = slot_key(&s.meeple[base + k])
            values[k] = s.meeple[base + k].value if own else 0
        sort_entries(keys, values, MEEPLES_PER_COLOUR)
        if not own:
            for k in range(MEEPLES_PER_COLOUR):
                values[k] = VALUES[k]
            for k in range(MEEPLES_PER_COLOUR - 1, 0, -1):
                j = rng_below(rng, k + 1)
                tmp = values[k]
                values[k] = values[j]
                values[j] = tmp
        for k in range(MEEPLES_PER_COLOUR):
            rebuilt[k].status = (keys[k] >> 24) & 255
            rebuilt[k].cell = (keys[k] >> 16) & 255
            rebuilt[k].aboard = (keys[k] >> 8) & 255
            rebuilt[k].swum = keys[k] & 255
            rebuilt[k].value = values[k]
        for k in range(MEEPLES_PER_COLOUR - 1, 0, -1):
            j = rng_below(rng, k + 1)
            swap = rebuilt[k]
            rebuilt[k] = rebuilt[j]
            rebuilt[j] = swap
        for k in range(MEEPLES_PER_COLOUR):
            s.meeple[base + k] = rebuilt[k]
    if s.cont_kind == CONT_DOLPHIN and seat != s.active:
        # The Dolphin swimmer's value is the active seat's secret: take a matching swimmer of the sampled world.
        for i in range(s.num_colours * MEEPLES_PER_COLOUR):
            if (i // MEEPLES_PER_COLOUR == s.cont_colour and s.meeple[i].status == ST_BOARD
                    and s.meeple[i].cell == s.cont_cell and not s.meeple[i].aboard
                    and s.meeple[i].swum == s.cont_swum):
                s.cont_value = s.meeple[i].value
                break
    for land in range(2):
        total = 0
        for ability in range(NUM_ABILITIES):
            pool[ability] = BACKS[land][FIRST_ABILITY + ability] - s.revealed[land][FIRST_ABILITY + ability] \
                - s.held[seat][land][ability]
            total += pool[ability]
        for other in range(s.num_players):
            if other == seat:
                continue
            count = 0
            for ability in range(NUM_ABILITIES):
                count += s.held[other][land][ability]
                s.held[other][land][ability] = 0
            for _tile in range(count):
                pick = rng_below(rng, total)
                for ability in range(NUM_ABILITIES):
                    if pick < pool[ability]:
                        break
                    pick -= pool[ability]
                pool[ability] -= 1
                total -= 1
                s.held[other][land][ability] += 1


cdef int32_t s_observed_action(const void* p, int32_t a, int seat) noexcept nogil:
    """Treasure values are seen only by their owner; an Ability drawn is seen only by the player who drew it."""
    cdef const Survive* s = <const Survive*>p
    cdef int kind = a_kind(a)
    cdef int colour, i
    if kind == K_REVEAL:
        if a_to(a) >= FIRST_ABILITY and seat != s.active:
            return act(K_REVEAL, a_sub(a), 0, 0, 0, 0, HIDDEN_ABILITY)
        return a
    if kind in (K_PLACE_ADV, K_MOVE_ADV, K_DOLPHIN, K_PUSH, K_BOARD):
        colour = a_colour(a)
        if seat >= 0 and seat_of_colour(s, colour) == seat:
            if a_value(a) == 0 and kind != K_PLACE_ADV:
                i = find_meeple(s, colour, 0, a_flag(a), 0, a_from(a))
                if i >= 0:
                    return a | (s.meeple[i].value << 17)
            return a
        return a & ~(7 << 17)
    return a


cdef void s_utility_bounds(const void* p, double* lowest, double* highest) noexcept nogil:
    lowest[0] = 0.0
    highest[0] = 1.0


cdef void s_heuristic(const void* p, double* out) noexcept nogil:
    """Win shares estimated from treasure: rescued values count in full, an Adventurer on the board counts its value
    discounted by 0.85 per space between it and the nearest Rescue Island; a softmax (4 points per e) turns the
    estimates into shares summing to 1."""
    cdef const Survive* s = <const Survive*>p
    cdef double estimate[MAX_SEATS]
    cdef double total = 0.0, best = -1.0
    cdef int i, seat
    cdef const Meeple* m
    if s.phase == PH_OVER:
        s_returns(p, out)
        return
    for seat in range(s.num_players):
        estimate[seat] = 0.0
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        seat = seat_of_colour(s, i // MEEPLES_PER_COLOUR)
        if m.status == ST_RESCUED:
            estimate[seat] += m.value
        elif m.status == ST_BOARD:
            estimate[seat] += m.value * pow(0.85, RESCUE_DISTANCE[m.cell])
    for seat in range(s.num_players):
        if estimate[seat] > best:
            best = estimate[seat]
    for seat in range(s.num_players):
        out[seat] = exp((estimate[seat] - best) / 4.0)
        total += out[seat]
    for seat in range(s.num_players):
        out[seat] /= total


cdef int32_t s_playout_action(const void* p, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """Light playout policy: a uniformly drawn Adventurer move that does not bring it closer to a Rescue Island is
    redrawn once, so playouts walk Adventurers home more often than uniform play does."""
    cdef int32_t a = legal[rng_below(rng, n)]
    if a_kind(a) == K_MOVE_ADV and RESCUE_DISTANCE[a_to(a)] >= RESCUE_DISTANCE[a_from(a)]:
        a = legal[rng_below(rng, n)]
    return a


cdef GameVTable SURVIVE_TABLE
SURVIVE_TABLE.name = b"survive"
SURVIVE_TABLE.state_size = sizeof(Survive)
SURVIVE_TABLE.max_players = MAX_SEATS
SURVIVE_TABLE.max_actions = MAX_ACTIONS
SURVIVE_TABLE.max_chance_outcomes = NUM_BACKS
SURVIVE_TABLE.num_players = s_num_players
SURVIVE_TABLE.current_player = s_current_player
SURVIVE_TABLE.legal_actions = s_legal_actions
SURVIVE_TABLE.chance_outcomes = s_chance_outcomes
SURVIVE_TABLE.apply = s_apply
SURVIVE_TABLE.sample_chance = s_sample_chance
SURVIVE_TABLE.returns = s_returns
SURVIVE_TABLE.scores = s_scores
SURVIVE_TABLE.determinize = s_determinize
SURVIVE_TABLE.observed_action = s_observed_action
SURVIVE_TABLE.utility_bounds = s_utility_bounds
SURVIVE_TABLE.heuristic = s_heuristic
SURVIVE_TABLE.playout_action = s_playout_action


# ---------------------------------------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------------------------------------
HOURGLASS_OPTIONS = ("beach_forest", "beach")
CONTINUATION_NAMES = (None, "paddles", "dolphin")
STATUS_NAMES = ("unplaced", "board", "rescued", "eliminated")


NODE_NAMES = tuple([f"({q},{r})" for q, r in CELLS] + list(RESCUE_NAMES))
NODE_BY_NAME = {name: node for node, name in enumerate(NODE_NAMES)}


def node_name(int node):
    """``(q,r)`` for a board cell, ``NW``/``NE``/``SW``/``SE`` for a Rescue Island."""
    return NODE_NAMES[node]


_NODE_RE = re.compile(r"^(?:raft@)?(?:\((-?\d+),\s*(-?\d+)\)|(NW|NE|SW|SE))$", re.IGNORECASE)


def parse_node(str text):
    """The node index of ``(q,r)`` / ``raft@(q,r)`` / a Rescue Island name; ``ValueError`` if it is not on the board."""
    node = NODE_BY_NAME.get(text)
    if node is not None:
        return node
    match = _NODE_RE.match(text.strip())
    if match is None:
        raise ValueError(f"{text!r} is not a cell: write (q,r) or NW/NE/SW/SE")
    if match.group(3):
        return FIRST_RESCUE + RESCUE_NAMES.index(match.group(3).upper())
    cell = CELL_INDEX.get((int(match.group(1)), int(match.group(2))))
    if cell is None:
        raise ValueError(f"{text!r} is not on the board")
    return cell


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
        self.attach(&SURVIVE_TABLE)

    cdef Survive* g(self):
        return <Survive*>self.buf

    # -- move text --------------------------------------------------------------------------------------------------
    def _who(self, int colour, int value, int swum):
        return f"{COLOUR_NAMES[colour]}:{value if value else '?'}{'*' if swum else ''}"

    def _dest(self, int node):
        cdef Survive* s = self.g()
        if node == NO_NODE:
            return "out"
        if node < FIRST_RESCUE and s.raft[node]:
            return "raft@" + node_name(node)
        return node_name(node)

    def action_to_string(self, int32_t action):
        """Readable move text; ``string_to_action`` parses it back (see docs/rules/survive.md for the grammar)."""
        cdef int kind = a_kind(action)
        cdef int sub = a_sub(action)
        cdef int frm = a_from(action)
        cdef int to = a_to(action)
        who = None
        if kind in (K_PLACE_ADV, K_MOVE_ADV, K_DOLPHIN, K_PUSH, K_BOARD):
            if a_colour(action) >= MAX_SEATS or a_value(action) > 5:
                raise IllegalAction(f"{action} is not a Survive action id")
            who = self._who(a_colour(action), a_value(action), a_flag(action))
        try:
            if kind == K_PLACE_ADV:
                return f"place {who} {node_name(to)}"
            if kind == K_PLACE_RAFT:
                return f"place raft {node_name(to)}"
            if kind == K_MOVE_ADV:
                return f"move {who} {'raft@' if sub else ''}{node_name(frm)}->{self._dest(to)}"
            if kind == K_MOVE_RAFT:
                return f"move raft {node_name(frm)}->{node_name(to)}"
            if kind == K_END:
                return "end"
            if kind == K_REMOVE_TILE:
                return f"remove {LAND_NAMES[sub]} {node_name(frm)}"
            if kind == K_MOVE_CREATURE:
                return f"move {CREATURE_NAMES[sub]} {node_name(frm)}->{node_name(to)}"
            if kind == K_SUMMON:
                what = "raft" if sub == SUMMON_RAFT else CREATURE_NAMES[sub]
                return f"summon {what} {node_name(frm)}->{node_name(to)}"
            if kind == K_PADDLES:
                return f"use paddles:beach raft {node_name(frm)}->{node_name(to)}"
            if kind == K_DOLPHIN:
                return f"use dolphin:{LAND_NAMES[sub]} {who} {node_name(frm)}->{self._dest(to)}"
            if kind == K_DIVE:
                return f"use dive:forest {CREATURE_NAMES[sub]} {node_name(frm)}->{node_name(to)}"
            if kind == K_DIE:
                return f"use die:{LAND_NAMES[sub]}"
            if kind == K_REPEL:
                return f"use repellent:{LAND_NAMES[sub]} {CREATURE_NAMES[a_value(action)]} {node_name(frm)}"
            if kind == K_DECLINE:
                return "decline"
            if kind == K_CONTINUE:
                return f"continue {node_name(frm)}->{self._dest(to)}"
            if kind == K_STOP:
                return "stop"
            if kind == K_PUSH:
                return f"push {who} {node_name(frm)}->{self._dest(to)}"
            if kind == K_DISPLACE:
                return f"displace {CREATURE_NAMES[sub]} {node_name(frm)}->{self._dest(to)}"
            if kind == K_BOARD:
                return f"board {who} {node_name(frm)}"
            if kind == K_REVEAL:
                back = "ability" if to == HIDDEN_ABILITY else BACK_NAMES[to]
                return f"reveal {LAND_NAMES[sub]}:{back}"
            if kind == K_ROLL:
                return f"roll {CREATURE_NAMES[sub]}"
        except (IndexError, KeyError):
            pass
        raise IllegalAction(f"{action} is not a Survive action id")

    def string_to_action(self, str text):
        """Parse move text written by ``action_to_string`` (cells as ``(q,r)``, ``raft@(q,r)`` or NW/NE/SW/SE)."""
        try:
            return _parse_action(text)
        except (ValueError, IndexError) as err:
            raise IllegalAction(f"{text!r} is not a Survive move: {err}. Examples: 'move red:5 (2,-1)->(3,-1)', "
                                f"'remove forest (1,2)', 'end'; legal_actions() lists the legal ones") from None

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

    def on_board_values(self):
        """(colour, cell, aboard, value) of every Adventurer on the board, read straight from the struct."""
        cdef Survive* s = self.g()
        cdef int i
        return [(i // MEEPLES_PER_COLOUR, s.meeple[i].cell, s.meeple[i].aboard, s.meeple[i].value)
                for i in range(s.num_colours * MEEPLES_PER_COLOUR) if s.meeple[i].status == ST_BOARD]

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
        """The hex board in text: one 4-character token per cell (terrain, then what stands there)."""
        cdef Survive* s = self.g()
        cdef int c
        lines = []
        rescue_at = {}
        for name in RESCUE_NAMES:
            for cell in BOARD_DATA["rescue_islands"][name]:
                rescue_at[tuple(cell)] = name
        for r in range(-6, 7):
            # Pointy-top hexes: a cell's column is 4q + 2r characters (x = q + r/2), shifted so the board starts at 0.
            line = [" "] * 80
            tokens = [(q, f" {name} ") for (q, rr), name in rescue_at.items() if rr == r]
            tokens += [(NODE_Q[c], self._token(c)) for c in range(NUM_CELLS) if NODE_R[c] == r]
            for q, token in tokens:
                col = 4 * q + 2 * r + 24
                line[col:col + 4] = token
            lines.append("".join(line).rstrip())
        lines.append("terrain ~ water, b beach, f forest, m mountain, V volcano | S serpent s shark K kaiju "
                     "| R raft with n aboard | digits: adventurers (swimmers or on the tile)")
        scores = self.scores()
        lines.append(f"turn {s.turn} | phase {PHASE_NAMES[s.phase]} | active seat {s.active} | to move "
                     f"{self.current_player()} | moves left {s.moves_left} | volcanoes {s.volcanoes} | "
                     f"scores {scores}")
        return "\n".join(lines)

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
            if s.terrain[c] != WATER and not IS_SLOT[c]:
                raise InvalidObservation("terrain", f"{node_name(c)} is not an island slot and must be water")
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
            if values != [VALUES[k] for k in range(MEEPLES_PER_COLOUR)]:
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


def _check_int(dict data, str key, int lo, int hi, str prefix=""):
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise InvalidObservation(prefix + key, f"expected an integer {lo}..{hi}, got {value!r}")
    return value


def _check_choice(dict data, str key, tuple names, str prefix="control."):
    value = data.get(key)
    if value not in names:
        raise InvalidObservation(prefix + key, f"expected one of {[n for n in names if n is not None]}, got {value!r}")
    return names.index(value)


_COLOUR_RE = re.compile(r"^(red|blue|green|yellow|purple):([1-5?])(\*?)$", re.IGNORECASE)


def _who(str token):
    match = _COLOUR_RE.match(token)
    if match is None:
        raise ValueError(f"{token!r} is not an adventurer: write colour:value, e.g. red:5 (red:? when unseen, "
                         "red:5* when it has already swum this turn)")
    value = 0 if match.group(2) == "?" else int(match.group(2))
    return COLOUR_NAMES.index(match.group(1).lower()), value, 1 if match.group(3) else 0


def _path(str token):
    if "->" not in token:
        raise ValueError(f"{token!r} is not a move: write from->to")
    frm, to = token.split("->", 1)
    return frm, (NO_NODE if to.strip().lower() == "out" else parse_node(to))


def _parse_action(str text):
    words = text.strip().split()
    if not words:
        raise ValueError("empty text")
    verb = words[0].lower()
    rest = words[1:]
    if verb in ("end", "decline", "stop") and not rest:
        return act({"end": K_END, "decline": K_DECLINE, "stop": K_STOP}[verb], 0, 0, 0, 0, 0, 0)
    if verb == "place" and len(rest) == 2:
        if rest[0].lower() == "raft":
            return act(K_PLACE_RAFT, 0, 0, 0, 0, NO_NODE, parse_node(rest[1]))
        colour, value, _ = _who(rest[0])
        return act(K_PLACE_ADV, 0, colour, value, 0, NO_NODE, parse_node(rest[1]))
    if verb == "move" and len(rest) == 2:
        frm, to = _path(rest[1])
        what = rest[0].lower()
        if what == "raft":
            return act(K_MOVE_RAFT, 0, 0, 0, 0, parse_node(frm), to)
        if what in CREATURE_NAMES:
            return act(K_MOVE_CREATURE, CREATURE_NAMES.index(what), 0, 0, 0, parse_node(frm), to)
        colour, value, swum = _who(rest[0])
        aboard = 1 if frm.strip().lower().startswith("raft@") else 0
        return act(K_MOVE_ADV, aboard, colour, value, swum, parse_node(frm), to)
    if verb == "remove" and len(rest) == 2:
        return act(K_REMOVE_TILE, LAND_NAMES.index(rest[0].lower()), 0, 0, 0, parse_node(rest[1]), 0)
    if verb == "summon" and len(rest) == 2:
        frm, to = _path(rest[1])
        what = rest[0].lower()
        sub = SUMMON_RAFT if what == "raft" else CREATURE_NAMES.index(what)
        return act(K_SUMMON, sub, 0, 0, 0, parse_node(frm), to)
    if verb == "continue" and len(rest) == 1:
        frm, to = _path(rest[0])
        return act(K_CONTINUE, 0, 0, 0, 0, parse_node(frm), to)
    if verb == "push" and len(rest) == 2:
        colour, value, swum = _who(rest[0])
        frm, to = _path(rest[1])
        return act(K_PUSH, 0, colour, value, swum, parse_node(frm), to)
    if verb == "displace" and len(rest) == 2:
        frm, to = _path(rest[1])
        return act(K_DISPLACE, CREATURE_NAMES.index(rest[0].lower()), 0, 0, 0, parse_node(frm), to)
    if verb == "board" and len(rest) == 2:
        colour, value, swum = _who(rest[0])
        return act(K_BOARD, 0, colour, value, swum, parse_node(rest[1]), NO_NODE)
    if verb == "reveal" and len(rest) == 1 and ":" in rest[0]:
        land, back = rest[0].lower().split(":", 1)
        back_id = HIDDEN_ABILITY if back == "ability" else BACK_NAMES.index(back)
        return act(K_REVEAL, LAND_NAMES.index(land), 0, 0, 0, 0, back_id)
    if verb == "roll" and len(rest) == 1:
        return act(K_ROLL, CREATURE_NAMES.index(rest[0].lower()), 0, 0, 0, 0, 0)
    if verb == "use" and rest and ":" in rest[0]:
        ability, land = rest[0].lower().split(":", 1)
        land_id = LAND_NAMES.index(land)
        args = rest[1:]
        if ability == "die" and not args:
            return act(K_DIE, land_id, 0, 0, 0, 0, 0)
        if ability == "paddles" and len(args) == 2 and args[0].lower() == "raft":
            frm, to = _path(args[1])
            return act(K_PADDLES, land_id, 0, 0, 0, parse_node(frm), to)
        if ability == "dolphin" and len(args) == 2:
            colour, value, swum = _who(args[0])
            frm, to = _path(args[1])
            return act(K_DOLPHIN, land_id, colour, value, swum, parse_node(frm), to)
        if ability == "dive" and len(args) == 2:
            frm, to = _path(args[1])
            return act(K_DIVE, CREATURE_NAMES.index(args[0].lower()), 0, 0, 0, parse_node(frm), to)
        if ability == "repellent" and len(args) == 2:
            return act(K_REPEL, land_id, 0, CREATURE_NAMES.index(args[0].lower()), 0, parse_node(args[1]), 0)
    raise ValueError("unknown move")


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
        s.terrain[SLOT_CELL[k]] = " bfm".index(layout[k])
    for k in range(5):
        add_creature(s, SERPENT_START[k], SERPENT, 1)
    # Meeples of a colour are stored in a seeded random order, so storage order says nothing about values.
    order = _random.Random(seed + 1)
    for colour in range(s.num_colours):
        values = [VALUES[k] for k in range(MEEPLES_PER_COLOUR)]
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


def _first_difference(a, b, path=""):
    """The dotted path of the first field where two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{k}]")
    return path or "state"


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


def belief_summary(worlds, int seat):
    """From sampled worlds: for each other colour's Adventurer on the board (by cell), the distribution of its
    treasure value; for each other seat, how often it holds each Ability type."""
    adventurers = {}
    abilities = {}
    n = len(worlds)
    for world in worlds:
        players = world.num_players()
        for colour, cell, aboard, value in (<SurviveState>world).on_board_values():
            if (colour // 2 if players == 2 else colour) == seat:
                continue
            where = ("raft@" if aboard else "") + node_name(cell)
            dist = adventurers.setdefault(COLOUR_NAMES[colour], {}).setdefault(where, {})
            dist[value] = dist.get(value, 0) + 1
        for other in range(players):
            if other == seat:
                continue
            row = abilities.setdefault(f"seat {other}", {})
            for land, kinds in (<SurviveState>world)._held_by_type(other).items():
                for name, count in kinds.items():
                    if count:
                        row[f"{land}:{name}"] = row.get(f"{land}:{name}", 0) + count
    for cells in adventurers.values():
        for where, dist in cells.items():
            total = sum(dist.values())
            cells[where] = {str(v): round(c / total, 4) for v, c in sorted(dist.items())}
    return {
        "treasure_values": adventurers,
        "abilities": {seat_name: {k: round(v / n, 4) for k, v in sorted(row.items())}
                      for seat_name, row in abilities.items() if row},
        "worlds": n,
    }
