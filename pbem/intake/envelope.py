"""The envelope of an order file (game, player, turn, password, orders) and the template players fill in.

The template is what every report ends with and what ``pbem template`` prints: the envelope filled in,
the password as a placeholder (never the real one), and the game's own starter orders below it.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from yaml.nodes import ScalarNode

from pbem.core import markers
from pbem.core.game import Decision
from pbem.core.i18n import _
from pbem.intake.explain import envelope_errors
from pbem.intake.orderfile import Positions

PASSWORD_PLACEHOLDER = "YOUR-PASSWORD"
FIELDS = ("game", "player", "turn", "password", "orders")


class Envelope(BaseModel):
    """What every order file holds around the game's own orders."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)

    game: str = Field(min_length=1, max_length=64, description="the game's id, as in the template")
    player: str = Field(min_length=1, max_length=32, description="your seat's name, as in the template")
    # bounded by the database's 32-bit integer column: a larger number is refused here, in words,
    # before it could reach the database as an overflow
    turn: int = Field(ge=0, le=2**31 - 1, description="the turn these orders are for, as in the template")
    password: str = Field(
        min_length=1, max_length=200, description="the password you were given when the game began"
    )
    orders: Any = Field(description="your steps, one `- ` line each")


def read_envelope(data: Any, where: Positions | None = None) -> tuple[Envelope | None, list[str]]:
    """The envelope of an order file's data, or the errors that stop it, in a player's words (with the
    line of each field when ``where`` knows it)."""
    if data is None:
        return None, [
            _(
                "envelope: the orders are empty (nothing but blank lines or comments); write them as the "
                "template does: game, player, turn, password, then orders [envelope.empty]"
            )
        ]
    if not isinstance(data, dict):
        return None, [
            _(
                "envelope: an order file is lines of `name: value`: game, player, turn, password, then "
                "orders (start from the template) [envelope.not_mapping]"
            )
        ]
    try:
        return Envelope.model_validate(data), []
    except ValidationError as exc:
        return None, envelope_errors(exc, where or Positions())


def scalar_flow(value: Any) -> str:
    """``value`` as one line of YAML that reads back as itself (``on`` is quoted, ``red`` is not)."""
    if (
        type(value) is str
        and _PLAIN.fullmatch(value)
        and _RESOLVER.resolve(ScalarNode, value, (True, False)) == _STR
    ):
        return value  # what PyYAML writes for it (20 us through its emitter): the word itself
    return yaml_flow(value)


def yaml_flow(value: Any) -> str:
    """:func:`scalar_flow` as PyYAML's emitter writes it, for every value."""
    dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10**6)
    return dumped.removesuffix("\n").removesuffix("\n...").strip()


#: a name PyYAML's emitter writes plain, as it is, unless its resolver reads it as something else
#: (``on``, ``null``, ``12``, ``1e3``, ``2024-01-01``): letters, digits and ``_``, with ``-`` and
#: ``.`` inside (game ids, seats, colours, steps such as ``pass``); none is an indicator there
_PLAIN = re.compile(r"[A-Za-z0-9_]+(?:[-.]+[A-Za-z0-9_]+)*")
#: the resolver SafeDumper asks whether a plain scalar would read back as a string
_RESOLVER = yaml.resolver.Resolver()
_STR = "tag:yaml.org,2002:str"


def indent(text: str, by: str = "  ") -> str:
    return "".join(by + line if line.strip() else line for line in text.splitlines(keepends=True))


def orders_yaml(orders: Any) -> str:
    """Orders as block YAML, the way a player would write them."""
    return yaml.safe_dump(orders, default_flow_style=False, sort_keys=False, allow_unicode=True)


def order_template(
    *,
    title: str,
    game_id: str,
    seat: str,
    turn: int,
    decision: Decision,
    orders_text: str,
    game_name: str | None = None,
) -> str:
    """The whole order file for ``seat``'s pending decision, with ``orders_text`` (YAML for the value
    of ``orders:``) indented two spaces under it, however the text came indented (games indent their
    templates already; the bot's suggestions come flush left).

    With ``game_name`` it begins with the line that points an editor (yaml-language-server: VS Code's
    YAML extension, Neovim's yamlls) at the schema ``pbem schema GAME -o`` writes beside the file."""
    body = textwrap.dedent(orders_text)
    body = body if body.endswith("\n") else body + "\n"
    schema = f"# yaml-language-server: $schema={game_name}.schema.json\n" if game_name else ""
    # framed by the marker lines, so the document is found in any mail it travels in (pbem.core.markers);
    # the editor's schema line inside them, so it travels with the document
    heading = _(
        "{title} · game {game} · turn {turn} · orders of {seat}",
        title=title,
        game=game_id,
        turn=turn,
        seat=seat,
    )
    password_note = _("the password you were given when the game began")
    return markers.frame(
        f"{schema}# {heading}\n"
        f"# {decision.prompt}\n"
        f"game: {scalar_flow(game_id)}\n"
        f"player: {scalar_flow(seat)}\n"
        f"turn: {turn}\n"
        f"password: {PASSWORD_PLACEHOLDER}   # {password_note}\n"
        f"orders:\n{indent(body)}"
    )
