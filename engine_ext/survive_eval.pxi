# Included by survive_rules.pyx (one compilation unit: the evaluations call the rules' helpers inline).
# The evaluations (``heuristic`` and its named alternatives): what a position is worth to each seat, as a win share
# estimate from the treasure on the board, its distance from the Rescue Islands and the creatures' threats.


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
