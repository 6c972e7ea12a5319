"""The order grammar: one-key steps per decision (DESIGN.md, "Mare Balticum steps").

Shape only (names, types, which fields go together); legality is :mod:`.rules`' business.

- ``port`` decision: exactly one ``port: gdansk``.
- ``turn`` decision: ``sail``, ``fish``, ``unload``, ``contract`` (actions, at most three) and
  ``discard`` (free), in the order they are to happen; an empty list is a turn without actions.
- ``company`` decision: exactly one ``company: {token: x3, fish: salmon}`` or
  ``company: {token: tax, discard: [cod, amber]}``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, RootModel, model_validator

from pbem.core.game import Decision
from pbem.core.glossary import alias_validator
from pbem.core.steps import Step, steps_model

Space = Literal[
    "skagerrak", "kattegat", "oresund", "arkona", "pomeranian-bay", "bornholm", "hano-bay",
    "gdansk-deep", "gdansk-bay", "curonian-coast", "eastern-gotland", "western-gotland", "gotland-deep",
    "irbe-strait", "gulf-of-riga", "landsort-deep", "stockholm-archipelago", "aland-sea",
    "northern-baltic", "archipelago-sea", "bothnian-sea", "bothnian-bay", "gulf-of-finland-west",
    "gulf-of-finland-east", "kobenhavn", "gdansk", "riga", "stockholm", "sankt-peterburg",
]  # fmt: skip
PortName = Literal["kobenhavn", "gdansk", "riga", "stockholm", "sankt-peterburg"]
#: goods may be written in the player's language too (``goods: lazac``); they are read as their keyword
_GOODS = ("salmon", "flatfish", "herring", "cod", "amber")
_ALIAS = BeforeValidator(alias_validator(Path(__file__).resolve().parent / "data" / "glossary", _GOODS))
FishKind = Annotated[Literal["salmon", "flatfish", "herring", "cod"], _ALIAS]
GoodsKind = Annotated[Literal["salmon", "flatfish", "herring", "cod", "amber"], _ALIAS]
Token = Literal["x3", "x2", "x1", "x0", "tax"]


def _flow(value: Any) -> str:
    """YAML flow style, compact: ``{to: bornholm}``, ``[cod, amber]``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def written(step: BaseModel) -> str:
    """A step as the player wrote it, for error messages: only the fields they gave
    (``sail: {to: bornholm}``, never the filled-in ``sail: {from: null, to: bornholm}``)."""
    dumped = step.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(step, Step):
        return f"{step.keyword}: {_flow(dumped[step.keyword])}"
    return _flow(dumped)


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class SailMove(_Shape):
    """``{to: X}`` puts a new ship from the supply on X; ``{from: Y, to: X}`` moves the ship on Y."""

    from_: Space | None = Field(None, alias="from", description="the sea area or port your ship is on now")
    to: Space = Field(description="the sea area or port it goes to, like gdansk-deep")


class Sail(Step):
    sail: SailMove = Field(
        description="action: a new ship {to: area}, or move one {from: area, to: area}",
        examples=[{"from": "gdansk", "to": "gdansk-deep"}],
    )


class FishTake(_Shape):
    at: Space = Field(description="the sea area your ship is on, like gdansk-deep")
    goods: GoodsKind = Field(description="salmon, flatfish, herring, cod or amber")


class Fish(Step):
    fish: FishTake = Field(
        description="action: take goods from the sea area a ship of yours is on",
        examples=[{"at": "gdansk-deep", "goods": "salmon"}],
    )


class UnloadFish(_Shape):
    """``slot`` (variant 1 only): the slot, ``0`` or ``-1``, for the first new demand token this
    unloading puts on the port; a second new token takes the other slot."""

    port: Space = Field(description="the port, like gdansk")
    fish: list[FishKind] = Field(
        min_length=1, max_length=5, description="the fish you unload, like [cod, herring]"
    )
    slot: Literal[0, -1] | None = Field(
        None, description="variant 1 only: 0 or -1, the slot of the first new token"
    )


class Unload(Step):
    unload: UnloadFish = Field(
        description="action: unload fish at a port a ship of yours is in",
        examples=[{"port": "gdansk", "fish": ["cod"]}],
    )


class Discard(Step):
    discard: list[FishKind] = Field(
        min_length=1, max_length=5, description="free: throw fish overboard, like [cod]", examples=[["cod"]]
    )


class Contract(Step):
    """``contract: [4, 2, 6]``: card numbers (1-6), best first; the first one still in the face-down
    pile is taken (variant 2). An exchanged card goes back to the pile afterwards."""

    contract: list[Annotated[int, Field(ge=1, le=6)]] = Field(
        min_length=1,
        max_length=6,
        description="variant 2: contract card numbers, best first; the first still in the pile is taken",
        examples=[[4, 2, 6]],
    )


class PortChoice(Step):
    port: PortName = Field(
        description="your home port: kobenhavn, gdansk, riga, stockholm or sankt-peterburg",
        examples=["gdansk"],
    )


class TaxGood(_Shape):
    """``{goods: cod, from: warehouse}``: one good of the tax and where it comes from (a bare ``cod``
    comes from the hold while the hold has one, else from the warehouse)."""

    goods: GoodsKind = Field(description="the good to discard", examples=["cod"])
    from_: Literal["hold", "warehouse"] = Field(
        alias="from", description="where it comes from: hold or warehouse", examples=["warehouse"]
    )


class CompanyChoice(_Shape):
    token: Token = Field(description="x3, x2, x1, x0 or tax")
    fish: FishKind | None = Field(
        None, description="with a number token: the fish whose market slot it takes"
    )
    discard: list[GoodsKind | TaxGood] | None = Field(
        None,
        max_length=2,
        description="with the tax token: two goods, each a name (from the hold) or {goods, from: warehouse}",
    )

    @model_validator(mode="after")
    def _fields_fit_token(self) -> CompanyChoice:
        if self.token == "tax":
            if self.fish is not None:
                raise ValueError("the tax token takes `discard: [...]` (two goods), not `fish`")
        else:
            if self.fish is None:
                raise ValueError(f"a number token ({self.token}) needs `fish:` naming its market slot")
            if self.discard is not None:
                raise ValueError("only the tax token discards goods")
        return self


class Company(Step):
    company: CompanyChoice = Field(
        description="a company token: {token: x3, fish: salmon}, or {token: tax, discard: [cod, amber]}",
        examples=[{"token": "x3", "fish": "salmon"}],
    )


#: the most steps a turn's orders may hold (discards are free steps, so more than the 3 actions)
TURN_STEPS = 40
TurnOrders = steps_model("MareBalticumTurn", Sail, Fish, Unload, Discard, Contract, max_steps=TURN_STEPS)
PortOrders = steps_model("MareBalticumPort", PortChoice, min_steps=1, max_steps=1)
CompanyOrders = steps_model("MareBalticumCompany", Company, min_steps=1, max_steps=1)

MODELS: dict[str, type[RootModel]] = {"turn": TurnOrders, "port": PortOrders, "company": CompanyOrders}
ACTIONS = (Sail, Fish, Unload, Contract)


def order_model(decision: Decision) -> type[RootModel]:
    """The model of ``orders`` for a decision kind (``port``, ``turn``, ``company``)."""
    try:
        return MODELS[decision.kind]
    except KeyError:
        raise ValueError(f"Mare Balticum has no decision of kind {decision.kind!r}") from None
