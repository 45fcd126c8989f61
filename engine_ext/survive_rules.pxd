# cython: language_level=3
"""Survive The Island's C interface: constants, the state struct, action packing and the rules functions the
Python-facing module (``survive.pyx``) calls. The rules themselves, with the game table, are ``survive_rules.pyx``
(one C unit, so the hot path is compiled together); the board's geometry is ``survive_board.py``."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy

from engine_ext.core cimport GameVTable

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
    NUM_VALUE_KINDS = 5         # treasure values 1-5
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
    uint8_t tiles[MOUNTAIN + 1]          # island tiles left on the board by land (beach, forest, mountain); 0 unused
    uint8_t raft[NUM_CELLS]
    uint8_t creatures[NUM_CELLS][4]      # serpent, shark, kaiju, padding (one 32-bit load tests "any")
    uint8_t adv_at[NUM_CELLS]
    uint8_t aboard_at[NUM_CELLS]
    Meeple meeple[MAX_MEEPLES]
    uint8_t held[MAX_SEATS][2][NUM_ABILITIES]   # Ability tiles held: seat, land (beach, forest), ability
    uint8_t revealed[3][NUM_BACKS]               # face-up backs: Effects revealed and Abilities used
    # A searching seat's beliefs about other colours' treasure values (``weigh_values``): per Adventurer (storage
    # index), the weight of each value 1-5, read only for the colours whose bit ``value_weighted`` holds.
    float value_weight[MAX_MEEPLES][NUM_VALUE_KINDS]
    uint8_t value_weighted   # bit per colour: its rows are set (determinize then deals by them and clears the bit)


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


# One decoded action: every rule (``s_apply``), the move text and its parser read these fields, never the raw bits.
cdef struct Move:
    int kind                # K_*
    int sub                 # land, creature kind or "aboard", by kind (docs/rules/survive.md, move grammar)
    int colour
    int value               # treasure value (0: not seen), or the repelled creature for K_REPEL
    int flag                # "has swum this turn"
    int frm                 # node, or NO_NODE
    int to                  # node, NO_NODE ("out"), or the revealed back for K_REVEAL


cdef inline Move decode(int32_t a) noexcept nogil:
    cdef Move m
    m.kind = a_kind(a)
    m.sub = a_sub(a)
    m.colour = a_colour(a)
    m.value = a_value(a)
    m.flag = a_flag(a)
    m.frm = a_from(a)
    m.to = a_to(a)
    return m


cdef inline int32_t encode(const Move* m) noexcept nogil:
    return act(m.kind, m.sub, m.colour, m.value, m.flag, m.frm, m.to)


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


cdef inline bint seat_has_meeples_on_board(const Survive* s, int seat) noexcept nogil:
    cdef int i
    cdef int lo = first_colour(s, seat) * MEEPLES_PER_COLOUR
    cdef int hi = lo + colours_per_seat(s) * MEEPLES_PER_COLOUR
    for i in range(lo, hi):
        if s.meeple[i].status == ST_BOARD:
            return True
    return False


# ---------------------------------------------------------------------------------------------------------------------
# Defined in survive_rules.pyx
# ---------------------------------------------------------------------------------------------------------------------
cdef const GameVTable* survive_table() noexcept nogil

# The weights of the ``tide`` family of evaluations (``tide_estimate``): each is a number the evaluation was built
# around, named so that ``benchmarks/fit_tide.py`` can fit them to game outcomes.
cdef struct TideWeights:
    double base           # the distance discount per space to a Rescue Island
    double raft_steps     # a raft passenger's spaces count this many each (discount)
    double eat            # worth lost by a swimmer a Shark or Sea Serpent can reach
    double sink           # worth lost by a raft passenger a Sea Serpent can reach
    double capsize        # worth lost by a raft passenger a Kaiju can reach
    double removal        # worth lost times the risk that the tile under an Adventurer goes under next
    double floor          # the share an Adventurer out of its seat's reach keeps (``budgeted``)
    double raft_cost      # a raft passenger's spaces count this many movements each (``budgeted``)
    double points         # the softmax's points per e
    double horizon        # 0: a creature's reach counts one Creature phase; 1: every rival's before the owner moves

cdef void tide_estimate(const void* p, double* out, const TideWeights* w, double tempo) noexcept nogil
cdef TideWeights tide_weights_of(int which) noexcept nogil
cdef void s_tide_heuristic(const void* p, double* out) noexcept nogil
cdef int slot_key(const Meeple* m) noexcept nogil
cdef void sort_entries(int* keys, uint8_t* values, int n) noexcept nogil
cdef void match_dolphin_value(Survive* s) noexcept nogil
cdef int backs_left(const Survive* s, int land, int back) noexcept nogil
cdef void settle(Survive* s) noexcept nogil
