# cython: language_level=3
"""Small Islands' C interface: constants, the state struct, action packing and the rules functions the Python-facing
module (``small_islands.pyx``) calls. The rules and the game table are ``small_islands_rules.pyx`` (one C unit)."""

from libc.stdint cimport int8_t, int16_t, int32_t, uint8_t, uint16_t, uint64_t

from engine_ext.core cimport GameVTable

cdef enum:
    MAX_SEATS = 4
    NUM_LAND = 56               # Landscape tiles 0..55; Starting tiles 56..59; Ship tiles 60..63 (by colour)
    FIRST_START = 56
    FIRST_SHIP = 60
    NUM_TILE_IDS = 64
    MAX_PLACED = 64
    MAX_REGIONS = 128           # two per placed tile
    NO_SLOT = 255
    SLOT_HASH = 128             # open addressing from (x, y) to placed slot
    OFFSET = 64                 # coordinates are stored as x + 64, y + 64 in action ids (7 bits each)
    NUM_OBJECTIVES = 12
    NUM_DISC_VALUES = 4         # discovery token values 7, 6, 5, 4 (index 0..3)
    HOUSES_EACH = 8
    HOUSES_IN_HAND = 4
    NAV_SIZE = 6
    DISPLAY = 3
    HAND = 2
    MAX_ACTIONS = 8192
    MAX_OPEN = 200              # empty squares beside the tiles (each tile opens at most 3)
    HIDDEN_TILE = 63
    HIDDEN_CARD = 15

    # icons, in region icon counts
    I_FL = 0                    # flower
    I_FR = 1                    # fruit
    I_LE = 2                    # leaf
    I_T = 3                     # temple
    I_H = 4                     # house mark
    I_P = 5                     # port
    NUM_ICONS = 6

    # edges
    E_N = 1
    E_E = 2
    E_S = 4
    E_W = 8

    # phases
    PH_SETUP_DISPLAY = 0        # chance: the face-up tiles (set-up and each Preparation)
    PH_SETUP_HAND = 1           # chance: 2 tiles into each hand (hidden)
    PH_SETUP_OBJ = 2            # chance: each seat's secret Objective (hidden)
    PH_OBJ_DRAW = 3             # chance: a seat draws 2 Objectives (hidden)
    PH_OBJ_KEEP = 4             # that seat keeps one for this round and one for the next
    PH_TURN = 5                 # Exploration: take a face-up tile, or land
    PH_PLACE = 6                # place a hand tile (or discard one when none fits)
    PH_BONUS = 7                # a Bonus token, or none
    PH_REFILL = 8               # chance: the emptied display slot from the Navigation deck
    PH_HARVEST = 9              # the harvesting seat places Houses, or ends its Harvest
    PH_DISC_DRAW = 10           # chance: Discovery tokens drawn for a Reward (hidden)
    PH_DISC_KEEP = 11           # keep one of them
    PH_OVER = 12

    # action kinds (bits 26..30)
    K_DEAL = 0                  # chance: a Landscape tile leaves the unseen pool (display or hand); id or HIDDEN_TILE
    K_DRAW_OBJ = 1              # chance: an Objective card drawn; card or HIDDEN_CARD
    K_DRAW_DISC = 2             # chance: a Discovery token drawn; value index, or 7 hidden
    K_OBJ_KEEP = 3              # keep card a for this round and card b for the next; the third returns on top
    K_TAKE = 4                  # take face-up slot k into hand
    K_PLACE = 5                 # place a hand tile: id, rotation, x, y
    K_DISCARD = 6               # no hand tile fits anywhere: discard one (ruling)
    K_BONUS = 7                 # a Bonus token: token, side, cover, region, x, y
    K_NO_BONUS = 8
    K_LAND = 9                  # place a Ship: colour, x, y
    K_HOUSE = 10                # a House on island (its label)
    K_HARVEST_DONE = 11
    K_KEEP_DISC = 12            # keep a drawn Discovery token (value index)


cdef struct Placed:
    uint8_t id
    int8_t x
    int8_t y
    uint8_t rot
    uint8_t edges               # land edges after rotation (N 1, E 2, S 4, W 8)
    uint8_t nreg
    uint8_t reg_edges[2]
    uint8_t ports               # ports on the tile, printed and Bonus tokens (at most 2)


cdef struct Region:
    uint8_t parent              # union-find over regions (region 2 * slot + r); the root is the smallest index
    uint8_t icons[NUM_ICONS]    # this region's icons, Bonus tokens included
    uint8_t isl[NUM_ICONS]      # root only: the island's icon counts
    uint8_t tiles               # root only: tiles the island spans
    uint8_t houses              # root only: Houses on the island
    uint8_t by_seat[MAX_SEATS]  # root only: Houses per seat
    uint8_t harvested           # root only: bit per seat that put a House here in the current Harvest


cdef struct SmallIslands:
    int8_t num_players
    int8_t phase
    int8_t active               # the seat to act (explorer, objective chooser, harvester)
    int8_t start_player
    int8_t lander               # the seat that landed this round, -1 before
    int8_t round                # from 1
    int8_t harvest_left         # seats still to harvest this round
    int8_t final               # the Harvest in progress ends the game
    int8_t left                 # chance events left in the phase
    int8_t obj_seats_left       # seats still to draw Objectives this Preparation
    int8_t taken_slot           # the display slot emptied this turn, -1 when none
    int8_t disc_left            # Discovery tokens still to draw for the current Reward
    int8_t deck_n               # Landscape deck (unseen)
    int8_t nav_n                # Navigation deck (unseen)
    uint64_t pool               # ids of the unseen Landscape tiles (deck and Navigation deck)
    uint64_t gone               # tiles discarded out of the game (nothing fitted)
    uint8_t display[DISPLAY]    # face-up tiles, NO_SLOT when empty
    uint64_t hand[MAX_SEATS]
    uint64_t known[MAX_SEATS]   # hand tiles every seat knows (taken from the display)
    uint8_t hand_n[MAX_SEATS]
    uint8_t tokens[MAX_SEATS]   # Bonus tokens left, bit per token (flower, fruit, leaf, wild)
    uint8_t houses_hand[MAX_SEATS]
    uint8_t houses_stock[MAX_SEATS]
    uint8_t houses_placed[MAX_SEATS]
    int16_t pp[MAX_SEATS]       # Prestige Points scored during the game (Discovery tokens and Ports come at the end)
    uint8_t disc[MAX_SEATS][NUM_DISC_VALUES]   # kept Discovery tokens (hidden from others)
    uint8_t disc_pile[NUM_DISC_VALUES]
    uint8_t disc_drawn[NUM_DISC_VALUES]        # drawn for the current Reward, not yet decided (the drawer's)
    int8_t obj_cur[MAX_SEATS]   # this round's Objective (-1: none)
    int8_t obj_next[MAX_SEATS]  # the one kept for the next round
    int8_t obj_drawn[2]         # the active seat's two fresh draws in Preparation
    int8_t revealed[MAX_SEATS]  # Objectives revealed in this round's Harvest (-1: not yet)
    uint16_t obj_deck           # cards in the Objective deck
    int8_t obj_top              # the card returned on top of the deck, -1 when unknown
    int8_t obj_top_by           # the seat that returned it
    uint8_t ships               # bit per colour placed
    uint8_t ship_slot[MAX_SEATS]
    int16_t turn                # placements made (the tie-break "placed a tile last")
    int16_t last_place[MAX_SEATS]
    uint8_t num_placed
    uint64_t two_regions        # slots holding a tile with two land regions
    uint8_t num_open
    uint16_t open_key[MAX_OPEN]  # the open squares, ascending by (y, x) as (y + 64) << 8 | (x + 64)
    uint8_t open_touch[MAX_OPEN]  # sides of the square that touch a tile (N 1, E 2, S 4, W 8)
    uint8_t open_need[MAX_OPEN]  # those of them that touch Land (a tile must show Land exactly there)
    uint8_t slot_order[MAX_PLACED]  # placed slots ascending by (y, x)
    uint8_t slot_at[SLOT_HASH]  # placed slot + 1 by hashed (x, y)
    uint8_t region_houses[MAX_REGIONS]  # Houses on each region's marks, 2 bits per seat (for recounts)
    Placed placed[MAX_PLACED]
    Region region[MAX_REGIONS]
    # Not part of the position: how a searching seat weighs each other seat's unrevealed Objective for this round
    # (``determinize`` deals it in proportion; all 0: uniformly). Set on the search's copy only (``weigh_objectives``),
    # never on a game's state, and left out of the JSON form and equality.
    float obj_weight[MAX_SEATS][NUM_OBJECTIVES]


cdef inline int32_t act(int kind, int payload) noexcept nogil:
    return (kind << 26) | payload


cdef inline int a_kind(int32_t a) noexcept nogil:
    return (a >> 26) & 31


cdef inline int a_payload(int32_t a) noexcept nogil:
    return a & ((1 << 26) - 1)


# One decoded action: the rules, the move text and its parser read these fields, never the raw bits.
cdef struct Move:
    int kind
    int tile                    # K_PLACE, K_DISCARD, K_DEAL: tile id
    int rot                     # K_PLACE: quarter turns clockwise
    int x
    int y
    int token                   # K_BONUS: 0 flower, 1 fruit, 2 leaf, 3 wild
    int side                    # K_BONUS: 0 port, 1 flower, 2 fruit, 3 leaf
    int cover                   # K_BONUS: 0 none, else the resource icon covered (1 flower, 2 fruit, 3 leaf)
    int region                  # K_BONUS: region of the tile (0 or 1)
    int colour                  # K_LAND
    int a                       # K_OBJ_KEEP this round's card, K_DRAW_OBJ card, K_TAKE slot, K_HOUSE island,
    int b                       # K_OBJ_KEEP next round's card         K_DRAW_DISC / K_KEEP_DISC value index


# ---------------------------------------------------------------------------------------------------------------------
# Defined in small_islands_rules.pyx
# ---------------------------------------------------------------------------------------------------------------------
cdef const GameVTable* small_islands_table() noexcept nogil
cdef Move decode(int32_t a) noexcept nogil
cdef int32_t encode(const Move* m) noexcept nogil
cdef void init_game(SmallIslands* s, int players) noexcept nogil
cdef int find_slot(const SmallIslands* s, int x, int y) noexcept nogil
cdef int place_tile(SmallIslands* s, int tile, int rot, int x, int y) noexcept nogil
cdef int root_of(const SmallIslands* s, int r) noexcept nogil
cdef void set_tables(int tile, int nreg, int e0, int e1, const int* icons0, const int* icons1) noexcept nogil
cdef int ports_around(const SmallIslands* s, int colour) noexcept nogil
cdef int final_score(const SmallIslands* s, int seat) noexcept nogil
cdef bint mission_met(const SmallIslands* s, int mission, int root) noexcept nogil
cdef int ss_current_player(const void* p) noexcept nogil
cdef bint fits(const SmallIslands* s, int edges, int x, int y) noexcept nogil
cdef void rebuild_islands(SmallIslands* s) noexcept nogil
cdef int objective_evidence(const SmallIslands* s, int mover, int32_t a, double* out) noexcept nogil
