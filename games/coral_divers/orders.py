"""The order grammar of a Coral Divers turn: the shapes of its steps (legality is in :mod:`.turn`).

One decision kind, ``turn``. Its orders are either a Plant::

    - shell: discount
    - plant: {line: row 2}
    - place: {tile: 1, at: e4}
    - shell: {kind: extra-tile, row: 3, column: 1}
    - place: {tile: 4, at: e5}
    - discard: {tile: 2}

or a Surface: ``- surface: [e4, c2]`` (one space of each reef to close; ``[]`` to close nothing).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from pbem.core.steps import Step, steps_model

from .data import SEA_MAP

_COLUMNS = SEA_MAP.columns
SPACE_PATTERN = f"^[{_COLUMNS[0]}-{_COLUMNS[-1]}][1-{SEA_MAP.rows}]$"

#: a space of the sea floor: column letter then row number, ``e4``
Space = Annotated[str, StringConstraints(pattern=SPACE_PATTERN)]
#: a line of the nursery: ``row 2`` or ``column 3``
Line = Annotated[str, StringConstraints(pattern=r"^(row|column) [1-4]$")]
#: the number of a taken tile: its place in the taken line (1-based), extra tiles after it
TileNumber = Annotated[int, Field(ge=1, le=16)]
Nursery = Annotated[int, Field(ge=1, le=4)]


class _Shape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PlantLine(_Shape):
    line: Line = Field(description="a line of the nursery: row 1 to row 4, or column 1 to column 4")


class PlaceTile(_Shape):
    tile: TileNumber = Field(description="the tile's number: its place in the line you took, from 1")
    at: Space = Field(description="a space of the sea: column letter, row number, like e4")


class DiscardTile(_Shape):
    tile: TileNumber = Field(description="the tile's number: its place in the line you took, from 1")


class ExtraTile(_Shape):
    """``{kind: extra-tile, row: 3, column: 1}``: the nursery slot the extra tile comes from."""

    kind: Literal["extra-tile"] = Field(description="extra-tile")
    row: Nursery = Field(description="the nursery row of the slot, 1-4")
    column: Nursery = Field(description="the nursery column of the slot, 1-4")


#: the shells that need nothing more than their name
SimpleShell = Literal["pearl", "free-start", "discount"]


class Plant(Step):
    plant: PlantLine = Field(
        description="Plant, once: take every tile of a nursery line, 1 coin per tile",
        examples=[{"line": "row 2"}],
    )


class Place(Step):
    place: PlaceTile = Field(
        description="after plant: put a taken tile on a space (column letter, row number, like e4)",
        examples=[{"tile": 1, "at": "e4"}],
    )


class Discard(Step):
    discard: DiscardTile = Field(
        description="after plant: discard a taken tile (-3 points)", examples=[{"tile": 3}]
    )


class Shell(Step):
    shell: SimpleShell | ExtraTile = Field(
        description="play a shell: pearl, free-start, discount, or {kind: extra-tile, row: 1-4, column: 1-4}",
        examples=["pearl", {"kind": "extra-tile", "row": 3, "column": 1}],
    )

    @property
    def kind(self) -> str:
        return self.shell if isinstance(self.shell, str) else self.shell.kind


class Surface(Step):
    surface: Annotated[list[Space], Field(max_length=20)] = Field(
        description="Surface instead of a Plant: one space of each reef to close, like [e4, c2]; "
        "[] closes none",
        examples=[["e4", "c2"]],
    )


TurnOrders = steps_model("CoralDiversTurn", Plant, Place, Discard, Shell, Surface, min_steps=1, max_steps=40)
