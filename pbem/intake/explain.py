"""Shape errors in a player's words: what pydantic found wrong with an envelope or a step, said as the line,
the step, what is wrong and what to write instead, with none of pydantic's own vocabulary (no type names,
no patterns, no "Input should be").

One message per step: a step given as a union (``place: Bd5`` or ``place: {at: Bd5, from: front}``)
fails every branch, and only the branch the player meant is worth reading (the one matching what was
written: a word for a word, a mapping for a mapping).
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from typing import Any

from pydantic import BaseModel, ValidationError

from pbem.core.i18n import _, ngettext
from pbem.core.steps import Step, _flow
from pbem.intake.orderfile import Positions

#: the error types that only say "this branch wanted another kind of value"
_WRONG_KIND = {
    "model_type",
    "model_attributes_type",
    "dict_type",
    "string_type",
    "list_type",
    "int_type",
    "float_type",
    "bool_type",
    "none_required",
    "literal_error",
}
ENVELOPE_FIELDS = ("game", "player", "turn", "password", "orders")


def shown(value: Any) -> str:
    """A value as the player wrote it, short: ``ac6``, ``{at: Bd5}``, ``[e4, c2]``."""
    text = "nothing" if value is None else _flow(value)
    if isinstance(value, dict) and len(value) == 1:  # a step: `place: Bd5`, as it was written
        text = text.removeprefix("{").removesuffix("}")
    return text if len(text) <= 50 else text[:47] + "..."


def suggest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    """The one choice ``word`` is most likely a slip of (one letter off, two swapped), if any."""
    found = difflib.get_close_matches(word.lower(), list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


def _step_models(model: type[BaseModel]) -> dict[str, type[Step]]:
    return {m.keyword: m for m in getattr(model, "step_models", ())}


def _example(step: type[Step] | None) -> str | None:
    """The step's first example, as a ``- …`` line."""
    if step is None:
        return None
    info = next(iter(step.model_fields.values()))
    examples = info.examples or []
    if not examples:
        return None
    value = examples[0]
    return f"- {step.keyword}" if value is None else f"- {step.keyword}: {_flow(value)}"


def _takes(step: type[Step] | None) -> str:
    """``place takes …`` from the step's description, or nothing."""
    if step is None:
        return ""
    info = next(iter(step.model_fields.values()))
    description = info.description or (step.__doc__ or "").strip().split("\n\n")[0]
    example = _example(step)
    text = _(" `{keyword}`: {description}.", keyword=step.keyword, description=description.rstrip("."))
    text = text if description else ""
    if example:
        text += _(" Write it like `{example}`.", example=example)
    if not text:
        text = _(" The template's comments show how to write `{keyword}`.", keyword=step.keyword)
    return text


def _reason(err: dict[str, Any], where: str) -> str:
    """What is wrong, for one pydantic error (``where`` names the value: the step or its field)."""
    kind, value, ctx = err["type"], err.get("input"), err.get("ctx") or {}
    if value is None and kind not in ("missing", "extra_forbidden", "none_required"):
        expected = str(ctx.get("expected", "")).replace("'", "")
        if expected:
            return _("{where} needs a value after it: one of {expected}", where=where, expected=expected)
        return _("{where} needs a value after it", where=where)
    if kind == "value_error":  # a game's own check across fields: its words
        return str(ctx.get("error", err.get("msg", "")))
    if kind == "literal_error":
        expected = str(ctx.get("expected", "")).replace("'", "")
        return _("`{value}` is not one of {expected}", value=shown(value), expected=expected)
    if kind == "string_pattern_mismatch":
        return _("`{value}` is not how {where} is written", value=shown(value), where=where)
    if kind == "missing":
        return _("{where} is missing", where=where)
    if kind == "extra_forbidden":
        return _("{where} is not part of this step", where=where)
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return _("`{value}` is not a whole number", value=shown(value))
    if kind in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        return _(
            "`{value}` is too small for {where} (the least is {bound})",
            value=shown(value),
            where=where,
            bound=bound,
        )
    if kind in ("less_than_equal", "less_than"):
        bound = ctx.get("le", ctx.get("lt"))
        return _(
            "`{value}` is too large for {where} (the most is {bound})",
            value=shown(value),
            where=where,
            bound=bound,
        )
    if kind == "too_short":
        least = int(ctx.get("min_length") or 0)
        return ngettext(
            "{where} needs at least {n} item", "{where} needs at least {n} items", least, where=where
        )
    if kind == "too_long":
        most = int(ctx.get("max_length") or 0)
        return ngettext(
            "{where} takes at most {n} item", "{where} takes at most {n} items", most, where=where
        )
    if kind == "list_type":
        return _("{where} is a list, like [a, b]; not `{value}`", where=where, value=shown(value))
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return _("{where} is a group like {{name: value}}; not `{value}`", where=where, value=shown(value))
    if kind == "string_type":
        return _("{where} is a word; not `{value}`", where=where, value=shown(value))
    if kind in ("bool_type", "bool_parsing"):
        return _("{where} is true or false; not `{value}`", where=where, value=shown(value))
    if kind == "none_required":
        return _("{where} takes nothing after it; write the bare word", where=where)
    return _("`{value}` is not right for {where}", value=shown(value), where=where)


def _best(errors: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The errors of the branch the player meant: drop "wrong kind of value" errors while others remain."""
    meant = [e for e in errors if e["type"] not in _WRONG_KIND]
    if not meant:
        # several branches, each wanting another kind: the literal list (a word) says the most
        literal = [e for e in errors if e["type"] == "literal_error"]
        meant = literal[:1] or errors[:1]
    return meant


def _field_path(loc: list[Any], step: type[Step] | None) -> list[str]:
    """The fields under the step's keyword, without pydantic's names of union branches."""
    names: set[str] = set()
    if step is not None:
        _collect_fields(step, names)
    return [str(p) for p in loc if isinstance(p, int) or str(p) in names]


def _collect_fields(model: Any, names: set[str], depth: int = 0) -> None:
    if depth > 4 or not isinstance(model, type) or not issubclass(model, BaseModel):
        return
    for name, info in model.model_fields.items():
        names.add(info.alias or name)
        names.add(name)
        for arg in _args(info.annotation):
            _collect_fields(arg, names, depth + 1)


def _args(annotation: Any) -> list[Any]:
    from typing import get_args

    out, todo = [], [annotation]
    while todo:
        item = todo.pop()
        args = get_args(item)
        if args:
            todo.extend(args)
        else:
            out.append(item)
    return out


def step_errors(exc: ValidationError, orders: Any, model: type[BaseModel], where: Positions) -> list[str]:
    """One message per faulty step (in order), then any about the list as a whole."""
    steps = _step_models(model)
    names = list(steps)
    by_step: dict[int, list[dict[str, Any]]] = defaultdict(list)
    whole: list[dict[str, Any]] = []
    for err in exc.errors():
        loc = list(err["loc"])
        (by_step[loc[0]] if loc and isinstance(loc[0], int) else whole).append(err)
    out = []
    for index in sorted(by_step):
        written = orders[index] if isinstance(orders, list) and index < len(orders) else None
        head = where.step(index) + _("step {n} (`{step}`): ", n=index + 1, step=shown(written))
        errors = by_step[index]
        if any(e["type"] == "unknown_step" for e in errors):
            out.append(head + _unknown(written, names, steps) + " [orders.unknown_step]")
            continue
        keyword = str(errors[0]["loc"][1]) if len(errors[0]["loc"]) > 1 else ""
        step = steps.get(keyword)
        reasons = []
        for err in _best(errors):
            path = _field_path(list(err["loc"])[2:], step)
            if path and path[0] == (next(iter(step.model_fields.values())).alias if step else None):
                path = path[1:]
            if path and step is not None and path[0] == next(iter(step.model_fields)):
                path = path[1:]
            named = f"`{keyword}`" + (f" `{'.'.join(path)}`" if path else "")
            reason = _reason(err, named)
            if reason not in reasons:
                reasons.append(reason)
        out.append(head + "; ".join(reasons) + "." + _takes(step) + f" [orders.{_code(_best(errors)[0])}]")
    for err in whole:
        out.append(_whole(err, names, where))
    return out


def _code(err: dict[str, Any]) -> str:
    return {"missing": "missing", "extra_forbidden": "unknown_field"}.get(err["type"], "bad_value")


def _unknown(written: Any, names: list[str], steps: dict[str, type[Step]]) -> str:
    listed = ", ".join(names)
    if isinstance(written, str) and ":" in written:
        key, _sep, value = written.partition(":")
        if key.strip() in steps:
            return _(
                "write a space after the colon: `- {key}: {value}`, not `- {written}`",
                key=key.strip(),
                value=value.strip(),
                written=written,
            )
    if isinstance(written, dict) and len(written) > 1:
        return _(
            "one step per `- ` line, each a single `step: value`; this one holds {keys}: put each on a line "
            "of its own",
            keys=", ".join(map(str, written)),
        )
    keyword = (
        written
        if isinstance(written, str)
        else next(iter(written), None)
        if isinstance(written, dict)
        else None
    )
    if not isinstance(keyword, str):
        return _(
            "a step is `- step: value`, or a bare word like `- {bare}`; the steps here are: {steps}",
            bare=names[-1] if names else "pass",
            steps=listed,
        )
    near = suggest(keyword, names)
    if near is not None:
        value = written.get(keyword) if isinstance(written, dict) else None
        fixed = f"- {near}" if value is None else f"- {near}: {_flow(value)}"
        return _(
            "`{word}` is not a step; did you mean `{near}`? Write `{fixed}`",
            word=keyword,
            near=near,
            fixed=fixed,
        )
    return _(
        "`{word}` is not a step you can take now; the steps here are: {steps} (the template's comments "
        "show each one)",
        word=keyword,
        steps=listed,
    )


def _whole(err: dict[str, Any], names: list[str], where: Positions) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    at = where.key("orders")
    if kind == "too_short":
        return at + ngettext(
            "orders: give at least {n} step, one `- ` line each under orders: [orders.too_few]",
            "orders: give at least {n} steps, one `- ` line each under orders: [orders.too_few]",
            int(ctx.get("min_length") or 0),
        )
    if kind == "too_long":
        return at + ngettext(
            "orders: at most {n} step is taken now [orders.too_many]",
            "orders: at most {n} steps are taken now [orders.too_many]",
            int(ctx.get("max_length") or 0),
        )
    example = f"- {names[-1]}" if names else "- pass"
    return at + _(
        "orders: write your steps as a list under orders:, one `- ` line each, indented two spaces "
        "(`  {example}`) [orders.not_a_list]",
        example=example,
    )


def envelope_errors(exc: ValidationError, where: Positions) -> list[str]:
    """The envelope's errors (game, player, turn, password, orders), each naming its line."""
    fields = ", ".join(ENVELOPE_FIELDS)
    out = []
    errors = exc.errors()
    # a misspelt field is one mistake, not two: the "missing" of the field it is a slip of goes
    slips = {
        suggest(str(e["loc"][0]), ENVELOPE_FIELDS)
        for e in errors
        if e["type"] == "extra_forbidden" and e["loc"]
    }
    for err in errors:
        name = ".".join(str(part) for part in err["loc"]) or "envelope"
        kind, value, ctx = err["type"], err.get("input"), err.get("ctx") or {}
        at = where.key(name)
        if kind == "missing" and name in slips:
            continue
        if kind == "missing":
            text = _(
                "{name} is missing; every order file names {fields} (the template has them all)",
                name=name,
                fields=fields,
            )
        elif kind == "extra_forbidden":
            near = suggest(name, ENVELOPE_FIELDS)
            text = (
                _(
                    "`{name}` is not part of an order file; did you mean `{near}`? Write `{near}: {value}`",
                    name=name,
                    near=near,
                    value=shown(value),
                )
                if near
                else _(
                    "`{name}` is not part of an order file ({fields}); a note goes after a #, as a comment",
                    name=name,
                    fields=fields,
                )
            )
        elif name == "turn":
            text = _(
                "turn: `{value}` is not a turn number; write the number the template gives, e.g. `turn: 3`",
                value=shown(value),
            )
        elif kind == "string_too_short":
            text = _("{name} is empty; write it as in the template", name=name)
        elif kind == "string_too_long":
            most = int(ctx.get("max_length") or 0)
            text = ngettext(
                "{name} is longer than {n} character", "{name} is longer than {n} characters", most, name=name
            )
        else:
            text = _(
                "{name}: `{value}` is not a word; write it as in the template", name=name, value=shown(value)
            )
        # Translators: an error in the lines game:, player:, turn:, password: above orders:; {at} is
        # "line 3: " or nothing, {error} the error; keep [envelope.{kind}], a tag for tools
        out.append(_("the order file's head: {at}{error} [envelope.{kind}]", at=at, error=text, kind=kind))
    return out
