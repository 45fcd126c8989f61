# cython: language_level=3
"""State base class, seeded RNG helpers and in-core playout loops shared by every game.

A game module defines its C struct and ``GameVTable`` and subclasses ``State`` with the Python-facing parts
(move text, JSON, observations, drawing). Everything the search needs is reachable from the table without the GIL.
"""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc

CHANCE = CHANCE_PLAYER
TERMINAL = TERMINAL_PLAYER

# How many legal moves an IllegalAction message lists before it says "...".
cdef int LISTED_IN_ERRORS = 12


class MoveError(ValueError):
    """A move that cannot be played here. ``move_number`` is the position's (moves applied since the start) and
    ``legal`` the text of the legal moves (or chance outcomes) at that position; ``reason`` what is wrong with the move
    itself, without the position (for a caller that words the error for its own user)."""

    def __init__(self, message, move_number=None, legal=(), reason=None):
        super().__init__(message)
        self.move_number = move_number
        self.legal = list(legal)
        self.reason = reason

    def __reduce__(self):  # whole across processes (an arena worker's error reaches the parent pickled)
        return type(self), (self.args[0], self.move_number, self.legal, self.reason)


class IllegalAction(MoveError):
    """A well-formed action that is not legal in the state it was applied to; the state is left unchanged."""


class InvalidMoveText(MoveError):
    """Move text that does not parse as any move of the game (``string_to_action``)."""


class InvalidObservation(ValueError):
    """An observation that no state of the game could produce. ``field`` names the offending field."""

    def __init__(self, field, message):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def __reduce__(self):
        return type(self), (self.field, self.message)


cpdef check_int(data, str key, long lo, long hi, str prefix="", bint missing_zero=False):
    """``data[key]`` as an integer in ``lo..hi``, or ``InvalidObservation`` naming ``prefix + key`` (the loaders of
    states and observations read every count through it: compiled, since a board game's view holds about a hundred).
    ``missing_zero``: the key may be left out for 0 (count maps write only nonzero entries, so an explicit 0 is
    refused too: it could not have been written)."""
    if not isinstance(data, dict):
        raise InvalidObservation(prefix.rstrip(".") or key, "expected an object")
    value = (<dict>data).get(key, 0 if missing_zero else None)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        shown = repr(value)
        raise InvalidObservation(
            prefix + key, f"expected an integer {lo}..{hi}, got {shown if len(shown) <= 40 else shown[:40] + '...'}")
    if missing_zero and value == 0 and key in data:
        raise InvalidObservation(prefix + key, "zero counts are left out")
    return value


cdef class State:
    """One game position. Subclasses set the table in ``__cinit__`` through ``attach``."""

    def __cinit__(self):
        self.vt = NULL
        self.buf = NULL
        self.move_number = 0

    def __dealloc__(self):
        free(self.buf)

    cdef void attach(self, const GameVTable* vt) except *:
        if vt.max_players > MAX_SEATS_ANY:
            raise ValueError(
                f"{vt.name.decode()} declares {vt.max_players} seats; per-seat buffers hold {MAX_SEATS_ANY}"
            )
        self.vt = vt
        self.buf = calloc(1, vt.state_size)
        if self.buf == NULL:
            raise MemoryError()

    cdef State empty_like(self):
        cdef type cls = type(self)
        return cls.__new__(cls)

    # -- reading the position ---------------------------------------------------------------------------------------
    cpdef int current_player(self):
        """The seat to act, ``CHANCE`` (-1) at a chance node, ``TERMINAL`` (-2) when the game is over."""
        return self.vt.current_player(self.buf)

    cpdef bint is_terminal(self):
        return self.vt.current_player(self.buf) == TERMINAL_PLAYER

    cpdef int num_players(self):
        return self.vt.num_players(self.buf)

    cpdef list legal_actions(self):
        """Ascending action ids of the seat to act; empty at chance and terminal nodes."""
        cdef int player = self.vt.current_player(self.buf)
        if player < 0:
            return []
        cdef int32_t* out = <int32_t*>malloc(self.vt.max_actions * sizeof(int32_t))
        cdef int n = self.vt.legal_actions(self.buf, out)
        cdef list result = [out[i] for i in range(n)]
        free(out)
        return result

    cpdef list chance_outcomes(self):
        """``[(action, probability), ...]`` at a chance node, else empty."""
        if self.vt.current_player(self.buf) != CHANCE_PLAYER:
            return []
        cdef int32_t* actions = <int32_t*>malloc(self.vt.max_chance_outcomes * sizeof(int32_t))
        cdef double* probs = <double*>malloc(self.vt.max_chance_outcomes * sizeof(double))
        cdef int n = self.vt.chance_outcomes(self.buf, actions, probs)
        cdef list result = [(actions[i], probs[i]) for i in range(n)]
        free(actions)
        free(probs)
        return result

    cpdef list returns(self):
        """Final utility per seat (all zero before the end)."""
        cdef double out[MAX_SEATS_ANY]
        self.vt.returns(self.buf, out)
        return [out[i] for i in range(self.vt.num_players(self.buf))]

    cpdef list scores(self):
        """Points per seat as the game counts them (eggs, prestige, treasure; chips for poker)."""
        cdef int32_t out[MAX_SEATS_ANY]
        self.vt.scores(self.buf, out)
        return [out[i] for i in range(self.vt.num_players(self.buf))]

    # -- changing it ------------------------------------------------------------------------------------------------
    cdef int check_legal(self, int32_t action) except -1:
        cdef int player = self.vt.current_player(self.buf)
        if player == TERMINAL_PLAYER:
            raise IllegalAction(f"action {action} rejected: the game is over (move {self.move_number})",
                                self.move_number)
        cdef list options = self._options()
        if action in options:
            return 0
        who = "chance" if player == CHANCE_PLAYER else f"seat {player}"
        raise IllegalAction(
            f"action {action} is not legal for {who} at move {self.move_number}; legal: {self._listed(options)}",
            self.move_number, [self.action_to_string(a) for a in options],
        )

    def _options(self):
        """The legal decisions, or the possible chance outcomes, of this position."""
        if self.vt.current_player(self.buf) == CHANCE_PLAYER:
            return [a for a, p in self.chance_outcomes() if p > 0]
        return self.legal_actions()

    def _listed(self, list options):
        listed = ", ".join(self.action_to_string(a) for a in options[:LISTED_IN_ERRORS])
        more = f" and {len(options) - LISTED_IN_ERRORS} more" if len(options) > LISTED_IN_ERRORS else ""
        return (listed or "nothing (the game is over)") + more

    cpdef apply(self, int32_t action):
        """Play ``action`` (a decision, or a chance outcome at a chance node).

        Raises ``IllegalAction`` and leaves the state untouched when the action is not legal here.
        """
        self.check_legal(action)
        self.vt.apply(self.buf, action)
        self.move_number += 1

    def apply_string(self, str text):
        """Parse ``text`` with ``string_to_action`` and apply it."""
        self.apply(self.string_to_action(text))

    cpdef State clone(self):
        """An independent copy (one memcpy of the state struct)."""
        cdef State copy = self.empty_like()
        clone_into(self.vt, copy.buf, self.buf)
        copy.move_number = self.move_number
        return copy

    # -- information ------------------------------------------------------------------------------------------------
    cpdef int32_t public_action(self, int32_t action):
        """What a seat not involved in ``action`` observes of it (equal to ``action`` when fully public)."""
        return self.vt.observed_action(self.buf, action, NO_SEAT)

    cpdef int32_t observed_action(self, int32_t action, int seat):
        """What ``seat`` observes of ``action`` taken in this state."""
        self.check_seat(seat)
        return self.vt.observed_action(self.buf, action, seat)

    def observed_as(self, int32_t observed, int seat):
        """The first move here that ``seat`` observes as ``observed`` (a legal action, or a chance outcome at a
        chance node, in the order those lists give them), or None: how a line of observed moves is replayed in one
        sampled world (``search.principal_line``), without a Python call for each candidate."""
        self.check_seat(seat)
        cdef int player = self.vt.current_player(self.buf)
        cdef int n, i
        cdef int32_t found = -1
        cdef int32_t* moves
        cdef double* probs = NULL
        if player == TERMINAL_PLAYER:
            return None
        if player == CHANCE_PLAYER:
            moves = <int32_t*>malloc((self.vt.max_chance_outcomes + 1) * sizeof(int32_t))
            probs = <double*>malloc((self.vt.max_chance_outcomes + 1) * sizeof(double))
            n = self.vt.chance_outcomes(self.buf, moves, probs) if moves != NULL and probs != NULL else -1
        else:
            moves = <int32_t*>malloc((self.vt.max_actions + 1) * sizeof(int32_t))
            n = self.vt.legal_actions(self.buf, moves) if moves != NULL else -1
        for i in range(n):
            if self.vt.observed_action(self.buf, moves[i], seat) == observed:
                found = moves[i]
                break
        free(moves)
        free(probs)
        if n < 0:
            raise MemoryError()
        return None if found < 0 else found

    def private_key(self, int seat):
        """The game's name for what ``seat`` alone knows in this state (``GameVTable.private_key``: its card in the
        poker games), -1 where the game names none. Only meaningful to another seat on a determinized world."""
        self.check_seat(seat)
        return -1 if self.vt.private_key == NULL else self.vt.private_key(self.buf, seat)

    def transposes(self, int32_t previous, int32_t action):
        """True when the game calls ``action``, right after the same seat played ``previous`` (which led to this
        state), a transposition the search skips (``GameVTable.redundant``; False for games without that rule)."""
        if self.vt.redundant == NULL:
            return False
        return bool(self.vt.redundant(self.buf, previous, action))

    cpdef State determinize(self, int seat, uint64_t seed):
        """A full state in which every fact hidden from ``seat`` is resampled consistently with its observation.

        It reads only what ``seat`` knows, so equal ``observation(seat)`` and equal ``seed`` give the same world.
        """
        self.check_seat(seat)
        cdef Rng rng
        rng_seed(&rng, seed)
        cdef State world = self.clone()
        world.vt.determinize(world.buf, seat, &rng)
        return world

    def check_seat(self, int seat):
        if not 0 <= seat < self.vt.num_players(self.buf):
            raise ValueError(f"seat {seat} does not exist: this game has seats 0..{self.num_players() - 1}")

    # -- per-game Python API (overridden by every game module) ------------------------------------------------------
    def action_to_string(self, int32_t action):
        raise NotImplementedError

    def string_to_action(self, str text):
        """The action that ``text`` (as ``action_to_string`` writes it) names; ``InvalidMoveText`` when it names none.

        It parses only: whether the action is legal here is ``apply``'s question."""
        try:
            return self._parse_move_text(text)
        except (ValueError, IndexError, KeyError) as err:
            shown = text if len(text) <= 60 else text[:60] + "..."
            options = self._options() if not self.is_terminal() else []
            raise InvalidMoveText(
                f"{shown!r} is not a move of {self.game_name} ({err}) at move {self.move_number}; "
                f"legal here: {self._listed(options)}",
                self.move_number, [self.action_to_string(a) for a in options], str(err),
            ) from None

    def _parse_move_text(self, str text):
        """The game's move grammar: an action id, or ValueError saying what is wrong."""
        raise NotImplementedError

    def to_json(self):
        raise NotImplementedError

    def observation(self, int seat):
        raise NotImplementedError

    def private_info(self, int seat):
        """The facts only ``seat`` knows (its cards, values, held tiles): what no other seat's view may contain."""
        raise NotImplementedError

    @property
    def game_name(self):
        return self.vt.name.decode()

    @property
    def nbytes(self):
        """Memory the position's state struct holds (the same for every position of a game)."""
        return self.vt.state_size

    def __reduce__(self):
        return (_state_from_json, (self.to_json(),))

    def __eq__(self, other):
        return isinstance(other, State) and self.to_json() == other.to_json()

    def __hash__(self):
        return hash(self.to_json())


def _state_from_json(text):
    from engine_ext import from_json

    return from_json(text)


# -------------------------------------------------------------------------------------------------------------------
# In-core random playouts: the speed benchmark's and the search's innermost loop.
# -------------------------------------------------------------------------------------------------------------------
cdef long random_playouts(const GameVTable* vt, const void* start, long playouts, Rng* rng) noexcept nogil:
    """Play ``playouts`` uniformly random games from ``start``; return the number of atomic steps taken."""
    cdef void* s = malloc(vt.state_size)
    cdef int32_t* actions = <int32_t*>malloc(vt.max_actions * sizeof(int32_t))
    cdef long steps = 0
    cdef long _game
    cdef int player, n
    for _game in range(playouts):
        clone_into(vt, s, start)
        while True:
            player = vt.current_player(s)
            if player == TERMINAL_PLAYER:
                break
            if player == CHANCE_PLAYER:
                vt.apply(s, vt.sample_chance(s, rng))
            else:
                n = vt.legal_actions(s, actions)
                vt.apply(s, actions[rng_below(rng, n)])
            steps += 1
    free(actions)
    free(s)
    return steps


def playout_steps(State state, long playouts, uint64_t seed=0):
    """Run ``playouts`` random games from ``state`` inside the core (GIL released); return the steps taken."""
    cdef Rng rng
    rng_seed(&rng, seed)
    cdef long steps
    with nogil:
        steps = random_playouts(state.vt, state.buf, playouts, &rng)
    return steps


def clone_many(State state, long copies):
    """Clone ``copies`` times through the Python API (the speed benchmark's clone figure)."""
    cdef long _copy
    for _copy in range(copies):
        state.clone()


def sample_chance(State state, uint64_t seed):
    """One chance outcome drawn with its probability (the core's own sampler)."""
    if state.current_player() != CHANCE_PLAYER:
        raise ValueError("sample_chance needs a chance node")
    cdef Rng rng
    rng_seed(&rng, seed)
    return state.vt.sample_chance(state.buf, &rng)
