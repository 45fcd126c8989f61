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


cdef inline double discount(int node, double factor) noexcept nogil:
    """0.85 ** (the node's spaces to a Rescue Island * ``factor``), from a table for the factors the evaluations use."""
    if factor == 1.0:
        return DISCOUNT_WALK[node]
    if factor == 0.6:
        return DISCOUNT_RAFT[node]
    if factor == 2.0:
        return DISCOUNT_SWIM[node]
    return pow(0.85, RESCUE_DISTANCE[node] * factor)


cdef void shares_of(const Survive* s, const double* estimate, double* out, double points=4.0) noexcept nogil:
    """Treasure estimates as win shares summing to 1: a softmax at ``points`` points per e."""
    cdef double best = -1.0, total = 0.0
    cdef int seat
    for seat in range(s.num_players):
        if estimate[seat] > best:
            best = estimate[seat]
    for seat in range(s.num_players):
        out[seat] = exp((estimate[seat] - best) / points)
        total += out[seat]
    for seat in range(s.num_players):
        out[seat] /= total


cdef void s_heuristic(const void* p, double* out) noexcept nogil:
    """Win shares estimated from treasure: rescued values count in full, an Adventurer on the board counts its value
    discounted by 0.85 per space between it and the nearest Rescue Island; a softmax (4 points per e) turns the
    estimates into shares summing to 1."""
    cdef const Survive* s = <const Survive*>p
    cdef double estimate[MAX_SEATS]
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
            estimate[seat] += m.value * DISCOUNT_WALK[m.cell]
    shares_of(s, estimate, out)


cdef enum:
    THREAT_EATS_SWIMMER = 1     # a Shark or Sea Serpent can reach the space
    THREAT_SINKS_RAFT = 2       # a Sea Serpent (raft and passengers lost) can reach the space
    THREAT_CAPSIZES = 4         # a Kaiju (raft lost, passengers pushed into the water) can reach the space


cdef void threat_map(const Survive* s, uint8_t* threat) noexcept nogil:
    """Per cell, which creature on the board could reach it in one Creature phase (the die picks its kind): the cells
    of ``creature_destinations``, marked in place (a cell reached twice is marked twice, so no list to dedupe)."""
    cdef int kind, k, j, a, b, frm
    cdef uint8_t flag
    memset(threat, 0, NUM_CELLS)
    frm = next_bit(s.creature_bits, -1)
    while frm >= 0:
        for kind in range(3):
            if s.creatures[frm][kind] == 0:
                continue
            if kind == SHARK:
                flag = THREAT_EATS_SWIMMER
            elif kind == SERPENT:
                flag = THREAT_EATS_SWIMMER | THREAT_SINKS_RAFT
            else:
                flag = THREAT_CAPSIZES
            for k in range(NUM_NEIGHBOURS[frm]):
                a = NEIGHBOURS[frm][k]
                if not creature_may_enter(s, kind, a, NO_NODE):
                    continue
                threat[a] |= flag
                if kind == SERPENT or creature_stops_at(s, kind, a):
                    continue
                for j in range(NUM_OUTER[frm][k]):     # a cell next to ``frm`` is marked as one space on already
                    b = OUTER[frm][k][j]
                    if creature_may_enter(s, kind, b, NO_NODE):
                        threat[b] |= flag
        frm = next_bit(s.creature_bits, frm)


cdef int thinnest_land(const Survive* s, int* count) noexcept nogil:
    """The land type the next Rising Waters removes (the thinnest still on the board: beach, then forest, then
    mountain), with its tile count; -1 and 0 when no tile is left."""
    cdef int land
    for land in range(BEACH, MOUNTAIN + 1):
        if s.tiles[land]:
            count[0] = s.tiles[land]
            return land
    count[0] = 0
    return -1


cdef double removal_risk(const Survive* s, int c, int removable, int count) noexcept nogil:
    """How likely the tile at ``c`` goes under in the next Rising Waters, as ``escape`` guesses it: a tile of the
    thinnest type still on the board (``removable``, ``count`` of them left) can be any player's choice, and players
    aim for the tiles under their rivals' treasure, so a few tiles left means a real risk."""
    if removable < 0 or s.terrain[c] != removable:
        return 0.0
    return 1.0 if count <= 2 else 2.0 / count


cdef int hostile_phases(const Survive* s, int seat) noexcept nogil:
    """How many Creature phases of other seats come before ``seat``'s next Action phase begins: a settled position in
    play always has the active seat's Creature phase ahead, so the active seat faces every rival's (n - 1) and the
    seat ``r`` places after it ``r`` (the active seat's and those between); 1 in set-up."""
    cdef int n = s.num_players, r
    if s.phase < PH_ACTION or s.phase == PH_OVER:
        return 1
    r = (seat - s.active + n) % n
    return n - 1 if r == 0 else r


cdef void threatened_worth(const Survive* s, const TideWeights* w, double* estimate, double* worths,
                           bint add_board) noexcept nogil:
    """The treasure estimate of ``s_heuristic`` with danger seen: an Adventurer on the board that a creature could
    reach in the next Creature phase counts its discounted value (``w.base`` per space) times (1 - its threats'
    weights): a swimmer within a Shark's or Serpent's reach (``w.eat``), a raft passenger within a Serpent's
    (``w.sink``: lost) or a Kaiju's (``w.capsize``: thrown in the water). The die picks each creature kind a third of
    the time; the mover then chooses its prey. An Adventurer on a tile loses ``w.removal`` of its worth times the risk
    that the tile goes under (``removal_risk``: Rising Waters makes it a swimmer, one space a turn and prey to Sharks
    and Serpents), and a raft passenger's spaces to a Rescue Island count ``w.raft_steps`` each (one raft move carries
    up to three). With ``w.horizon`` a creature's threat is counted over the rivals' Creature phases before the
    owner's next Action phase (``hostile_phases``): ``d`` for one phase becomes 1 - (1 - d) ** e with e = 1 +
    ``w.horizon`` (phases - 1). ``estimate`` gets each seat's rescued treasure (and with ``add_board`` its board
    Adventurers' worth); ``worths`` each Adventurer's worth (0 off the board)."""
    cdef uint8_t threat[NUM_CELLS]
    cdef double exponent[MAX_SEATS]
    cdef double danger, worth, creature
    cdef int i, seat, removable = -1, count = 0
    cdef const Meeple* m
    if w.removal > 0.0:
        removable = thinnest_land(s, &count)
    threat_map(s, threat)
    for seat in range(s.num_players):
        estimate[seat] = 0.0
        exponent[seat] = 1.0
        if w.horizon != 0.0:
            exponent[seat] += w.horizon * (hostile_phases(s, seat) - 1.0)
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        seat = seat_of_colour(s, i // MEEPLES_PER_COLOUR)
        worths[i] = 0.0
        if m.status == ST_RESCUED:
            estimate[seat] += m.value
        elif m.status == ST_BOARD:
            if w.base == 0.85:                      # every named evaluation's: the tables
                worth = m.value * discount(m.cell, w.raft_steps if m.aboard else 1.0)
            else:                                   # a weight being fitted (``survive.tide_shares``)
                worth = m.value * pow(w.base, RESCUE_DISTANCE[m.cell] * (w.raft_steps if m.aboard else 1.0))
            danger = 0.0
            if m.cell < NUM_CELLS and s.terrain[m.cell] == WATER:
                creature = 0.0
                if m.aboard:
                    if threat[m.cell] & THREAT_SINKS_RAFT:
                        creature += w.sink
                    if threat[m.cell] & THREAT_CAPSIZES:
                        creature += w.capsize
                elif threat[m.cell] & THREAT_EATS_SWIMMER:
                    creature += w.eat
                if creature > 0.0 and exponent[seat] != 1.0:
                    creature = 1.0 - pow(1.0 - creature, exponent[seat]) if creature < 1.0 else 1.0
                danger += creature
            elif m.cell < NUM_CELLS and removable >= 0:
                danger += w.removal * removal_risk(s, m.cell, removable, count)
            worths[i] = worth * (1.0 - danger)
            if add_board:
                estimate[seat] += worths[i]


cdef void threatened_estimate(const void* p, double* out, double removal_weight, double raft_steps,
                              double points=4.0) noexcept nogil:
    """Win shares from ``threatened_worth``'s treasure estimates (a softmax at ``points`` points per e)."""
    cdef const Survive* s = <const Survive*>p
    cdef double estimate[MAX_SEATS]
    cdef double worths[MAX_MEEPLES]
    cdef TideWeights w = TIDE_WEIGHTS
    if s.phase == PH_OVER:
        s_returns(p, out)
        return
    w.removal = removal_weight
    w.raft_steps = raft_steps
    threatened_worth(s, &w, estimate, worths, True)
    shares_of(s, estimate, out, points)


cdef double turns_left(const Survive* s) noexcept nogil:
    """How many turns (any seat's) the game is expected to last from here, counted in Rising Waters: one tile a turn
    while a tile bearing the hourglass remains, two after; the game ends at the third Volcano: of the Volcanoes still
    face down (4 in the Mountain backs), the one that makes three is expected at its order statistic's place among the
    Mountain tiles left (no clock when too few Volcanoes or Mountain tiles are left for it)."""
    cdef int hourglass = s.tiles[BEACH], mountains = s.tiles[MOUNTAIN]
    cdef double later = 0.0
    cdef int needed = 3 - s.volcanoes
    cdef int hidden = BACKS[2][BK_VOLCANO] - s.revealed[2][BK_VOLCANO]
    if s.hourglass_beach_only:
        later = s.tiles[FOREST]
    else:
        hourglass += s.tiles[FOREST]
    if needed <= 0 or hidden < needed or mountains < needed:
        return 1000.0                               # no third Volcano to come: no clock but the Adventurers
    later += needed * (mountains + 1.0) / (hidden + 1.0)   # the needed-th of ``hidden`` spread over the mountains
    return hourglass + later / 2.0


cdef void budgeted(const Survive* s, const double* worth, const double* cost, double floor,
                   double* estimate) noexcept nogil:
    """Scale each board Adventurer's ``worth`` by whether its seat has the movements to bring it home before the game
    ends (``tide``): a seat has 3 movements a turn over its share of ``turns_left``, spent on its Adventurers in order
    of treasure per movement (``cost``: spaces to a Rescue Island, a raft passenger's counted 0.6); an Adventurer the
    budget covers keeps its worth, one it does not keeps ``floor`` of it (Dolphins, rafts carrying three and the
    guess of the game's length all make the budget rough), one it covers in part keeps the share between."""
    cdef double total = turns_left(s), own, left, reach
    cdef double key[MAX_MEEPLES]
    cdef int order[MAX_SEATS][MAX_MEEPLES]
    cdef int count[MAX_SEATS]
    cdef int i, j, k, seat, off, meeples = s.num_colours * MEEPLES_PER_COLOUR
    cdef bint current = s.phase <= PH_RISING     # this turn's Rising Waters is ahead: turn 0 is the active seat's
    for seat in range(s.num_players):
        count[seat] = 0
    for i in range(meeples):                        # each seat's Adventurers by treasure per movement, highest first
        if cost[i] <= 0.0:
            continue
        key[i] = s.meeple[i].value / cost[i]
        seat = seat_of_colour(s, i // MEEPLES_PER_COLOUR)
        j = count[seat]
        while j > 0 and key[order[seat][j - 1]] < key[i]:
            order[seat][j] = order[seat][j - 1]
            j -= 1
        order[seat][j] = i
        count[seat] += 1
    for seat in range(s.num_players):
        off = (seat - s.active + s.num_players - (0 if current else 1)) % s.num_players
        own = (total - off) / s.num_players
        if own < 0.0:
            own = 0.0
        if current and seat == s.active and s.phase == PH_ACTION:
            left = s.moves_left + 3.0 * (own - 1.0 if own > 1.0 else 0.0)
        elif current and seat == s.active and s.phase > PH_ACTION:
            left = 3.0 * (own - 1.0 if own > 1.0 else 0.0)
        else:
            left = 3.0 * own
        for k in range(count[seat]):
            i = order[seat][k]
            reach = left / cost[i]
            if reach >= 1.0:
                reach = 1.0
            elif reach <= 0.0:
                reach = 0.0
            left -= cost[i]
            estimate[seat] += worth[i] * (floor + (1.0 - floor) * reach)


cdef void tide_estimate(const void* p, double* out, const TideWeights* w, double tempo) noexcept nogil:
    """``rafts`` with the clock seen: an Adventurer its seat lacks the movements to rescue before the expected end of
    the game counts for less (``budgeted``); win shares by a softmax at ``w.points`` points per e. With ``tempo``
    each seat's estimate also moves by ``tempo`` points against its place in the round (``tempo_shape``)."""
    cdef const Survive* s = <const Survive*>p
    cdef double estimate[MAX_SEATS]
    cdef double worth[MAX_MEEPLES]
    cdef double cost[MAX_MEEPLES]
    cdef int i
    cdef const Meeple* m
    if s.phase == PH_OVER:
        s_returns(p, out)
        return
    threatened_worth(s, w, estimate, worth, False)
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        cost[i] = 0.0
        if m.status == ST_BOARD:
            cost[i] = RESCUE_DISTANCE[m.cell] * (w.raft_cost if m.aboard else 1.0)
            if cost[i] < 0.6:
                cost[i] = 0.6
    budgeted(s, worth, cost, w.floor, estimate)
    if tempo != 0.0:
        for i in range(s.num_players):
            estimate[i] -= tempo * tempo_shape(s, i)
    shares_of(s, estimate, out, w.points)


cdef void s_tide_heuristic(const void* p, double* out) noexcept nogil:
    """``tide`` (Survive's default): ``tide_estimate`` with ``TIDE_WEIGHTS``."""
    tide_estimate(p, out, &TIDE_WEIGHTS, 0.0)


cdef void s_fitted_heuristic(const void* p, double* out) noexcept nogil:
    """``fitted``: ``tide`` with ``FITTED_WEIGHTS`` (its points per e fitted to greedy games' outcomes). Selectable
    only: it predicts the winner better than ``tide`` and searches worse (-45 Elo at 3,000 iterations, SPRT H0 after
    54 pairs; docs/experiments/survive.md, "Survive: tide's weights fitted to outcomes")."""
    tide_estimate(p, out, &FITTED_WEIGHTS, 0.0)


cdef TideWeights tide_weights_of(int which) noexcept nogil:
    """A copy of the weights of ``tide`` (``which`` 0), ``fitted`` (1), ``horizon`` (2) or ``bold`` (3)."""
    if which == 1:
        return FITTED_WEIGHTS
    if which == 2:
        return HORIZON_WEIGHTS
    if which == 3:
        return BOLD_WEIGHTS
    return TIDE_WEIGHTS


cdef double tempo_shape(const Survive* s, int seat) noexcept nogil:
    """Where ``seat`` stands in the round, as ``tempo`` reads it, in [-1, 1]: -1 when its Action phase is about to
    start (its three movements all to come), rising to +1 over those movements (``tide`` then holds what they gained),
    falling back to -1 over the other seats' 3 (n - 1) movements (what they gain is not yet in ``tide`` either).
    The movements since the seat's own Action phase began are ``u``, from 0 to 3 n; 0 in set-up."""
    cdef int n = s.num_players, r
    cdef double u
    if s.phase < PH_ACTION or s.phase == PH_OVER:
        return 0.0
    r = (seat - s.active + n) % n
    if s.phase == PH_ACTION:
        u = (3.0 - s.moves_left) if r == 0 else 3.0 + 3.0 * (n - 1 - r) + (3.0 - s.moves_left)
    else:
        u = 3.0 if r == 0 else 3.0 + 3.0 * (n - 1 - r) + 3.0
    if u <= 3.0:
        return -1.0 + 2.0 * u / 3.0
    return 1.0 - 2.0 * (u - 3.0) / (3.0 * n - 3.0)


cdef void s_tempo_heuristic(const void* p, double* out) noexcept nogil:
    """``tempo``: ``tide`` with the turn order seen. ``tide`` scores a position as if no seat moved before the next,
    so it underrates the seat whose three movements come next and overrates the seat that has just made them: over
    greedy self-play (benchmarks/phase_bias.py) its share of the win is below the outcome by 0.063 (2 players) or 0.033
    (4 players) at the start of a seat's Action phase and above it by 0.040 or 0.049 once they are made, a swing larger
    than the differences a search ranks moves by. A tree whose lines end at different points of the round compares
    such values. ``tempo`` adds ``TEMPO_POINTS`` times ``-tempo_shape`` to each seat's treasure estimate before the
    softmax (4 points per e), which brings those errors within about 0.02. Selectable only: at 3,000 iterations it lost
    to ``tide`` (-64 Elo, SPRT H0; docs/experiments/survive.md, "Survive: the evaluation's error by the point of the
    round")."""
    tide_estimate(p, out, &TIDE_WEIGHTS, TEMPO_POINTS)


cdef void s_horizon_heuristic(const void* p, double* out) noexcept nogil:
    """``horizon``: ``tide`` with a creature's threat counted over every rival's Creature phase before the
    Adventurer's owner next moves (``HORIZON_WEIGHTS``): with four seats a swimmer of the seat about to move keeps
    ``tide``'s one phase of danger, and one of the seat that has just moved faces three. Selectable only: with four
    seats at 3,000 iterations it lost to ``tide`` (-76 Elo, SPRT H0 after 64 deal groups; docs/benchmarks.md,
    "horizon: a creature's threat over every rival's Creature phase")."""
    tide_estimate(p, out, &HORIZON_WEIGHTS, 0.0)


cdef void s_bold_heuristic(const void* p, double* out) noexcept nogil:
    """``bold``: ``tide`` with the creatures' threats at half weight (``BOLD_WEIGHTS``): a swimmer within a Shark's
    reach loses 0.15 of its worth, not 0.3. Selectable only: with four seats at 3,000 iterations it was level with
    ``tide`` after 113 deal groups (-2 Elo [-37, 30], SPRT 0/30 not decided; docs/experiments/survive.md, "bold: the
    creatures' threats at half weight")."""
    tide_estimate(p, out, &BOLD_WEIGHTS, 0.0)


cdef void s_calm_heuristic(const void* p, double* out) noexcept nogil:
    """``calm``: ``tide`` with win shares from a softmax at 8 points per e instead of 4, so that a seat well ahead
    or behind still sees its moves' differences in its share."""
    cdef TideWeights w = TIDE_WEIGHTS
    w.points = 8.0
    tide_estimate(p, out, &w, 0.0)


cdef void s_danger_heuristic(const void* p, double* out) noexcept nogil:
    """``danger``: treasure with the creatures' reach seen (``threatened_estimate`` without the Rising Waters risk)."""
    threatened_estimate(p, out, 0.0, 1.0)


cdef void s_escape_heuristic(const void* p, double* out) noexcept nogil:
    """``escape``: ``danger``, and an Adventurer on a tile of the thinnest type loses 0.4 of its worth times the
    risk that the tile goes under."""
    threatened_estimate(p, out, 0.4, 1.0)


cdef void s_rafts_heuristic(const void* p, double* out) noexcept nogil:
    """``rafts`` (Survive's default): ``escape`` with a raft passenger's spaces counted 0.6 each."""
    threatened_estimate(p, out, 0.4, 0.6)


cdef void hunted_estimate(const void* p, double* out, double swim_steps) noexcept nogil:
    """``hunt``: ``rafts`` with the creatures' threat read as the attacker's best move instead of a flat 0.3 per
    threatened Adventurer. Before a seat's next turn a rival rolls the creature die (each kind a third of the time) and
    moves the one creature of that kind that hurts the seat most, so the seat's expected loss is a third of, per kind,
    the most it can lose on one space that kind reaches: a Shark takes the space's swimmers, a Sea Serpent its
    swimmers and its raft with every passenger, a Kaiju its raft (half the passengers' worth: they are thrown in the
    water, not lost). Several threatened spaces no longer add up, since one creature moves; two kinds reaching the same
    swimmer do. A swimmer's spaces to a Rescue Island count ``swim_steps`` each (it swims one space a turn)."""
    cdef const Survive* s = <const Survive*>p
    cdef double estimate[MAX_SEATS]
    cdef double swim[MAX_MEEPLES][MAX_SEATS]      # per occupied water space (its slot), per seat
    cdef double aboard[MAX_MEEPLES][MAX_SEATS]
    cdef double best[3][MAX_SEATS]
    cdef uint8_t slot[NUM_CELLS]
    cdef uint8_t reach[64]
    cdef double worth, gain
    cdef int i, c, d, k, n, kind, seat, slots = 0, removable = -1, count = 0
    cdef const Meeple* m
    if s.phase == PH_OVER:
        s_returns(p, out)
        return
    removable = thinnest_land(s, &count)
    memset(slot, 255, NUM_CELLS)
    for seat in range(s.num_players):
        estimate[seat] = 0.0
        for kind in range(3):
            best[kind][seat] = 0.0
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        seat = seat_of_colour(s, i // MEEPLES_PER_COLOUR)
        if m.status == ST_RESCUED:
            estimate[seat] += m.value
        elif m.status == ST_BOARD:
            if m.aboard:
                worth = m.value * DISCOUNT_RAFT[m.cell]
            elif m.cell < NUM_CELLS and s.terrain[m.cell] == WATER:
                worth = m.value * discount(m.cell, swim_steps)
            else:
                worth = m.value * DISCOUNT_WALK[m.cell]
            estimate[seat] += worth
            if m.cell >= NUM_CELLS:
                continue
            if s.terrain[m.cell] == WATER:
                if slot[m.cell] == 255:
                    slot[m.cell] = slots
                    for k in range(s.num_players):
                        swim[slots][k] = 0.0
                        aboard[slots][k] = 0.0
                    slots += 1
                if m.aboard:
                    aboard[slot[m.cell]][seat] += worth
                else:
                    swim[slot[m.cell]][seat] += worth
            elif removable >= 0:
                estimate[seat] -= worth * 0.4 * removal_risk(s, m.cell, removable, count)
    if slots:
        c = next_bit(s.creature_bits, -1)
        while c >= 0:
            for kind in range(3):
                if s.creatures[c][kind] == 0:
                    continue
                n = creature_destinations(s, kind, c, NO_NODE, reach)
                for k in range(n):
                    d = reach[k]
                    if slot[d] == 255:
                        continue
                    for seat in range(s.num_players):
                        if kind == SHARK:
                            gain = swim[slot[d]][seat]
                        elif kind == SERPENT:
                            gain = swim[slot[d]][seat] + aboard[slot[d]][seat]
                        else:
                            gain = 0.5 * aboard[slot[d]][seat]
                        if gain > best[kind][seat]:
                            best[kind][seat] = gain
            c = next_bit(s.creature_bits, c)
        for seat in range(s.num_players):
            estimate[seat] -= (best[0][seat] + best[1][seat] + best[2][seat]) / 3.0
    shares_of(s, estimate, out)


cdef void s_hunt_heuristic(const void* p, double* out) noexcept nogil:
    """``hunt``: ``hunted_estimate`` with a swimmer's spaces counted like a walker's."""
    hunted_estimate(p, out, 1.0)


cdef void s_swim_heuristic(const void* p, double* out) noexcept nogil:
    """``swim``: ``hunt`` with a swimmer's spaces counted twice (one space a turn, where a walker shares 3)."""
    hunted_estimate(p, out, 2.0)


cdef int32_t s_playout_action(const void* p, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """Light playout policy: a uniformly drawn Adventurer move that does not bring it closer to a Rescue Island is
    redrawn once, so playouts walk Adventurers home more often than uniform play does."""
    cdef int32_t a = legal[rng_below(rng, n)]
    cdef Move m = decode(a)
    if m.kind == K_MOVE_ADV and RESCUE_DISTANCE[m.to] >= RESCUE_DISTANCE[m.frm]:
        a = legal[rng_below(rng, n)]
    return a


cdef double prey_at(const Survive* s, int kind, int c, int mover) noexcept nogil:
    """What a move brings ``mover`` at ``c`` in treasure value: the other seats' Adventurers there that it takes, less
    its own. A Shark arriving takes the swimmers, a Sea Serpent everyone there (a Raft's passengers too); removing the
    tile (``kind`` < 0) leaves everyone on it swimming."""
    cdef double total = 0.0
    cdef int i
    cdef const Meeple* m
    if s.adv_at[c] == 0:
        return 0.0
    for i in range(s.num_colours * MEEPLES_PER_COLOUR):
        m = &s.meeple[i]
        if m.status != ST_BOARD or m.cell != c or (kind == SHARK and m.aboard):
            continue
        total += -m.value if seat_of_colour(s, i // MEEPLES_PER_COLOUR) == mover else m.value
    return total


cdef int32_t s_hunting_playout_action(const void* p, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """``hunting``: the light policy, but a Shark or Sea Serpent moves where it takes the most treasure value from the
    other seats (less the mover's own), and Rising Waters takes the tile whose Adventurers bring that most; ties, and a
    Kaiju, at random. So the rivals a playout plays on for ``playout_to=own_turn`` strike as the bots they stand for
    do, not at random."""
    cdef const Survive* s = <const Survive*>p
    cdef int k, ties = 0, kind = -1
    cdef double value, best = -1e300
    cdef int32_t pick = -1
    cdef Move m
    if s.decision == D_PHASE and (s.phase == PH_CREATURE or s.phase == PH_DIE_MOVE) and s.die_type != KAIJU:
        kind = s.die_type
    elif not (s.decision == D_PHASE and s.phase == PH_RISING):
        return s_playout_action(p, legal, n, rng)
    for k in range(n):
        m = decode(legal[k])
        value = prey_at(s, kind, m.to if kind >= 0 else m.frm, s.active)
        if value > best:
            best = value
            pick = legal[k]
            ties = 1
        elif value == best:
            ties += 1
            if rng_below(rng, ties) == 0:               # one of the best at random (reservoir)
                pick = legal[k]
    return pick


cdef enum:
    ACTION_GROUPS = 11  # the slot groups of ``action_slots``


cdef bint first_of_its_kind(const Survive* s, int lo, int i) noexcept nogil:
    """No Adventurer before ``i`` (from ``lo``) is identical to it: the same colour, value, cell, raft and swim, so the
    same move ids (``gen_action_phase`` lists an identical one's moves once)."""
    cdef const Meeple* m = &s.meeple[i]
    cdef const Meeple* o
    cdef int j
    for j in range(lo, i):
        o = &s.meeple[j]
        if (o.status == ST_BOARD and j // MEEPLES_PER_COLOUR == i // MEEPLES_PER_COLOUR and o.aboard == m.aboard
                and o.value == m.value and o.swum == m.swum and o.cell == m.cell):
            return False
    return True


cdef int32_t adventurer_slot(const Survive* s, int lo, int kind, int sub, int r) noexcept nogil:
    """The move of slot ``r`` among the (own Adventurer on the board, neighbour) pairs from ``lo``: a movement
    (``kind`` K_MOVE_ADV, as ``gen_adventurer_moves``) or a Dolphin step (K_DOLPHIN of land ``sub``, as
    ``gen_dolphin_steps``); -1 where that pair is no legal move or an identical Adventurer's slot stands for it."""
    cdef int i = lo
    cdef int c, t
    cdef const Meeple* m
    while s.meeple[i].status != ST_BOARD or r >= NUM_NEIGHBOURS[s.meeple[i].cell]:
        if s.meeple[i].status == ST_BOARD:
            r -= NUM_NEIGHBOURS[s.meeple[i].cell]
        i += 1
    m = &s.meeple[i]
    c = m.cell
    t = NEIGHBOURS[c][r]
    if not first_of_its_kind(s, lo, i):
        return -1
    if kind == K_DOLPHIN:
        if m.aboard or s.terrain[c] != WATER or not dolphin_can_enter(s, t):
            return -1
        return act(K_DOLPHIN, sub, i // MEEPLES_PER_COLOUR, m.value, m.swum, c, t)
    if not can_step(s, m, t):
        return -1
    return act(K_MOVE_ADV, m.aboard, i // MEEPLES_PER_COLOUR, m.value, m.swum, c, t)


cdef int32_t raft_slot(const Survive* s, int seat, int kind, int r) noexcept nogil:
    """The move of slot ``r`` among the (Raft, neighbour) pairs: a step of ``kind`` (K_MOVE_RAFT or K_PADDLES, as
    ``gen_raft_steps``) of a Raft the seat controls, or -1."""
    cdef int c = next_bit(s.raft_bits, -1)
    cdef int t
    while r >= NUM_NEIGHBOURS[c]:
        r -= NUM_NEIGHBOURS[c]
        c = next_bit(s.raft_bits, c)
    t = NEIGHBOURS[c][r]
    if raft_can_enter(s, t) and controls_raft(s, seat, c):
        return act(kind, 0, 0, 0, 0, c, t)
    return -1


cdef int32_t creature_slot(const Survive* s, int seat, int first_kind, int r, int per, int land) noexcept nogil:
    """The move of slot ``r`` among (creature from ``first_kind`` on, its cell) pairs, ``per`` slots each: with
    ``per`` = NUM_CELLS a Dive (``r % per`` the empty Water space it goes to), with 1 a Repellent of ``land`` (where
    the creature concerns the seat); -1 where the slot is no legal move."""
    cdef int pair = r // per
    cdef int kind, c, i
    for kind in range(first_kind, KAIJU + 1):
        c = next_bit(s.creature_bits, -1)
        while c >= 0:
            if s.creatures[c][kind]:
                if pair == 0:
                    if per == 1:
                        return act(K_REPEL, land, 0, kind, 0, c, 0) if seat_concerned(s, seat, KAIJU, c) else -1
                    i = r % per
                    if dive_can_enter(s, c, i):
                        return act(K_DIVE, kind, 0, 0, 0, c, i)
                    return -1
                pair -= 1
            c = next_bit(s.creature_bits, c)
    return -1


cdef int action_slots(const Survive* s, int* sizes) noexcept nogil:
    """The slots of ``draw_action_phase``, in ``gen_action_phase``'s groups (``sizes``: ACTION_GROUPS counts):
    (own Adventurer on the board, neighbour) and (Raft, neighbour) pairs while movements are left, the end of the
    movements, and each Ability tile's options (Paddles: Raft and neighbour; Dolphin: Adventurer and neighbour; Dive:
    creature and space; Die; Repellent: Shark or Kaiju). Returns the total."""
    cdef int seat = s.active
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int hi = lo + colours_per_seat(s) * MEEPLES_PER_COLOUR
    cdef int walkers = 0, rafts = 0, dives = 0, repels = 0
    cdef int total = 0, g, i, c, kind, land
    for i in range(lo, hi):
        if s.meeple[i].status == ST_BOARD:
            walkers += NUM_NEIGHBOURS[s.meeple[i].cell]
    c = next_bit(s.raft_bits, -1)
    while c >= 0:
        rafts += NUM_NEIGHBOURS[c]
        c = next_bit(s.raft_bits, c)
    if (s.held[seat][1][BK_DIVE - FIRST_ABILITY] or s.held[seat][0][BK_REPELLENT - FIRST_ABILITY]
            or s.held[seat][1][BK_REPELLENT - FIRST_ABILITY]):
        c = next_bit(s.creature_bits, -1)
        while c >= 0:
            for kind in range(KAIJU + 1):
                if s.creatures[c][kind]:
                    dives += 1
                    repels += kind >= SHARK
            c = next_bit(s.creature_bits, c)
    sizes[0] = walkers if s.moves_left > 0 else 0
    sizes[1] = rafts if s.moves_left > 0 else 0
    sizes[2] = 1                                                    # the end of the movements
    sizes[3] = rafts if s.held[seat][0][BK_PADDLES - FIRST_ABILITY] else 0
    for land in range(2):
        sizes[4 + land] = walkers if s.held[seat][land][BK_DOLPHIN - FIRST_ABILITY] else 0
        sizes[7 + land] = 1 if s.held[seat][land][BK_DIE - FIRST_ABILITY] else 0
        sizes[9 + land] = repels if s.held[seat][land][BK_REPELLENT - FIRST_ABILITY] else 0
    sizes[6] = dives * NUM_CELLS if s.held[seat][1][BK_DIVE - FIRST_ABILITY] else 0
    for g in range(ACTION_GROUPS):
        total += sizes[g]
    return total


cdef int32_t draw_action_phase(const Survive* s, const int* sizes, int total, Rng* rng) noexcept nogil:
    """One Action-phase move drawn uniformly from what ``gen_action_phase`` lists, without listing it: a slot drawn
    among ``action_slots``'s is kept when it is a legal move (for an Adventurer, the first of its identical ones: the
    same move id), else drawn again, so each legal move has one slot and the same chance."""
    cdef int seat = s.active
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int g, r
    cdef int32_t a
    while True:
        r = rng_below(rng, total)
        g = 0
        while r >= sizes[g]:
            r -= sizes[g]
            g += 1
        if g == 0:
            a = adventurer_slot(s, lo, K_MOVE_ADV, 0, r)
        elif g == 1:
            a = raft_slot(s, seat, K_MOVE_RAFT, r)
        elif g == 2:
            a = act(K_END, 0, 0, 0, 0, 0, 0)
        elif g == 3:
            a = raft_slot(s, seat, K_PADDLES, r)
        elif g <= 5:
            a = adventurer_slot(s, lo, K_DOLPHIN, g - 4, r)
        elif g == 6:
            a = creature_slot(s, seat, SERPENT, r, NUM_CELLS, 0)
        elif g <= 8:
            a = act(K_DIE, g - 7, 0, 0, 0, 0, 0)
        else:
            a = creature_slot(s, seat, SHARK, r, 1, g - 9)
        if a >= 0:
            return a


cdef int32_t s_playout_draw(const void* p, Rng* rng) noexcept nogil:
    """``s_playout_action``'s move drawn straight from the state, with its chances, in the Action phase (the moves
    most playout steps choose among, and the longest list); -1 elsewhere (the moves are listed there)."""
    cdef const Survive* s = <const Survive*>p
    cdef int sizes[ACTION_GROUPS]
    cdef int total
    cdef int32_t a
    cdef Move m
    if (s.to_move < 0 or s.decision == D_BOARD or s.decision == D_REACT or s.decision == D_KAIJU
            or s.decision == D_CONTINUE or s.phase != PH_ACTION):
        return -1
    total = action_slots(s, sizes)
    a = draw_action_phase(s, sizes, total, rng)
    m = decode(a)
    if m.kind == K_MOVE_ADV and RESCUE_DISTANCE[m.to] >= RESCUE_DISTANCE[m.frm]:
        a = draw_action_phase(s, sizes, total, rng)
    return a


cdef inline bint near(int a, int b) noexcept nogil:
    """The same node or neighbours."""
    cdef int k
    if a == b:
        return True
    for k in range(NUM_NEIGHBOURS[a]):
        if NEIGHBOURS[a][k] == b:
            return True
    return False


cdef bint s_redundant(const void* p, int32_t previous, int32_t action) noexcept nogil:
    """Two movements in one Action phase commute when everything they touch lies apart: each is an Adventurer's or a
    Raft's step between nodes on the board (not to a Rescue Island: the last Adventurer leaving the board ends the
    seat's movements), and no node of one is a node of the other or next to it (boarding, room on a raft, a raft's
    passengers and control are all decided on the nodes a step touches), and neither steps where a creature is (an
    interaction, maybe a reaction to ask, comes with that step). Either order then reaches the same position
    with the same moves legal, so the search keeps the ascending one: ``action`` right after ``previous`` is redundant
    when the two commute and ``action`` has the smaller id."""
    cdef Move a, b
    if action >= previous:
        return False
    a = decode(action)
    b = decode(previous)
    if (a.kind != K_MOVE_ADV and a.kind != K_MOVE_RAFT) or (b.kind != K_MOVE_ADV and b.kind != K_MOVE_RAFT):
        return False
    if a.to >= FIRST_RESCUE or b.to >= FIRST_RESCUE:
        return False
    if creatures_at(<const Survive*>p, a.to) or creatures_at(<const Survive*>p, b.to):
        return False                              # an interaction (and a reaction to ask) comes with the step
    return not (near(a.frm, b.frm) or near(a.frm, b.to) or near(a.to, b.frm) or near(a.to, b.to))


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
