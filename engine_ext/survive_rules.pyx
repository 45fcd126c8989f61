# cython: language_level=3
"""Survive The Island's rules as ``noexcept nogil`` functions over the ``Survive`` struct, and the game table the
search drives. The rules and rulings are in ``survive.pyx``'s docstring and docs/rules/survive.md; every action is
decoded once into a ``Move`` (``survive_rules.pxd``) before a rule reads it."""

from libc.math cimport exp, pow
from libc.stdint cimport int8_t, int32_t, uint8_t, uint64_t
from libc.string cimport memset

from engine_ext.core cimport CHANCE_PLAYER, TERMINAL_PLAYER, GameVTable, Rng, rng_below, rng_uniform

from engine_ext import survive_board as board

# ---------------------------------------------------------------------------------------------------------------------
# Board geometry and component tables (survive_board.py), copied into C arrays once when the module loads.
# ---------------------------------------------------------------------------------------------------------------------
cdef int8_t NODE_Q[NUM_NODES]
cdef int8_t NODE_R[NUM_NODES]
cdef uint8_t NEIGHBOURS[NUM_NODES][MAX_NEIGHBOURS]
cdef uint8_t NUM_NEIGHBOURS[NUM_NODES]
# Two spaces on: for a cell and its k-th neighbour, that neighbour's neighbours that are board cells, neither the cell
# nor next to it (the cells a two-space move adds to the one-space moves).
cdef uint8_t OUTER[NUM_CELLS][MAX_NEIGHBOURS][MAX_NEIGHBOURS]
cdef uint8_t NUM_OUTER[NUM_CELLS][MAX_NEIGHBOURS]
cdef uint8_t SLOT_CELL[NUM_SLOTS]      # island_slots order (the ``layout`` option)
cdef uint8_t SLOTS_ASCENDING[NUM_SLOTS]
cdef uint8_t IS_SLOT[NUM_CELLS]
cdef uint8_t SERPENT_START[5]
cdef uint8_t RESCUE_DISTANCE[NUM_NODES]      # steps to the nearest Rescue Island, ignoring what stands between
cdef uint8_t BACKS[3][NUM_BACKS]             # tile backs per land type (rulebook, "Tile Descriptions")
cdef uint8_t SUPPLY[3]
cdef uint8_t VALUES[MEEPLES_PER_COLOUR]
# The evaluations' distance discount 0.85 ** (spaces to a Rescue Island * factor), per node, for the factors they use
# (a table instead of ``pow`` in the innermost loop: the same values, a few percent of a search's time).
cdef double DISCOUNT_WALK[NUM_NODES]         # factor 1
cdef double DISCOUNT_RAFT[NUM_NODES]         # factor 0.6
cdef double DISCOUNT_SWIM[NUM_NODES]         # factor 2
# ``tide``'s weights, each the number the evaluation was built around (``TideWeights`` in the .pxd names them).
cdef TideWeights TIDE_WEIGHTS = TideWeights(base=0.85, raft_steps=0.6, eat=0.3, sink=0.3, capsize=0.15, removal=0.4,
                                            floor=0.25, raft_cost=0.6, points=4.0, horizon=0.0)
# ``fitted``'s: ``tide``'s with the softmax's points per e fitted to greedy games' winners (``benchmarks/fit_tide.py
# --players 2 4 --weights points``: 2.19; ``tide``'s 4 makes it underconfident). Fitting every weight as well did not
# carry from one seat count to the other (docs/experiments/survive.md, "Survive: tide's weights fitted to outcomes").
cdef TideWeights FITTED_WEIGHTS = TideWeights(base=0.85, raft_steps=0.6, eat=0.3, sink=0.3, capsize=0.15, removal=0.4,
                                              floor=0.25, raft_cost=0.6, points=2.2, horizon=0.0)
# ``horizon``'s: ``tide``'s with a creature's threat counted over every rival's Creature phase before the owner's next
# Action phase (``hostile_phases``).
cdef TideWeights HORIZON_WEIGHTS = TideWeights(base=0.85, raft_steps=0.6, eat=0.3, sink=0.3, capsize=0.15,
                                               removal=0.4, floor=0.25, raft_cost=0.6, points=4.0, horizon=1.0)
# ``bold``'s: ``tide``'s with the creatures' threats at half weight.
cdef TideWeights BOLD_WEIGHTS = TideWeights(base=0.85, raft_steps=0.6, eat=0.15, sink=0.15, capsize=0.075,
                                            removal=0.4, floor=0.25, raft_cost=0.6, points=4.0, horizon=0.0)
cdef double TEMPO_POINTS = 0.5                # ``tempo``: points a seat's place in the round is worth at most


def _fill_tables():
    cdef int node, k
    if board.NUM_CELLS != NUM_CELLS or board.NUM_NODES != NUM_NODES or len(board.SLOT_CELLS) != NUM_SLOTS:
        raise RuntimeError("survive_board.py and survive_rules.pxd disagree on the board's size")
    for node in range(NUM_NODES):
        NODE_Q[node], NODE_R[node] = board.CELLS[node] if node < NUM_CELLS else (0, 0)
        NUM_NEIGHBOURS[node] = len(board.NEIGHBOURS[node])
        for k, other in enumerate(board.NEIGHBOURS[node]):
            NEIGHBOURS[node][k] = other
        RESCUE_DISTANCE[node] = board.RESCUE_DISTANCE[node]
        DISCOUNT_WALK[node] = pow(0.85, RESCUE_DISTANCE[node] * 1.0)
        DISCOUNT_RAFT[node] = pow(0.85, RESCUE_DISTANCE[node] * 0.6)
        DISCOUNT_SWIM[node] = pow(0.85, RESCUE_DISTANCE[node] * 2.0)
    for node in range(NUM_CELLS):
        IS_SLOT[node] = node in board.SLOT_CELLS
        for k, near in enumerate(board.NEIGHBOURS[node]):
            outer = [far for far in board.NEIGHBOURS[near] if far < NUM_CELLS and far != node
                     and far not in board.NEIGHBOURS[node]] if near < NUM_CELLS else []
            NUM_OUTER[node][k] = len(outer)
            for j, far in enumerate(outer):
                OUTER[node][k][j] = far
    for k, node in enumerate(board.SLOT_CELLS):
        SLOT_CELL[k] = node
    for k, node in enumerate(sorted(board.SLOT_CELLS)):
        SLOTS_ASCENDING[k] = node
    for k, node in enumerate(board.SERPENT_STARTS):
        SERPENT_START[k] = node
    for land in range(3):
        for k in range(NUM_BACKS):
            BACKS[land][k] = board.BACKS[land][k]
        SUPPLY[land] = board.SUPPLY[land]
    for k in range(MEEPLES_PER_COLOUR):
        VALUES[k] = board.VALUES[k]


_fill_tables()


# ---------------------------------------------------------------------------------------------------------------------
# Queries that read the tables
# ---------------------------------------------------------------------------------------------------------------------
cdef int backs_left(const Survive* s, int land, int back) noexcept nogil:
    """Face-down backs of ``land`` still on the board: the table minus everything face up or held."""
    cdef int n = BACKS[land][back] - s.revealed[land][back]
    cdef int seat
    if back >= FIRST_ABILITY and land < 2:
        for seat in range(s.num_players):
            n -= s.held[seat][land][back - FIRST_ABILITY]
    return n


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
    cdef uint64_t seen[3]                          # the cells listed so far, as a bitset (each is a board cell)
    seen[0] = seen[1] = seen[2] = 0
    for k in range(NUM_NEIGHBOURS[frm]):
        a = NEIGHBOURS[frm][k]
        if not creature_may_enter(s, kind, a, forbidden):
            continue
        if not (seen[a >> 6] >> (a & 63)) & 1:
            seen[a >> 6] |= (<uint64_t>1) << (a & 63)
            out[n] = a
            n += 1
        if kind == SERPENT or creature_stops_at(s, kind, a):
            continue
        for j in range(NUM_NEIGHBOURS[a]):
            b = NEIGHBOURS[a][j]
            if b == frm or not creature_may_enter(s, kind, b, forbidden) or (seen[b >> 6] >> (b & 63)) & 1:
                continue
            seen[b >> 6] |= (<uint64_t>1) << (b & 63)
            out[n] = b
            n += 1
    return n


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


cdef inline bint no_tiles_left(const Survive* s) noexcept nogil:
    return s.tiles[BEACH] == 0 and s.tiles[FOREST] == 0 and s.tiles[MOUNTAIN] == 0


cdef inline bint hourglass_left(const Survive* s) noexcept nogil:
    """A tile bearing the hourglass is still on the board (beach, and forest unless the option says beach only)."""
    return s.tiles[BEACH] > 0 or (s.tiles[FOREST] > 0 and not s.hourglass_beach_only)


cdef bint creature_can_move(const Survive* s, int kind) noexcept nogil:
    """A creature of ``kind`` has a move: one it may enter next to it (``creature_destinations`` reaches two spaces
    only through such a cell, so it lists nothing else when there is none)."""
    cdef int k
    cdef int c = next_bit(s.creature_bits, -1)
    while c >= 0:
        if s.creatures[c][kind]:
            for k in range(NUM_NEIGHBOURS[c]):
                if creature_may_enter(s, kind, NEIGHBOURS[c][k], NO_NODE):
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
        if s.phase == PH_ACTION and s.moves_left > 0 and not seat_has_meeples_on_board(s, s.active):
            # Rising Waters ruling (docs/rules/survive.md): "if you still have Adventurers to save" holds at every
            # movement: once the seat's last Adventurer on the board is gone, its remaining movements are lost.
            s.moves_left = 0
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


cdef inline bint can_step(const Survive* s, const Meeple* m, int t) noexcept nogil:
    """Meeple ``m`` may move to its neighbour ``t``: on foot between tiles, rafts and Rescue Islands; swimming (start
    or end in water) once per turn; never onto a Volcano or a Kaiju."""
    cdef bint swimmer = not m.aboard and s.terrain[m.cell] == WATER
    cdef bint swim
    if t < FIRST_RESCUE:
        if s.terrain[t] == VOLCANO or has_kaiju(s, t):
            return False
        swim = swimmer or (s.terrain[t] == WATER and room(s, t) == 0)
    else:
        swim = swimmer
    return not (swim and m.swum)


cdef inline bint raft_can_enter(const Survive* s, int t) noexcept nogil:
    """A Raft moves to an adjacent Water space with no Raft (never into a Kaiju's cell)."""
    return t < FIRST_RESCUE and s.terrain[t] == WATER and not s.raft[t] and not has_kaiju(s, t)


cdef inline bint dolphin_can_enter(const Survive* s, int t) noexcept nogil:
    """Dolphin: a Swimmer's step may end anywhere but a Volcano or a Kaiju's cell (a tile, raft or Rescue Island
    too)."""
    return t >= FIRST_RESCUE or not (s.terrain[t] == VOLCANO or has_kaiju(s, t))


cdef inline bint dive_can_enter(const Survive* s, int c, int t) noexcept nogil:
    """Dive: the creature at ``c`` may go to ``t``, any other empty Water space."""
    return t != c and s.terrain[t] == WATER and cell_is_empty(s, t)


cdef int gen_adventurer_moves(const Survive* s, int i, int32_t* out) noexcept nogil:
    """Movements of meeple ``i`` (``can_step``)."""
    cdef const Meeple* m = &s.meeple[i]
    cdef int c = m.cell
    cdef int n = 0
    cdef int k, t
    for k in range(NUM_NEIGHBOURS[c]):
        t = NEIGHBOURS[c][k]
        if can_step(s, m, t):
            out[n] = act(K_MOVE_ADV, m.aboard, i // MEEPLES_PER_COLOUR, m.value, m.swum, c, t)
            n += 1
    return n


cdef int gen_raft_steps(const Survive* s, int kind, int sub, int c, int32_t* out) noexcept nogil:
    """The Raft at ``c`` steps (``raft_can_enter``)."""
    cdef int n = 0
    cdef int k, t
    for k in range(NUM_NEIGHBOURS[c]):
        t = NEIGHBOURS[c][k]
        if raft_can_enter(s, t):
            out[n] = act(kind, sub, 0, 0, 0, c, t)
            n += 1
    return n


cdef int gen_dolphin_steps(const Survive* s, int kind, int sub, int colour, int value, int swum, int c,
                           int32_t* out) noexcept nogil:
    """Dolphin: a Swimmer moves through water; only the last step may leave it (``dolphin_can_enter``)."""
    cdef int n = 0
    cdef int k, t
    for k in range(NUM_NEIGHBOURS[c]):
        t = NEIGHBOURS[c][k]
        if dolphin_can_enter(s, t):
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


cdef inline bint in_control(const Survive* s, const int* aboard, int seat) noexcept nogil:
    """A Raft with ``aboard[p]`` of each seat's Adventurers is ``seat``'s to move: at least as many of its own as any
    opponent's (an empty Raft is anyone's)."""
    cdef int p
    for p in range(s.num_players):
        if aboard[p] > aboard[seat]:
            return False
    return True


cdef bint controls_raft(const Survive* s, int seat, int c) noexcept nogil:
    """``seat`` may move the Raft at ``c`` (``in_control``)."""
    cdef int aboard[MAX_SEATS]
    cdef int i
    cdef const Meeple* m
    if not s.aboard_at[c]:
        return True
    memset(aboard, 0, sizeof(aboard))
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        if m.status == ST_BOARD and m.aboard and m.cell == c:
            aboard[seat_of_colour(s, i // MEEPLES_PER_COLOUR)] += 1
    return in_control(s, aboard, seat)


cdef void raft_control(const Survive* s, int seat, uint8_t* controlled) noexcept nogil:
    """``controlled[c]`` for every cell: a Raft there that ``seat`` may move (``in_control``), counting every Raft's
    passengers in one pass over the Adventurers."""
    cdef int aboard[NUM_CELLS][MAX_SEATS]
    cdef int c, i
    cdef const Meeple* m
    memset(controlled, 0, NUM_CELLS)
    c = next_bit(s.raft_bits, -1)
    while c >= 0:
        memset(aboard[c], 0, sizeof(aboard[c]))
        c = next_bit(s.raft_bits, c)
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        if m.status == ST_BOARD and m.aboard and s.raft[m.cell]:     # aboard: on a Raft's cell, never elsewhere
            aboard[m.cell][seat_of_colour(s, i // MEEPLES_PER_COLOUR)] += 1
    c = next_bit(s.raft_bits, -1)
    while c >= 0:
        controlled[c] = in_control(s, aboard[c], seat)
        c = next_bit(s.raft_bits, c)


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
                    if dive_can_enter(s, c, i):
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
    cdef int c, k, land, count
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
        land = thinnest_land(s, &count)
        if land >= 0:
            for k in range(NUM_SLOTS):              # only island slots ever hold a tile
                c = SLOTS_ASCENDING[k]
                if s.terrain[c] == land:
                    out[n] = act(K_REMOVE_TILE, land - BEACH, 0, 0, 0, c, 0)
                    n += 1
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
    """Play one action (decoded once into ``m``), then settle the position (docs/rules/survive.md)."""
    cdef Survive* s = <Survive*>p
    cdef Move m = decode(a)
    cdef int kind = m.kind
    cdef int sub = m.sub
    cdef int frm = m.frm
    cdef int to = m.to
    cdef int i, seat = s.to_move
    cdef bint swim
    if kind == K_PLACE_ADV:
        i = find_meeple_unplaced(s, m.colour, m.value)
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
        i = find_meeple(s, m.colour, m.value, m.flag, sub, frm)
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
        s.tiles[s.terrain[frm]] -= 1
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
        i = find_meeple(s, m.colour, m.value, m.flag, 0, frm)
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
        creature_arrives(s, m.value, frm, NO_NODE)
        s.react_type = -1
        s.react_asked = 0
    elif kind == K_DECLINE:
        s.react_asked |= 1 << seat
    elif kind == K_PUSH:
        i = find_meeple(s, m.colour, m.value, m.flag, 0, frm)
        if to == NO_NODE:
            eliminate(s, i)
        else:
            lift(s, i)
            drop(s, i, to)
    elif kind == K_DISPLACE:
        creature_arrives(s, sub, frm, to)
    elif kind == K_BOARD:
        i = find_meeple(s, m.colour, m.value, m.flag, 0, frm)
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


cdef int s_turn_owner(const void* p) noexcept nogil:
    """The active seat: a Repellent reaction or a die roll is part of its turn."""
    return (<const Survive*>p).active


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


cdef int slot_key(const Meeple* m) noexcept nogil:
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


cdef int32_t s_private_key(const void* p, int seat) noexcept nogil:
    """A coarse name for what ``seat`` alone knows: where its most valuable Adventurer still on the island stands
    (colour and cell; its other values are left out, so an opponent's tree splits at most once per Adventurer it has
    on the island: ten a colour, two colours a seat with two players), -1 with none."""
    cdef const Survive* s = <const Survive*>p
    cdef int colour, k, best = -1, key = -1
    cdef int first = first_colour(s, seat)
    cdef const Meeple* m
    for colour in range(first, s.num_colours):
        if seat_of_colour(s, colour) != seat:
            break
        for k in range(MEEPLES_PER_COLOUR):
            m = &s.meeple[colour * MEEPLES_PER_COLOUR + k]
            if m.status == ST_BOARD and m.value > best:
                best = m.value
                key = (colour - first) * FIRST_RESCUE + m.cell
    return key


cdef void match_dolphin_value(Survive* s) noexcept nogil:
    """The Dolphin swimmer's value is the active seat's secret: in a world whose values were dealt again, the second
    step follows a matching swimmer of that world (same colour, cell and swim)."""
    cdef int i
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        if (i // MEEPLES_PER_COLOUR == s.cont_colour and s.meeple[i].status == ST_BOARD
                and s.meeple[i].cell == s.cont_cell and not s.meeple[i].aboard
                and s.meeple[i].swum == s.cont_swum):
            s.cont_value = s.meeple[i].value
            return


cdef void deal_weighted_values(const Survive* s, int base, uint8_t* values, Rng* rng) noexcept nogil:
    """Deal the colour's multiset ``VALUES`` to its Adventurers by their weights: ``values[k]`` names an Adventurer
    (its storage index from ``base``) and receives its value. In a random order, each takes one of the values left
    with probability proportional to how many of it are left times its weight for it (all weights 1: a uniform
    permutation of the multiset); an Adventurer whose weights are zero for every value left takes one by count."""
    cdef int left[NUM_VALUE_KINDS]
    cdef int order[MEEPLES_PER_COLOUR]
    cdef double chance[NUM_VALUE_KINDS]
    cdef double total, pick
    cdef int k, j, v, i
    for v in range(NUM_VALUE_KINDS):
        left[v] = 0
    for k in range(MEEPLES_PER_COLOUR):
        left[VALUES[k] - 1] += 1
        order[k] = k
    for k in range(MEEPLES_PER_COLOUR, 0, -1):   # the next Adventurer: one of the k not yet dealt, at random
        j = rng_below(rng, k)
        i = order[j]
        order[j] = order[k - 1]
        total = 0.0
        for v in range(NUM_VALUE_KINDS):
            chance[v] = left[v] * s.value_weight[base + values[i]][v]
            total += chance[v]
        if total <= 0.0:
            for v in range(NUM_VALUE_KINDS):
                chance[v] = left[v]
                total += chance[v]
        pick = rng_uniform(rng) * total
        v = 0
        while v < NUM_VALUE_KINDS - 1 and (left[v] == 0 or pick >= chance[v]):
            pick -= chance[v]
            v += 1
        while left[v] == 0:  # rounding at the top end: the last value left
            v -= 1
        left[v] -= 1
        values[i] = v + 1


cdef void s_determinize(void* p, int seat, Rng* rng) noexcept nogil:
    """Rebuild every colour's meeples from their public slots in canonical order (values: the seat's own as known,
    others' a random permutation of the colour's multiset, or dealt by the state's ``value_weight`` rows where a
    colour has them), shuffle storage order, and deal other seats' held Abilities from the unaccounted backs of their
    land types. Reads nothing hidden from ``seat``."""
    cdef Survive* s = <Survive*>p
    cdef int colour, j, k, base, other, land, ability, count, pick, total, _tile
    cdef bint own, weighted
    cdef int keys[MEEPLES_PER_COLOUR]
    cdef uint8_t values[MEEPLES_PER_COLOUR]
    cdef uint8_t tmp
    cdef int pool[NUM_ABILITIES]
    cdef Meeple rebuilt[MEEPLES_PER_COLOUR]
    cdef Meeple swap
    for colour in range(s.num_colours):
        base = colour * MEEPLES_PER_COLOUR
        own = seat_of_colour(s, colour) == seat
        weighted = not own and (s.value_weighted >> colour) & 1
        for k in range(MEEPLES_PER_COLOUR):
            keys[k] = slot_key(&s.meeple[base + k])
            values[k] = s.meeple[base + k].value if own else (k if weighted else 0)
        sort_entries(keys, values, MEEPLES_PER_COLOUR)
        if weighted:  # in slot order, so that the deal does not depend on where the state stores its Adventurers
            deal_weighted_values(s, base, values, rng)
        if not own and not weighted:
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
        if weighted:  # the rows named the old storage order: the dealt world is uniform again
            s.value_weighted &= ~(1 << colour)
    if s.cont_kind == CONT_DOLPHIN and seat != s.active:
        match_dolphin_value(s)
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
    cdef Move m = decode(a)
    cdef int i
    if m.kind == K_REVEAL:
        if m.to >= FIRST_ABILITY and seat != s.active:
            m.to = HIDDEN_ABILITY
            return encode(&m)
        return a
    if m.kind in (K_PLACE_ADV, K_MOVE_ADV, K_DOLPHIN, K_PUSH, K_BOARD):
        if seat >= 0 and seat_of_colour(s, m.colour) == seat:
            if m.value == 0 and m.kind != K_PLACE_ADV:
                i = find_meeple(s, m.colour, 0, m.flag, 0, m.frm)
                if i >= 0:
                    m.value = s.meeple[i].value
                    return encode(&m)
            return a
        m.value = 0
        return encode(&m)
    return a


cdef void s_utility_bounds(const void* p, double* lowest, double* highest) noexcept nogil:
    lowest[0] = 0.0
    highest[0] = 1.0


include "survive_eval.pxi"
include "survive_playout.pxi"


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
SURVIVE_TABLE.other_heuristics[0] = s_danger_heuristic
SURVIVE_TABLE.other_heuristics[1] = s_escape_heuristic
SURVIVE_TABLE.other_heuristics[2] = s_rafts_heuristic
SURVIVE_TABLE.other_heuristics[3] = s_hunt_heuristic
SURVIVE_TABLE.other_heuristics[4] = s_swim_heuristic
SURVIVE_TABLE.other_heuristics[5] = s_tide_heuristic
SURVIVE_TABLE.other_heuristics[6] = s_calm_heuristic
SURVIVE_TABLE.other_heuristics[7] = s_tempo_heuristic
SURVIVE_TABLE.other_heuristics[8] = s_fitted_heuristic
SURVIVE_TABLE.other_heuristics[9] = s_horizon_heuristic
SURVIVE_TABLE.other_heuristics[10] = s_bold_heuristic
SURVIVE_TABLE.playout_action = s_playout_action
SURVIVE_TABLE.playout_draw = s_playout_draw
SURVIVE_TABLE.other_playout_actions[0] = s_hunting_playout_action
SURVIVE_TABLE.other_playout_draws[0] = s_playout_draw     # the same policy in the Action phase
SURVIVE_TABLE.redundant = s_redundant
SURVIVE_TABLE.private_key = s_private_key
SURVIVE_TABLE.turn_owner = s_turn_owner


cdef const GameVTable* survive_table() noexcept nogil:
    return &SURVIVE_TABLE
