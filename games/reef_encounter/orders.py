"""The order grammar of Reef Encounter (DESIGN.md, "Reef Encounter steps"): shapes only, no legality."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from pbem.core.glossary import alias_validator
from pbem.core.steps import Step, steps_model

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
    at: Space = Field(description="the space: board letter A-D, column a-g, row 1-6, like Bd5")
    from_: Literal["screen", "front"] = Field(
        "screen", alias="from", description="front: an eaten polyp from in front of your screen"
    )


class ShrimpMove(_Shape):
    from_: Space = Field(alias="from", description="the space your shrimp is on, like Bd5")
    to: Space | Literal["screen"] = Field(description="a space like Bd6, or screen: back behind your screen")


class AlgaePlay(_Shape):
    pay: Colour = Field(description="the colour of the eaten polyp you pay with")
    colour: Alga = Field(description="the alga: blue, green, purple or red")
    to: Literal["space"] | TileName = Field(  # type: ignore[valid-type]
        description="space (the algae space), or a coral tile by its pair, like yellow-pink"
    )


class SetupChoice(_Shape):
    parrotfish: Colour = Field(description="the colour of the polyp you put into your parrotfish (secret)")
    larvae: Annotated[list[Colour], Field(min_length=2, max_length=2)] = Field(
        description="two larva cube colours, like [orange, white]"
    )


class Feed(Step):
    feed: Space = Field(
        description="action 1, only as the first step: feed the coral containing this space, like Bc3",
        examples=["Bc3"],
    )


class Larva(Step):
    larva: Colour = Field(
        description="action 2 (or 3): play a larva cube of this colour: grey, orange, pink, white or yellow",
        examples=["yellow"],
    )


class Place(Step):
    place: Space | PlaceFrom = Field(
        description="a polyp of the larva's colour onto a space (board A-D, column a-g, row 1-6, like Bd5); "
        "{at: Bd5, from: front} takes an eaten one from in front of your screen",
        examples=["Bd5", {"at": "Bd6", "from": "front"}],
    )

    @property
    def at(self) -> str:
        return self.place if isinstance(self.place, str) else self.place.at

    @property
    def from_front(self) -> bool:
        return not isinstance(self.place, str) and self.place.from_ == "front"


class NewShrimp(Step):
    shrimp: Space = Field(
        description="action 4: a new shrimp onto the polyp on this space, like Bd5", examples=["Bd5"]
    )


class MoveShrimp(Step):
    move_shrimp: ShrimpMove = Field(
        description="action 5, any time: move a shrimp {from: space, to: space}, or to: screen to take it "
        "back",
        examples=[{"from": "Bd5", "to": "Bd6"}],
    )


class LarvaForPolyp(Step):
    larva_for_polyp: Colour = Field(
        description="action 6: an eaten polyp of this colour for a larva cube of its colour",
        examples=["orange"],
    )


class Algae(Step):
    algae: AlgaePlay = Field(
        description="action 7: an eaten polyp for an alga, onto the algae space or locking a coral tile",
        examples=[{"pay": "orange", "colour": "purple", "to": "space"}],
    )


class PolypForLarva(Step):
    polyp_for_larva: Colour = Field(
        description="action 8: a larva cube of this colour for a polyp of its colour from the bag",
        examples=["white"],
    )


class Pass(Step):
    pass_: None = Field(
        None, alias="pass", description="action 9: nothing; written as the bare word", examples=[None]
    )


class Take(Step):
    take: Colour = Field(
        description="action 10, always last: the open-sea space of this larva colour", examples=["white"]
    )


class Setup(Step):
    setup: SetupChoice = Field(
        description="your parrotfish polyp (secret) and two larva cubes",
        examples=[{"parrotfish": "orange", "larvae": ["orange", "white"]}],
    )


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
