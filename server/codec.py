"""Observation dicts (engine) <-> typed protobuf views (wire), both ways exactly.

``observation_to_proto(engine_ext_observation)`` builds the wire view; ``observation_from_proto(view)`` gives back the
same dict, so a client-supplied view can be rebuilt with ``engine_ext.from_observation`` and checked field by field.
"""

from __future__ import annotations

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


@cache
def _survive_layout() -> tuple[dict, dict]:
    """Which backs each land type has (revealed) and which abilities (held), as the engine writes them."""
    template = engine_ext.new_game("survive", 2).observation(0)
    return (
        {land: list(backs) for land, backs in template["revealed"].items()},
        {land: list(kinds) for land, kinds in template["held"][0].items()},
    )


def observation_to_proto(obs: dict) -> pb.Observation:
    game = obs["game"]
    if game == "survive":
        return pb.Observation(game=game, survive=_survive_to_proto(obs))
    if game in POKER_FIELDS:
        fields = {k: obs[k] for k in POKER_FIELDS[game] if obs.get(k) is not None}
        return pb.Observation(game=game, **{game: pb.PokerObservation(**fields)})
    raise CodecError("observation.game", f"no wire view for {game!r}")


def observation_from_proto(msg: pb.Observation) -> dict:
    game = msg.game
    which = msg.WhichOneof("view")
    if which is None:
        raise CodecError("observation", "no view set")
    if which != game:
        raise CodecError("observation.game", f"{game!r} does not match the view sent ({which})")
    if game == "survive":
        return _survive_from_proto(msg.survive)
    view = getattr(msg, game)
    obs = {"game": game}
    for name in POKER_FIELDS[game]:
        if name in ("private_card", "public_card"):
            obs[name] = getattr(view, name) if view.HasField(name) else None
        elif name in ("bets", "contributions", "round1", "round2", "folded"):
            obs[name] = list(getattr(view, name))
        else:
            obs[name] = getattr(view, name)
    return obs


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
