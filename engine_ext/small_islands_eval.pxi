# Included by small_islands_rules.pyx (one compilation unit: the evaluations call the rules' queries inline).
# The evaluations (``heuristic``, ``missions``) and the playout policies (light, purposeful, by Objectives): what
# a position is worth to each seat, and how a playout picks its moves.


cdef void ss_utility_bounds(const void* ptr, double* lowest, double* highest) noexcept nogil:
    lowest[0] = 0.0
    highest[0] = 1.0


cdef void softmax_shares(const double* est, int players, double* out) noexcept nogil:
    """Win shares from estimated final scores: a softmax at 5 PP per e."""
    cdef double best = -1e9, total = 0.0
    cdef int i
    for i in range(players):
        if est[i] > best:
            best = est[i]
    for i in range(players):
        out[i] = exp((est[i] - best) / 5.0)
        total += out[i]
    for i in range(players):
        out[i] /= total


cdef void ss_heuristic(const void* ptr, double* out) noexcept nogil:
    """Win shares from the score so far plus what the Houses in hand may still earn (3 PP each while rounds remain),
    by a softmax at 5 PP per e."""
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef double est[MAX_SEATS]
    cdef int i, rounds_left = 4 - popcount64(s.ships)
    if s.phase == PH_OVER:
        ss_returns(ptr, out)
        return
    for i in range(s.num_players):
        est[i] = final_score(s, i) + (3.0 * s.houses_hand[i] if rounds_left > 0 else 0.0) + 0.1 * s.houses_placed[i]
    softmax_shares(est, s.num_players, out)


cdef double harvest_value(const SmallIslands* s, int seat, int card, int* houses) noexcept nogil:
    """What ``seat`` would score if it harvested now with Objective ``card``: the best Rewards over the islands meeting
    the Mission that it may still build on (2+ tiles, a free House mark, none of its Houses placed there in this
    Harvest), one House each, as many as it has Houses in hand. A Discovery Reward counts 5.5 (the tokens' mean) and
    0.5 more per further temple (the best of the drawn tokens is kept). ``houses``: the Houses that uses."""
    cdef double best[HOUSES_IN_HAND]
    cdef double v, t
    cdef int h = s.houses_hand[seat], r, k, mission, reward, kept = 0
    houses[0] = 0
    if card < 0 or h == 0:
        return 0.0
    if h > HOUSES_IN_HAND:
        h = HOUSES_IN_HAND
    mission = OBJ_MISSION[card]
    reward = OBJ_REWARD[card]
    for r in range(2 * s.num_placed):
        if not is_island_root(s, r) or s.placed[r >> 1].id >= FIRST_SHIP:
            continue
        if not (s.region[r].tiles >= 2 and s.region[r].isl[I_H] > s.region[r].houses
                and not (s.region[r].harvested >> seat) & 1 and mission_met(s, mission, r)):
            continue
        if reward == 7:
            v = 5.5 + 0.5 * (s.region[r].isl[I_T] - 1) if s.region[r].isl[I_T] > 0 else 0.0
        else:
            v = reward_points(s, reward, r)
        if kept < h:                      # keep the h best, in descending order
            k = kept
            kept += 1
        elif v > best[h - 1]:
            k = h - 1
        else:
            continue
        while k > 0 and best[k - 1] < v:
            best[k] = best[k - 1]
            k -= 1
        best[k] = v
    t = 0.0
    for k in range(kept):
        t += best[k]
    houses[0] = kept
    return t


cdef void ss_missions_heuristic(const void* ptr, double* out) noexcept nogil:
    """``missions``: win shares from the score so far plus what each seat's Objectives would earn on the islands as
    they stand (this round's in full while its Harvest is to come, the next round's at half weight while a round
    follows) and 2 PP for each House it will have in hand for a later round (hand and stock less those, at most
    4), by a softmax at 5 PP per e. Unlike
    ``points`` it sees Missions within reach, so a placement or Bonus token that meets one scores one ply on. Other
    seats' Objectives are those of the sampled world."""
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef double est[MAX_SEATS]
    cdef double now
    cdef int i, used, spare, ships = popcount64(s.ships)
    cdef bint later = ships < 3 and not s.final
    if s.phase == PH_OVER:
        ss_returns(ptr, out)
        return
    for i in range(s.num_players):
        now = harvest_value(s, i, s.obj_cur[i], &used)
        est[i] = final_score(s, i) + now + 0.1 * s.houses_placed[i]
        if later:
            est[i] += 0.5 * harvest_value(s, i, s.obj_next[i], &spare)
            spare = s.houses_hand[i] + s.houses_stock[i] - used
            est[i] += 2.0 * (spare if spare < HOUSES_IN_HAND else HOUSES_IN_HAND)
    softmax_shares(est, s.num_players, out)


cdef int32_t ss_playout_action(const void* ptr, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """Light playout policy: place a House whenever one may be placed; otherwise a kind of action uniformly, then one
    of that kind (so the many Bonus placements do not crowd out the rest)."""
    return kind_balanced_choice(legal, n, rng, 26, K_HOUSE)


cdef double purpose_after(const SmallIslands* s, int32_t a, int seat) noexcept nogil:
    """What ``seat``'s Objectives would earn after action ``a`` (this round's in full, the next round's at half)."""
    cdef SmallIslands after
    cdef int houses
    memcpy(&after, s, sizeof(SmallIslands))
    ss_apply(&after, a)
    return harvest_value(&after, seat, after.obj_cur[seat], &houses) + 0.5 * harvest_value(
        &after, seat, after.obj_next[seat], &houses)


cdef int32_t purposeful_choice(const void* ptr, const int32_t* legal, int n, Rng* rng, bint tiles) noexcept nogil:
    """The light policy's kind of action, then within it a choice aimed at the mover's Objectives (what
    ``harvest_value`` says they would earn, this round's in full and the next round's at half): the Objectives kept
    are the best pair of the options; with ``tiles``, a tile placement or a Bonus token is the best of
    ``PURPOSE_DRAWS`` of its kind drawn at random (ties to the first drawn). Costs a copy of the state per option
    weighed."""
    cdef const SmallIslands* s = <const SmallIslands*>ptr
    cdef int32_t a = kind_balanced_choice(legal, n, rng, 26, K_HOUSE), b, best
    cdef int kind = a_kind(a), seat = s.active, count = 0, i, _d, pick
    cdef double v, best_v
    if kind != K_OBJ_KEEP and (not tiles or (kind != K_PLACE and kind != K_BONUS)):
        return a
    for i in range(n):
        count += a_kind(legal[i]) == kind
    if count <= 1:
        return a
    best = a
    best_v = purpose_after(s, a, seat)
    if kind == K_OBJ_KEEP:                # every option: at most 6
        for i in range(n):
            if a_kind(legal[i]) == kind and legal[i] != a:
                v = purpose_after(s, legal[i], seat)
                if v > best_v:
                    best, best_v = legal[i], v
        return best
    for _d in range(PURPOSE_DRAWS - 1):
        pick = rng_below(rng, count)
        for i in range(n):
            if a_kind(legal[i]) == kind:
                if pick == 0:
                    break
                pick -= 1
        b = legal[i]
        v = purpose_after(s, b, seat)
        if v > best_v:
            best, best_v = b, v
    return best


cdef int32_t ss_purposeful_playout_action(const void* ptr, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """``purposeful`` playout policy: Objectives, tile placements and Bonus tokens chosen for the mover's Objectives
    (``purposeful_choice``); a playout runs about 2.5 times slower than a light one."""
    return purposeful_choice(ptr, legal, n, rng, True)


cdef int32_t ss_objectives_playout_action(const void* ptr, const int32_t* legal, int n, Rng* rng) noexcept nogil:
    """``objectives`` playout policy: the light policy, except that the Objectives kept are the best pair for the
    board as it stands (``purposeful_choice`` without tiles); a keep comes once a round, so it costs little."""
    return purposeful_choice(ptr, legal, n, rng, False)
