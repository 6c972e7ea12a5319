"""The order grammar of Reef Encounter (DESIGN.md, "Reef Encounter steps"): shapes only, no legality."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from pbem.glossary import alias_validator
from pbem.steps import Step, steps_model

from .data import TILES

_GLOSSARY = Path(__file__).resolve().parent / "data" / "glossary"
#: a colour may be written in the player's language too (``larva: sárga``); it is read as its keyword
Colour = Annotated[
    Literal["grey", "orange", "pink", "white", "yellow"],
    BeforeValidator(alias_validator(_GLOSSARY, ("grey", "orange", "pink", "white", "yellow"))),
]
Alga = Annotated[
    Literal["blue", "green", "purple", "red"],
    BeforeValidator(alias_validator(_GLOSSARY, ("blue", "green", "purple", "red"))),
]
Space = Annotated[str, StringConstraints(pattern=r"^[A-D][a-g][1-6]$")]
TileName = Literal[tuple(sorted(TILES))]  # type: ignore[valid-type]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class PlaceFrom(_Shape):
    at: Space
    from_: Literal["screen", "front"] = Field("screen", alias="from")


class ShrimpMove(_Shape):
    from_: Space = Field(alias="from")
    to: Space | Literal["screen"]


class AlgaePlay(_Shape):
    pay: Colour
    colour: Alga
    to: Literal["space"] | TileName  # type: ignore[valid-type]


class SetupChoice(_Shape):
    parrotfish: Colour
    larvae: Annotated[list[Colour], Field(min_length=2, max_length=2)]


class Feed(Step):
    feed: Space


class Larva(Step):
    larva: Colour


class Place(Step):
    place: Space | PlaceFrom

    @property
    def at(self) -> str:
        return self.place if isinstance(self.place, str) else self.place.at

    @property
    def from_front(self) -> bool:
        return not isinstance(self.place, str) and self.place.from_ == "front"


class NewShrimp(Step):
    shrimp: Space


class MoveShrimp(Step):
    move_shrimp: ShrimpMove


class LarvaForPolyp(Step):
    larva_for_polyp: Colour


class Algae(Step):
    algae: AlgaePlay


class PolypForLarva(Step):
    polyp_for_larva: Colour


class Pass(Step):
    pass_: None = Field(None, alias="pass")


class Take(Step):
    take: Colour


class Setup(Step):
    setup: SetupChoice


TurnOrders = steps_model(
    "TurnOrders",
    Feed,
    Larva,
    Place,
    NewShrimp,
    MoveShrimp,
    LarvaForPolyp,
    Algae,
    PolypForLarva,
    Pass,
    Take,
    min_steps=1,
)
SetupOrders = steps_model("SetupOrders", Setup, min_steps=1, max_steps=1)
FinalFeedingOrders = steps_model("FinalFeedingOrders", Feed, Pass, min_steps=1, max_steps=1)

#: the action number of each step (rules section 3); a ``place`` belongs to the larva action under way
ACTION = {
    "feed": "1",
    "larva": "2",
    "place": "2",
    "shrimp": "4",
    "move_shrimp": "5",
    "larva_for_polyp": "6",
    "algae": "7",
    "polyp_for_larva": "8",
    "pass": "9",
    "take": "10",
}
