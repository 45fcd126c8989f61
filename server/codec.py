"""Observation dicts (engine) <-> typed protobuf views (wire), both ways exactly.

``observation_to_proto(engine_ext_observation)`` builds the wire view; ``observation_from_proto(view)`` gives back the
same dict, so a client-supplied view can be rebuilt with ``engine_ext.from_observation`` and checked field by field.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import engine_ext
from atoll.v1 import atoll_pb2 as pb
from engine_ext import survive

POKER_FIELDS = {
    "kuhn_poker": ("players", "seat", "cards_dealt", "private_card", "bets", "pot", "contributions", "current_player"),
    "leduc_poker": (
        "players",
        "starting_player",
        "seat",
        "cards_dealt",
        "private_card",
        "round",
        "public_card",
        "round1",
        "round2",
        "pot",
        "contributions",
        "folded",
        "current_player",
    ),
}


class CodecError(ValueError):
    """A wire message that cannot be an observation; ``field`` names the offending field."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def __reduce__(self):
        return type(self), (self.field, self.message)


@cache
def _survive_layout() -> tuple[dict, dict]:
    """Which backs each land type has (revealed) and which abilities (held), as the engine writes them."""
    template = engine_ext.new_game("survive", 2).observation(0)
    return (
        {land: list(backs) for land, backs in template["revealed"].items()},
        {land: list(kinds) for land, kinds in template["held"][0].items()},
    )


def observation_to_proto(obs: dict) -> pb.Observation:
    wire = _wire(obs["game"], "observation.game")
    return pb.Observation(game=obs["game"], **{wire.view: wire.to_proto(obs)})


def observation_from_proto(msg: pb.Observation) -> dict:
    """The observation dict of a wire view, after bounding its size: a message larger than any real view of its
    game, or with more entries in a list than the game can have, is refused before any work is spent on it."""
    game = msg.game
    wire = _wire(game, "observation.game")
    which = msg.WhichOneof("view")
    if which is None:
        raise CodecError("observation", "no view set")
    if which != wire.view:
        raise CodecError("observation.game", f"{game!r} does not match the view sent ({which})")
    view = getattr(msg, which)
    size = view.ByteSize()
    if size > wire.max_bytes:
        raise CodecError(f"observation.{which}", f"{size} bytes: no {game} view is above {wire.max_bytes}")
    _check_fields(view, wire, f"observation.{which}")
    return wire.from_proto(view)


def _check_fields(view, wire: WireCodec, prefix: str) -> None:
    """Only the game's own fields, and no list longer than the game allows (nested messages included)."""
    if wire.fields is not None:
        for descriptor, _ in view.ListFields():
            if descriptor.name not in wire.fields:
                raise CodecError(f"{prefix}.{descriptor.name}", f"{wire.view} has no field {descriptor.name}")
    _check_lists(view, wire, prefix)


def _check_lists(view, wire: WireCodec, prefix: str) -> None:
    for name, repeated, walk in _list_fields(view.DESCRIPTOR):
        value = getattr(view, name)
        if repeated:
            limit = wire.max_lengths.get(name, DEFAULT_MAX_LENGTH)
            if len(value) > limit:
                raise CodecError(f"{prefix}.{name}", f"{len(value)} entries: at most {limit}")
            if walk:
                for k, item in enumerate(value):
                    _check_lists(item, wire, f"{prefix}.{name}[{k}]")
        elif view.HasField(name):  # a nested message that holds lists
            _check_lists(value, wire, f"{prefix}.{name}")


@cache
def _list_fields(message_type) -> tuple[tuple[str, bool, bool], ...]:
    """The fields of a message type that hold lists: ``(name, repeated, walk)``, where ``walk`` says whether each
    value (each entry of a repeated field) is a message holding lists in turn. Checked once per type, not per call."""
    return tuple(
        (f.name, f.is_repeated, f.message_type is not None and _has_lists(f.message_type))
        for f in message_type.fields
        if f.is_repeated or (f.message_type is not None and _has_lists(f.message_type))
    )


@cache
def _has_lists(message_type) -> bool:
    """Whether a message type holds a repeated field at any depth (only those need walking)."""
    return any(
        f.is_repeated
        or (f.message_type is not None and f.message_type is not message_type and _has_lists(f.message_type))
        for f in message_type.fields
    )


def _poker_to_proto(game: str) -> Callable[[dict], pb.PokerObservation]:
    def convert(obs: dict) -> pb.PokerObservation:
        return pb.PokerObservation(**{k: obs[k] for k in POKER_FIELDS[game] if obs.get(k) is not None})

    return convert


def _poker_from_proto(game: str) -> Callable[[pb.PokerObservation], dict]:
    def convert(view: pb.PokerObservation) -> dict:
        obs = {"game": game}
        for name in POKER_FIELDS[game]:
            if name in ("private_card", "public_card"):
                obs[name] = getattr(view, name) if view.HasField(name) else None
            elif name in ("bets", "contributions", "round1", "round2", "folded"):
                obs[name] = list(getattr(view, name))
            else:
                obs[name] = getattr(view, name)
        return obs

    return convert


def _survive_to_proto(obs: dict) -> pb.SurviveObservation:
    control = dict(obs["control"])
    reaction = control.pop("reaction")
    continuation = control.pop("continuation")
    ctrl = pb.SurviveControl(**{k: v for k, v in control.items() if v is not None})
    if reaction is not None:
        ctrl.reaction.CopyFrom(pb.SurviveReaction(**reaction))
    if continuation is not None:
        ctrl.continuation.CopyFrom(pb.SurviveContinuation(**continuation))
    msg = pb.SurviveObservation(
        players=obs["players"],
        seat=obs["seat"],
        current_player=obs["current_player"],
        hourglass=obs["options"]["hourglass"],
        control=ctrl,
        terrain=obs["terrain"],
        rafts=obs["rafts"],
        serpents=obs["creatures"]["serpent"],
        sharks=obs["creatures"]["shark"],
        kaijus=obs["creatures"]["kaiju"],
        revealed_beach=pb.BackCounts(**obs["revealed"]["beach"]),
        revealed_forest=pb.BackCounts(**obs["revealed"]["forest"]),
        revealed_mountain=pb.BackCounts(**obs["revealed"]["mountain"]),
        score=obs["score"],
    )
    for colour, entries in zip(survive.COLOUR_NAMES, obs["adventurers"], strict=False):
        group = msg.adventurers.add(colour=colour)
        for entry in entries:
            group.adventurers.add(**{k: v for k, v in entry.items() if v is not None})
    for seat, held in enumerate(obs["held"]):
        row = msg.held.add(seat=seat)
        for land in ("beach", "forest"):
            if isinstance(held[land], dict):
                setattr(row, land, sum(held[land].values()))
                getattr(row, f"{land}_types").CopyFrom(pb.BackCounts(**held[land]))
            else:
                setattr(row, land, held[land])
    return msg


def _survive_from_proto(msg: pb.SurviveObservation) -> dict:
    revealed_keys, held_keys = _survive_layout()
    ctrl = msg.control
    control = {
        "phase": ctrl.phase,
        "active": ctrl.active,
        "turn": ctrl.turn,
        "setup_count": ctrl.setup_count,
        "moves_left": ctrl.moves_left,
        "rising_left": ctrl.rising_left,
        "volcanoes": ctrl.volcanoes,
        "die": ctrl.die,
        "effect_cell": ctrl.effect_cell if ctrl.HasField("effect_cell") else None,
        "effect_land": ctrl.effect_land,
        "summon": ctrl.summon,
        "reaction": None,
        "kaiju_resolving": list(ctrl.kaiju_resolving),
        "continuation": None,
    }
    if ctrl.HasField("reaction"):
        control["reaction"] = {
            "creature": ctrl.reaction.creature,
            "cell": ctrl.reaction.cell,
            "declined": list(ctrl.reaction.declined),
        }
    if ctrl.HasField("continuation"):
        cont = ctrl.continuation
        control["continuation"] = {"kind": cont.kind, "cell": cont.cell}
        for name in ("colour", "swum", "value"):
            if cont.HasField(name):
                control["continuation"][name] = getattr(cont, name)
    adventurers = []
    for group in msg.adventurers:
        entries = []
        for a in group.adventurers:
            entry = {
                "status": a.status,
                "cell": a.cell if a.HasField("cell") else None,
                "aboard": a.aboard,
                "swum": a.swum,
            }
            if a.HasField("value"):
                entry["value"] = a.value
            entries.append(entry)
        adventurers.append(entries)
    held = []
    for row in msg.held:
        if row.HasField("beach_types") or row.HasField("forest_types"):
            held.append(
                {
                    land: {k: getattr(getattr(row, f"{land}_types"), k) for k in held_keys[land]}
                    for land in ("beach", "forest")
                }
            )
        else:
            held.append({"beach": row.beach, "forest": row.forest})
    return {
        "game": "survive",
        "players": msg.players,
        "options": {"hourglass": msg.hourglass},
        "seat": msg.seat,
        "current_player": msg.current_player,
        "control": control,
        "terrain": msg.terrain,
        "rafts": list(msg.rafts),
        "creatures": {"serpent": list(msg.serpents), "shark": list(msg.sharks), "kaiju": list(msg.kaijus)},
        "revealed": {
            land: {k: getattr(getattr(msg, f"revealed_{land}"), k) for k in keys}
            for land, keys in revealed_keys.items()
        },
        "adventurers": adventurers,
        "held": held,
        "score": msg.score,
    }


def _islet_to_proto(obs: dict) -> pb.IsletObservation:
    control = {k: v for k, v in obs["control"].items() if v is not None}
    msg = pb.IsletObservation(
        players=obs["players"],
        seat=obs["seat"],
        current_player=obs["current_player"],
        control=pb.IsletControl(**control),
        tiles=[pb.IsletTile(cell=cell, type=kind) for cell, kind in obs["tiles"]],
        laid_eggs=[pb.IsletEgg(cell=cell, seat=owner) for cell, owner in obs["eggs"]],
        stacks=obs["stacks"],
        bag_size=obs["bag_size"],
    )
    for entry in obs["seats"]:
        msg.seats.add(**entry)
    if "options" in obs:
        msg.eggs = obs["options"]["eggs"]
        msg.removed.update(obs["removed"])
        msg.day_cards.extend(obs["cards"]["day"])
        msg.night_cards.extend(obs["cards"]["night"])
        msg.deck.extend(obs["deck"])
    return msg


def _islet_from_proto(game: str) -> Callable[[pb.IsletObservation], dict]:
    def convert(msg: pb.IsletObservation) -> dict:
        ctrl = msg.control
        control = {
            "phase": ctrl.phase,
            "active": ctrl.active,
            "round": ctrl.round,
            "final_round": ctrl.final_round if ctrl.HasField("final_round") else None,
            "left": ctrl.left,
            "placed": ctrl.placed,
            "last_cell": ctrl.last_cell if ctrl.HasField("last_cell") else None,
            "steps": ctrl.steps,
            "visited": list(ctrl.visited),
            "refill_islet": ctrl.refill_islet,
            "won": ctrl.won if ctrl.HasField("won") else None,
        }
        obs = {"game": game, "players": msg.players}
        if game == "islet_solo":
            obs["options"] = {"eggs": msg.eggs}
        obs.update(
            seat=msg.seat,
            current_player=msg.current_player,
            control=control,
            tiles=[[t.cell, t.type] for t in msg.tiles],
            eggs=[[e.cell, e.seat] for e in msg.laid_eggs],
            stacks=dict(msg.stacks),
        )
        if game == "islet_solo":
            obs["removed"] = dict(msg.removed)
            obs["cards"] = {"day": list(msg.day_cards), "night": list(msg.night_cards)}
            obs["deck"] = list(msg.deck)
        obs["bag_size"] = msg.bag_size
        seats = []
        for k, entry in enumerate(msg.seats):
            seat = {
                "hand_size": entry.hand_size,
                "cards": dict(entry.cards),
                "guaranteed": dict(entry.guaranteed),
                "used": dict(entry.used),
                "free_eggs": entry.free_eggs,
                "laid": entry.laid,
                "pawn": entry.pawn,
            }
            if k == msg.seat:
                seat["hand"] = dict(entry.hand)
            elif entry.hand:
                raise CodecError(f"seats[{k}].hand", "another seat's hand tiles are not visible")
            seats.append(seat)
        obs["seats"] = seats
        return obs

    return convert


def _small_islands_to_proto(obs: dict) -> pb.SmallIslandsObservation:
    control = {k: v for k, v in obs["control"].items() if v is not None}
    msg = pb.SmallIslandsObservation(
        players=obs["players"],
        seat=obs["seat"],
        current_player=obs["current_player"],
        control=pb.SmallIslandsControl(**control),
        display=[name or "" for name in obs["display"]],
        deck_size=obs["deck_size"],
        navigation_size=obs["navigation_size"],
        ships=obs["ships"],
        objective_deck_size=obs["objective_deck_size"],
        discovery_pile_size=obs["discovery_pile_size"],
        discovery_drawn_count=obs["discovery_drawn_count"],
        discarded=obs["discarded"],
        drawn_objectives=obs.get("drawn_objectives", []),
        discovery_drawn=obs.get("discovery_drawn", {}),
    )
    if obs["objective_top_by"] is not None:
        msg.objective_top_by = obs["objective_top_by"]
    if "objective_top" in obs:
        msg.objective_top = obs["objective_top"]
    for tile, turn, square, regions in obs["board"]:
        entry = msg.board.add(tile=tile, turn=turn, square=square)
        for region in regions:
            entry.regions.add(icons=region["icons"], houses=region.get("houses", []))
    for entry in obs["seats"]:
        msg.seats.add(**{k: v for k, v in entry.items() if v is not None})
    return msg


def _small_islands_from_proto(msg: pb.SmallIslandsObservation) -> dict:
    ctrl = msg.control
    control = {
        "phase": ctrl.phase,
        "active": ctrl.active,
        "start_player": ctrl.start_player,
        "lander": ctrl.lander if ctrl.HasField("lander") else None,
        "round": ctrl.round,
        "harvest_left": ctrl.harvest_left,
        "final": ctrl.final,
        "left": ctrl.left,
        "objective_seats_left": ctrl.objective_seats_left,
        "taken_slot": ctrl.taken_slot if ctrl.HasField("taken_slot") else None,
        "discovery_left": ctrl.discovery_left,
        "turn": ctrl.turn,
        "harvested": list(ctrl.harvested),
    }
    board = []
    for entry in msg.board:
        regions = []
        for region in entry.regions:
            item = {"icons": dict(region.icons)}
            if region.houses:
                item["houses"] = list(region.houses)
            regions.append(item)
        board.append([entry.tile, entry.turn, entry.square, regions])
    obs = {
        "game": "small_islands",
        "players": msg.players,
        "control": control,
        "board": board,
        "display": [name or None for name in msg.display],
        "deck_size": msg.deck_size,
        "navigation_size": msg.navigation_size,
        "ships": dict(msg.ships),
        "objective_deck_size": msg.objective_deck_size,
        "objective_top_by": msg.objective_top_by if msg.HasField("objective_top_by") else None,
        "discovery_pile_size": msg.discovery_pile_size,
        "discovery_drawn_count": msg.discovery_drawn_count,
        "discarded": list(msg.discarded),
        "seat": msg.seat,
        "current_player": msg.current_player,
    }
    seats = []
    for k, entry in enumerate(msg.seats):
        seat = {
            "hand_size": entry.hand_size,
            "known_hand": list(entry.known_hand),
            "tokens": list(entry.tokens),
            "houses_hand": entry.houses_hand,
            "houses_stock": entry.houses_stock,
            "houses_placed": entry.houses_placed,
            "pp": entry.pp,
            "discovery_count": entry.discovery_count,
            "last_place": entry.last_place,
            "revealed": entry.revealed if entry.HasField("revealed") else None,
            "has_objective": entry.has_objective,
            "has_next_objective": entry.has_next_objective,
        }
        if k == msg.seat:
            seat["hand"] = list(entry.hand)
            seat["objective"] = entry.objective if entry.HasField("objective") else None
            seat["next_objective"] = entry.next_objective if entry.HasField("next_objective") else None
            seat["discovery"] = dict(entry.discovery)
        elif entry.hand or entry.HasField("objective") or entry.HasField("next_objective") or entry.discovery:
            raise CodecError(f"seats[{k}]", "another seat's hand, Objectives and tokens are not visible")
        seats.append(seat)
    obs["seats"] = seats
    if msg.drawn_objectives:
        obs["drawn_objectives"] = list(msg.drawn_objectives)
    if msg.seat == ctrl.active and ctrl.phase in ("discovery_draw", "discovery_keep"):
        obs["discovery_drawn"] = dict(msg.discovery_drawn)
    if msg.HasField("objective_top"):
        obs["objective_top"] = msg.objective_top
    return obs


DEFAULT_MAX_LENGTH = 64


@dataclass(frozen=True)
class WireCodec:
    """How one game's observation travels: its ``Observation`` oneof field, the two conversions, and the bounds a
    real view of the game stays within (checked before converting)."""

    view: str
    to_proto: Callable[[dict], object]
    from_proto: Callable[[object], dict]
    max_bytes: int
    max_lengths: dict[str, int]
    fields: tuple[str, ...] | None = None  # the fields the game uses, when its message is shared with other games


# Every registered game has a wire codec (tests/server/test_codec.py checks it); a new game adds its message to the
# proto and one entry here.
CODECS: dict[str, WireCodec] = {
    "survive": WireCodec(
        view="survive",
        to_proto=lambda obs: _survive_to_proto(obs),
        from_proto=lambda view: _survive_from_proto(view),
        max_bytes=32_768,
        max_lengths={
            "rafts": 12,
            "serpents": 5,
            "sharks": 6,
            "kaijus": 2,
            "adventurers": 10,  # colours (5) and each colour's adventurers (10)
            "held": 5,
            "kaiju_resolving": 2,
            "declined": 5,
        },
    ),
    "small_islands": WireCodec(
        view="small_islands",
        to_proto=_small_islands_to_proto,
        from_proto=_small_islands_from_proto,
        max_bytes=32_768,
        max_lengths={
            "board": 64,
            "regions": 2,
            "display": 3,
            "ships": 4,
            "discarded": 56,
            "seats": 4,
            "drawn_objectives": 2,
            "discovery_drawn": 4,
            "harvested": 128,
            "icons": 6,
            "houses": 4,
            "known_hand": 3,
            "tokens": 4,
            "hand": 3,
            "discovery": 4,
        },
    ),
    **{
        game: WireCodec(
            view="islet",
            to_proto=_islet_to_proto,
            from_proto=_islet_from_proto(game),
            max_bytes=16_384,
            max_lengths={
                "tiles": 90,
                "laid_eggs": 34,
                "seats": 4,
                "visited": 192,
                "deck": 13,
                "day_cards": 2,
                "night_cards": 2,
                "stacks": 6,
                "removed": 9,
                "cards": 6,
                "guaranteed": 6,
                "used": 6,
                "hand": 9,
            },
            fields=None,
        )
        for game in ("islet", "islet_solo")
    },
    **{
        game: WireCodec(
            view=game,
            to_proto=_poker_to_proto(game),
            from_proto=_poker_from_proto(game),
            max_bytes=2_048,
            max_lengths={"bets": 40, "contributions": 10, "round1": 40, "round2": 40, "folded": 10},
            fields=POKER_FIELDS[game],
        )
        for game in POKER_FIELDS
    },
}


def _wire(game: str, field: str) -> WireCodec:
    codec = CODECS.get(game)
    if codec is None:
        shown = game if len(game) <= 40 else game[:40] + "..."
        raise CodecError(field, f"no wire view for game {shown!r}; ListGames lists the games")
    return codec
