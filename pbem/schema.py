"""``pbem schema``: the JSON Schema of a game's order files, envelope included, for editors.

The game protocol does not list its kinds of decision, so they are found by playing: a bot game from
the setup, noting each decision kind asked (bounded, and cheap for any real game).
"""

from __future__ import annotations

from typing import Any

from pbem.chance import Recorder
from pbem.envelope import Envelope
from pbem.errors import UserError
from pbem.game import Decision, Game

PLAYOUT_TURNS = 400


def decisions(game: Game, seed: int = 0) -> dict[str, Decision]:
    """Every kind of decision a seeded bot game of ``game`` asks for, by kind, in order of first sight."""
    seats = [f"seat{i + 1}" for i in range(game.max_players)]
    state = game.setup(seats, game.options_model(), Recorder.for_turn(seed, 0, 0))
    found: dict[str, Decision] = {}
    for turn in range(1, PLAYOUT_TURNS):
        pending = game.pending(state)
        if not pending:
            break
        for decision in pending.values():
            found.setdefault(decision.kind, decision)
        orders = {
            seat: game.order_model(d).model_validate(
                game.bot(state, seat, Recorder.for_turn(seed, 0, turn, seat))
            )
            for seat, d in pending.items()
        }
        state = game.resolve(state, orders, Recorder.for_turn(seed, 0, turn)).state
    return found


def order_file_schema(game: Game, only: str | None = None) -> dict[str, Any]:
    """The schema of a whole order file: the envelope, and ``orders`` as any of the game's decisions."""
    kinds = decisions(game)
    if only is not None:
        if only not in kinds:
            raise UserError(f"{game.name} has no decision {only!r}; it has {', '.join(kinds)}")
        kinds = {only: kinds[only]}
    envelope = Envelope.model_json_schema()
    defs: dict[str, Any] = {}
    choices = []
    for kind, decision in kinds.items():
        part = game.order_model(decision).model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        defs.update(part.pop("$defs", {}))
        part["title"] = f"{kind}: {decision.prompt}"
        choices.append(part)
    envelope["properties"]["orders"] = {"anyOf": choices} if len(choices) > 1 else choices[0]
    envelope["title"] = f"{game.title} order file"
    envelope["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    if defs:
        envelope["$defs"] = defs
    return envelope
