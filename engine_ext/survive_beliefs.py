"""Survive: one seat's beliefs about the other colours' treasure values, from what their moves show.

A seat sees only its own Adventurers' values; the others' are a permutation of each colour's multiset. Their owners
play by them (a 5 is rescued first, a 1 left where a Shark can reach it), so their moves tell a watching seat
something. ``ValueBeliefs`` is a particle filter over the worlds the seat cannot tell apart: each particle is a
world dealt from the seat's own view (``determinize``, which reads nothing hidden from it), every move the seat
observes is applied to every particle, and another seat's move multiplies a particle's weight by how likely that
seat was to make it there (``survive.follow_move``: a softmax over its ``tide`` share one ply on). Where a move
hides something (which value moved, an Ability drawn) a particle takes a matching move at random in proportion to
that likelihood (for chance, to the outcome's probability). When the weights concentrate on a few particles they are
resampled and each copy swaps two values of one colour, so the set stays varied. ``table()`` sums the particles into
one row of value weights per slot of the board, which ``survive.weigh_values`` gives a search to deal its worlds by,
mixed with the uniform deal so that a wrong reading of a few moves never becomes certainty.
"""

from __future__ import annotations

import math
import random

import engine_ext
from engine_ext import survive

PARTICLES = 32
# Softmax sharpness per unit of win share (docs/experiments/survive.md, "Survive: the clairvoyant bot's lead").
BETA = 100.0
UNIFORM_SHARE = 0.25  # of the deal's weight kept uniform, so that no slot's row is ever certain
REDEALS = 50  # tries to deal a particle the Abilities a move shows (each a fresh deal of what the seat cannot see)


class ValueBeliefs:
    """One seat's particle filter over the other colours' treasure values (see the module docstring)."""

    def __init__(self, state: engine_ext.State, seat: int, seed: int, particles: int = PARTICLES, beta: float = BETA):
        if particles < 1:
            raise ValueError(f"particles: expected at least 1, got {particles}")
        self.seat = seat
        self.beta = beta
        self.rng = random.Random(seed)
        self.colours = [c for c in range(_colours(state)) if _seat_of_colour(state, c) != seat]
        self.worlds = [state.determinize(seat, self.rng.getrandbits(63)) for _ in range(particles)]
        self.log_weights = [0.0] * particles
        self.observed = 0

    def observe(self, state: engine_ext.State, action: int) -> None:
        """Show every particle ``action``, about to be applied to ``state``, as this seat observes it, and weigh
        them by how likely it was there. ``state`` is read only through ``observed_action`` and ``determinize``,
        which show nothing hidden from the seat. A particle whose hidden Abilities could not have made the move (an
        Ability used that it dealt elsewhere) is dealt again from ``state`` with the values it held, up to
        ``REDEALS`` times until one could."""
        actor = state.current_player()
        observed = state.observed_action(action, self.seat)
        if self.lost:  # every particle was ruled out: start again from what the seat sees now
            self.worlds = [state.determinize(self.seat, self.rng.getrandbits(63)) for _ in self.worlds]
            self.log_weights = [0.0] * len(self.worlds)
        for i, world in enumerate(self.worlds):
            if self.log_weights[i] == -math.inf:
                continue
            likelihood = survive.follow_move(world, self.seat, actor, observed, self.beta, self.rng.random())
            for _ in range(REDEALS if likelihood == 0.0 else 0):
                world = state.determinize(self.seat, self.rng.getrandbits(63))
                survive.transplant_values(world, self.worlds[i], self.colours)
                likelihood = survive.follow_move(world, self.seat, actor, observed, self.beta, self.rng.random())
                if likelihood > 0.0:
                    self.worlds[i] = world
                    break
            self.log_weights[i] += math.log(likelihood) if likelihood > 0 else -math.inf
        self.observed += 1
        self._resample_if_degenerate()

    @property
    def lost(self) -> bool:
        """Every particle ruled out by a move (none of its redeals could have made it): the filter knows nothing
        until the next move it observes deals it afresh, and ``table()`` is empty (the uniform deal)."""
        return all(w == -math.inf for w in self.log_weights)

    def _normalised(self) -> list[float]:
        top = max(self.log_weights)
        if top == -math.inf:
            return [1.0 / len(self.worlds)] * len(self.worlds)
        weights = [math.exp(w - top) for w in self.log_weights]
        total = sum(weights)
        return [w / total for w in weights]

    def _resample_if_degenerate(self) -> None:
        weights = self._normalised()
        if 1.0 / sum(w * w for w in weights) >= len(self.worlds) / 3:
            return
        alive = [i for i, w in enumerate(self.log_weights) if w > -math.inf]
        if not alive:
            return
        picks = self.rng.choices(range(len(self.worlds)), weights=weights, k=len(self.worlds))
        seen = set()
        worlds = []
        for k in picks:
            world = self.worlds[k].clone()
            if k in seen and self.colours:  # a copy moves to a neighbouring world: two values of one colour swapped
                first, second = self.rng.sample(range(10), 2)
                survive.swap_values(world, self.rng.choice(self.colours), first, second)
            seen.add(k)
            worlds.append(world)
        self.worlds = worlds
        self.log_weights = [0.0] * len(worlds)

    def table(self) -> dict:
        """Per slot of another colour's Adventurers, ``(colour, slot) -> [weight of value 1..5]`` (the particles'
        weighted share of each value there, a quarter of it uniform), for ``survive.weigh_values``. Particles ruled
        out by a move count for nothing: their worlds stopped at it, so their slots may be ones the board has left.
        Empty when every particle is ruled out."""
        rows: dict = {}
        if self.lost:
            return rows
        for weight, world in zip(self._normalised(), self.worlds, strict=True):
            if weight == 0.0:
                continue
            for key, value in survive.value_slots(world, self.colours):
                rows.setdefault(key, [0.0] * 5)[value - 1] += weight
        for row in rows.values():
            total = sum(row)
            row[:] = [(1 - UNIFORM_SHARE) * w / total + UNIFORM_SHARE / 5 for w in row]
        return rows

    @property
    def bytes(self) -> int:
        """Memory the particles hold (their worlds' state structs), counted with a hosted seat's kept trees."""
        return sum(world.nbytes for world in self.worlds)

    def weigh(self, state: engine_ext.State) -> engine_ext.State:
        """A copy of ``state`` whose worlds are dealt by these beliefs."""
        return survive.weigh_values(state, self.table())


def _colours(state: engine_ext.State) -> int:
    players = state.num_players()
    return 4 if players == 2 else players


def _seat_of_colour(state: engine_ext.State, colour: int) -> int:
    return colour // 2 if state.num_players() == 2 else colour
