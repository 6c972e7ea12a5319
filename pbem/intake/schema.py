"""``pbem schema``: the JSON Schema of a game's order files, envelope included, for editors.

The game protocol does not list its kinds of decision, so they are found by playing: a bot game from
the setup, noting each decision kind asked (bounded, and cheap for any real game).
"""

from __future__ import annotations

from typing import Any

from pbem.core.chance import Recorder
from pbem.core.errors import UserError
from pbem.core.game import Decision, Game
from pbem.core.steps import Step
from pbem.intake.envelope import Envelope

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


#: the name ``pbem schema GAME -o`` suggests, and that templates point their editor at
def schema_file_name(game_name: str) -> str:
    return f"{game_name}.schema.json"


def _step_models(model: Any) -> tuple[type[Step], ...]:
    return tuple(getattr(model, "step_models", ()))


def _steps_schema(models: list[type[Step]], defs: dict[str, Any]) -> dict[str, Any]:
    """One item of ``orders``: a mapping of exactly one known keyword (``place: Bd5``), or a bare
    keyword (``pass``) for the steps that take nothing.

    Keyed by the step's keyword rather than an ``anyOf`` of step objects: a validator then reports a
    wrong value as that step's (``$.orders[1].place: 'ac6' does not match …``) and an unknown keyword
    as itself, instead of "matches none of" or the first branch's missing property."""
    properties: dict[str, Any] = {}
    bare: list[str] = []
    for step in models:
        part = step.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        defs.update(part.pop("$defs", {}))
        value = dict(part["properties"][step.keyword])
        value.pop("title", None)
        value.setdefault("description", (step.__doc__ or step.keyword).strip().split("\n\n")[0])
        info = next(iter(step.model_fields.values()))
        if not info.is_required() and info.default is None:
            bare.append(step.keyword)
        properties[step.keyword] = value
    names = list(properties)
    mapping = {
        "type": "object",
        "description": "one step: " + ", ".join(names),
        "minProperties": 1,
        "maxProperties": 1,
        "propertyNames": {"enum": names, "description": "a step: " + ", ".join(names)},
        "properties": properties,
        "additionalProperties": False,
    }
    if not bare:
        return mapping
    return {
        "type": ["object", "string"],
        "description": "one step, as `step: value` or a bare word (" + ", ".join(bare) + ")",
        "if": {"type": "string"},
        "then": {"enum": bare, "description": "a step written as a bare word: " + ", ".join(bare)},
        "else": mapping,
    }


def _orders_schema(model: Any, defs: dict[str, Any], title: str) -> dict[str, Any]:
    models = list(_step_models(model))
    if not models:  # not a list of steps: the game's own model as pydantic writes it
        part = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
        defs.update(part.pop("$defs", {}))
        return {**part, "title": title}
    root = model.model_json_schema(by_alias=True, ref_template="#/$defs/{model}")
    defs.update(root.pop("$defs", {}))
    out: dict[str, Any] = {"type": "array", "title": title, "items": _steps_schema(models, defs)}
    for bound in ("minItems", "maxItems"):
        if bound in root:
            out[bound] = root[bound]
    return out


def order_file_schema(game: Game, only: str | None = None) -> dict[str, Any]:
    """The schema of a whole order file: the envelope, and ``orders`` as a list of the game's steps.

    With ``only`` the steps are that decision's, with its bounds; else any step of any decision (an
    editor does not know which decision a file answers; the host checks that on arrival)."""
    kinds = decisions(game)
    if only is not None:
        if only not in kinds:
            raise UserError(f"{game.name} has no decision {only!r}; it has {', '.join(kinds)}")
        kinds = {only: kinds[only]}
    envelope = Envelope.model_json_schema()
    defs: dict[str, Any] = {}
    if only is not None:
        decision = kinds[only]
        orders = _orders_schema(game.order_model(decision), defs, f"{only}: {decision.prompt}")
    else:
        models: dict[str, type[Step]] = {}
        for decision in kinds.values():
            for step in _step_models(game.order_model(decision)):
                models.setdefault(step.keyword, step)
        orders = {
            "type": "array",
            "title": "orders: " + "; ".join(f"{k}: {d.prompt}" for k, d in kinds.items()),
            "items": _steps_schema(list(models.values()), defs),
        }
    # a template whose every step is still a comment holds `orders:` with nothing under it (null): not
    # wrong while the file is being written; the host answers it with what to write
    if orders.get("type") == "array":
        orders["type"] = ["array", "null"]
    orders["description"] = "your steps, one `- ` line each, in the order they are to happen" + (
        "" if only else " (the decisions: " + ", ".join(kinds) + ")"
    )
    envelope["properties"]["orders"] = orders
    envelope["title"] = f"{game.title} order file"
    envelope["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    if defs:
        envelope["$defs"] = defs
    return envelope
