"""The envelope of an order file (game, player, turn, password, orders) and the template players fill in.

The template is what every report ends with and what ``pbem template`` prints: the envelope filled in,
the password as a placeholder (never the real one), and the game's own starter orders below it.
"""

from __future__ import annotations

import textwrap
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from pbem import markers
from pbem.game import Decision

PASSWORD_PLACEHOLDER = "YOUR-PASSWORD"
FIELDS = ("game", "player", "turn", "password", "orders")


class Envelope(BaseModel):
    """What every order file holds around the game's own orders."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)

    game: str = Field(min_length=1, max_length=64)
    player: str = Field(min_length=1, max_length=32)
    # bounded by the database's 32-bit integer column: a larger number is refused here, in words,
    # before it could reach the database as an overflow
    turn: int = Field(ge=0, le=2**31 - 1)
    password: str = Field(min_length=1, max_length=200)
    orders: Any


def read_envelope(data: Any) -> tuple[Envelope | None, list[str]]:
    """The envelope of an order file's data, or the errors that stop it, in a player's words."""
    if not isinstance(data, dict):
        return None, [
            "envelope: an order file is a YAML mapping with game, player, turn, password and orders "
            "[envelope.not_mapping]"
        ]
    try:
        return Envelope.model_validate(data), []
    except ValidationError as exc:
        errors = []
        for err in exc.errors():
            field = ".".join(str(part) for part in err["loc"]) or "envelope"
            if err["type"] == "missing":
                text = f"{field} is missing; every order file names {', '.join(FIELDS)}"
            elif err["type"] == "extra_forbidden":
                text = f"{field!r} is not part of an order file ({', '.join(FIELDS)})"
            else:
                text = f"{field}: {err['msg']}"
            errors.append(f"envelope: {text} [envelope.{err['type']}]")
        return None, errors


def scalar_flow(value: Any) -> str:
    """``value`` as one line of YAML that reads back as itself (``on`` is quoted, ``red`` is not)."""
    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**6)
    return dumped.removesuffix("\n").removesuffix("\n...").strip()


def indent(text: str, by: str = "  ") -> str:
    return "".join(by + line if line.strip() else line for line in text.splitlines(keepends=True))


def orders_yaml(orders: Any) -> str:
    """Orders as block YAML, the way a player would write them."""
    return yaml.safe_dump(orders, default_flow_style=False, sort_keys=False, allow_unicode=True)


def order_template(
    *, title: str, game_id: str, seat: str, turn: int, decision: Decision, orders_text: str
) -> str:
    """The whole order file for ``seat``'s pending decision, with ``orders_text`` (YAML for the value
    of ``orders:``) indented two spaces under it, however the text came indented (games indent their
    templates already; the bot's suggestions come flush left)."""
    body = textwrap.dedent(orders_text)
    body = body if body.endswith("\n") else body + "\n"
    # framed by the marker lines, so the document is found in any mail it travels in (pbem.markers)
    return markers.frame(
        f"# {title} · game {game_id} · turn {turn} · orders of {seat}\n"
        f"# {decision.prompt}\n"
        f"game: {scalar_flow(game_id)}\n"
        f"player: {scalar_flow(seat)}\n"
        f"turn: {turn}\n"
        f"password: {PASSWORD_PLACEHOLDER}   # the password you were given when the game began\n"
        f"orders:\n{indent(body)}"
    )
