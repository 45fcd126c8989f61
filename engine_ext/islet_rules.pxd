# cython: language_level=3
"""Islet's C interface: constants, the state struct, action packing and the rules functions the Python-facing module
(``islet.pyx``) calls. The rules and the game table are ``islet_rules.pyx`` (one C unit)."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint64_t

from engine_ext.core cimport GameVTable

cdef enum:
    MAX_SEATS = 4
    MAX_CELLS = 192             # land <= 90 and a connected islet of n tiles has <= n + 2 sea cells (two islets: +4)
    NO_CELL = 255               # also "the pawn is in the sea"
    NUM_TILES = 90
    NUM_TYPES = 9               # tile type = terrain * 3 + nest
    NUM_RES = 6                 # resources: terrain water, sand, clay (0-2), nest leaves, branches, flowers (3-5)
    STACK_SIZE = 12
    MAX_HAND = 4
    MAX_UNGUARANTEED = 8
    MAX_GUARANTEED = 2          # per resource type
    NUM_CARDS = 13              # solo day/night cards, numbered 1..13
    MAX_ROUNDS = 200            # safeguard: a game ends after this many rounds (turns, solo)
    MAX_ACTIONS = 8192
    HIDDEN = 15                 # the type of a drawn tile, as others see the draw
    CELL_HASH = 512             # open-addressing table from (x, y) to cell index

    # terrains and nests
    WATER = 0
    SAND = 1
    CLAY = 2
    LEAVES = 0
    BRANCHES = 1
    FLOWERS = 2

    # phases
    PH_SETUP_ISLET = 0          # chance: the start islet's tiles, cell by cell
    PH_SETUP_CARDS = 1          # chance (solo): the four day/night cards
    PH_SETUP_HAND = 2           # chance: four tiles into each hand, seat by seat
    PH_SETUP_PAWN = 3           # solo: the player chooses the pawn's starting tile
    PH_TURN = 4                 # the active seat starts its turn: first placement, first move step, pass, removal
    PH_EXPLORE = 5              # a 2nd-4th placement or "stop exploring"
    PH_DRAW = 6                 # chance: refill the active hand to 4
    PH_DISCARD = 7              # return unguaranteed resources down to 8
    PH_REMOVE = 8               # chance (solo): tiles removed from the bag at the start of a Move
    PH_MOVE = 9                 # a move step or "end move"
    PH_REFILL = 10              # chance (solo): reveal a card beside the other islet
    PH_OVER = 11

    # action kinds (bits 27..30 of an action id)
    K_DEAL = 0                  # chance: a tile leaves the bag (islet set-up, a hand); type, or HIDDEN
    K_REVEAL = 1                # chance: a day/night card
    K_REMOVE_DRAW = 2           # chance: a tile removed from the bag (solo)
    K_START = 3                 # solo set-up: the pawn's starting cell
    K_PLACE = 4                 # explore: hand tile type onto a cell
    K_STOP = 5                  # explore: place no more tiles
    K_RETURN = 6                # return an unguaranteed resource (above 8)
    K_ADVANCE = 7               # move: advance to a cell with a payment
    K_LAY = 8                   # move: lay an egg with a payment and a guarantee / release choice
    K_END = 9                   # end the move (a pass when it has no step)
    K_REMOVE_HAND = 10          # solo: remove three hand tiles at the start of a Move
    K_REMOVE_BAG = 11           # solo: remove three tiles from the bag at the start of a Move

    # K_LAY extra field
    X_NONE = 6                  # no guaranteed resource is gained (or a last free egg is laid)


cdef struct Cell:
    int16_t x
    int16_t y
    uint8_t height              # 0: a sea cell
    uint8_t top                 # type of the top tile; 255 on a sea cell
    uint8_t islet               # land: its islet (0 or 1); sea: bit per islet it touches
    int8_t egg                  # owner of the egg on it, or -1
    uint8_t nb[3]               # edge neighbours (cell index or NO_CELL), in the order left, right, vertical


cdef struct Seat:
    uint8_t hand[NUM_TYPES]
    uint8_t hand_n
    uint8_t cards[NUM_RES]      # unguaranteed resources
    uint8_t guar[NUM_RES]       # guaranteed resources (each under an egg)
    uint8_t used[NUM_RES]       # guaranteed resources spent this turn
    uint8_t free_eggs
    uint8_t laid
    uint8_t pawn                # cell, or NO_CELL in the sea


cdef struct Islet:
    int8_t num_players
    int8_t solo
    int8_t phase
    int8_t active
    int8_t placed               # tiles placed in this Explore
    int8_t left                 # chance events left in the phase (set-up deals, draws, removals, refills)
    int8_t won                  # solo: 1 won, 0 lost, -1 not decided
    int8_t eggs_start           # eggs per player
    uint8_t last_cell           # the last tile placed in this Explore
    uint8_t num_cells
    uint8_t log_n               # tiles placed on the islets so far (set-up included)
    int8_t refill_islet         # solo: the islet whose cards are being refilled
    int16_t round               # rounds started (solo: turns started), from 1
    int16_t final_round         # the game ends after this round; -1 until a trigger
    int16_t steps               # move steps taken this turn
    int16_t bag_n
    uint16_t deck               # solo: bit k-1 set while card k is in the deck
    uint8_t bag[NUM_TYPES]
    uint8_t removed[NUM_TYPES]  # solo: tiles removed from the game
    uint8_t stacks[NUM_RES]
    uint8_t cards[2][2]         # solo: the day (islet 0) and night (islet 1) cards, 0 = empty slot
    uint64_t visited[3]         # cells the pawn stood on in this Move since it last laid an egg
    Seat seat[MAX_SEATS]
    uint8_t log_cell[NUM_TILES]
    uint8_t log_type[NUM_TILES]
    uint8_t cell_at[CELL_HASH]  # cell index + 1 by hashed (x, y), 0: empty slot
    Cell cell[MAX_CELLS]


# ---------------------------------------------------------------------------------------------------------------------
# Action ids: kind(4) at bits 27..30, then a payload by kind:
#   K_PLACE: type << 8 | cell;  K_ADVANCE: cell << 12 | pay12;  K_START: cell;  K_RETURN: resource
#   K_LAY: slot << 25 | extra << 22 | pay22;  K_REMOVE_HAND: t3 << 8 | t2 << 4 | t1 (t1 <= t2 <= t3)
#   K_DEAL, K_REMOVE_DRAW: type;  K_REVEAL: card number
# pay12 (advance, terrain only): for each terrain t, unguaranteed spent << 4t | guaranteed spent << 4t+2.
# pay22 (lay): nest unguaranteed | nest guaranteed << 2 | per terrain t: (unguaranteed | guaranteed << 4) << 4+6t.
# ---------------------------------------------------------------------------------------------------------------------
cdef inline int32_t act(int kind, int payload) noexcept nogil:
    return (kind << 27) | payload


cdef inline int a_kind(int32_t a) noexcept nogil:
    return (a >> 27) & 15


cdef inline int a_payload(int32_t a) noexcept nogil:
    return a & ((1 << 27) - 1)


cdef struct Pay:
    int tu[3]                   # unguaranteed terrain cards returned, per terrain
    int tg[3]                   # guaranteed terrain resources spent, per terrain
    int nu                      # K_LAY: unguaranteed nest cards of the cell's nest returned
    int ng                      # K_LAY: guaranteed resources of the cell's nest spent


# One decoded action: the rules, the move text and its parser read these fields, never the raw bits.
cdef struct Move:
    int kind
    int cell                    # K_PLACE, K_ADVANCE, K_START
    int type                    # K_PLACE, K_DEAL, K_REMOVE_DRAW tile type; K_RETURN resource; K_REVEAL card
    int extra                   # K_LAY: guarantee or release resource, or X_NONE
    int slot                    # K_LAY (solo): which satisfied card of the islet is discarded
    int removed[3]              # K_REMOVE_HAND
    Pay pay                     # K_ADVANCE, K_LAY


cdef inline int terrain_of(int t) noexcept nogil:
    return t // 3


cdef inline int nest_of(int t) noexcept nogil:
    return t % 3


cdef inline int unguaranteed(const Seat* p) noexcept nogil:
    return p.cards[0] + p.cards[1] + p.cards[2] + p.cards[3] + p.cards[4] + p.cards[5]


cdef inline int eggs_left(const Seat* p) noexcept nogil:
    return p.free_eggs + p.guar[0] + p.guar[1] + p.guar[2] + p.guar[3] + p.guar[4] + p.guar[5]


cdef inline bint is_land(const Islet* s, int c) noexcept nogil:
    return c != NO_CELL and s.cell[c].height > 0


# ---------------------------------------------------------------------------------------------------------------------
# Defined in islet_rules.pyx
# ---------------------------------------------------------------------------------------------------------------------
cdef const GameVTable* islet_table() noexcept nogil
cdef Move decode(int32_t a) noexcept nogil
cdef int32_t encode(const Move* m) noexcept nogil
cdef void init_game(Islet* s, int players, int solo, int eggs) noexcept nogil
cdef int find_cell(const Islet* s, int x, int y) noexcept nogil
cdef int new_cell(Islet* s, int x, int y) noexcept nogil
cdef int add_tile(Islet* s, int c, int t) noexcept nogil
cdef int nest_of_pair(int a, int b) noexcept nogil
cdef bint card_satisfied(const Islet* s, int card, int islet, int c) noexcept nogil
cdef int satisfied_slots(const Islet* s, int c, int* slots) noexcept nogil
cdef int i_current_player(const void* p) noexcept nogil
cdef int i_legal_actions(const void* p, int32_t* out) noexcept nogil
cdef void i_scores(const void* p, int32_t* out) noexcept nogil
