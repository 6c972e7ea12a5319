"""Order grammars as lists of one-key steps, shared by every game.

An order list is YAML like::

    - larva: yellow
    - place: {at: Bd5, from: front}
    - pass

Each step kind is a pydantic model with exactly one field, named (or aliased) after its keyword. A step
with nothing to say may be written as the bare keyword (``- pass``). :func:`steps_model` builds the
``RootModel`` for a decision; unknown keywords get one clear error naming the known ones, and the model's
JSON Schema is what ``pbem schema`` prints.

>>> from pydantic import BaseModel, Field
>>> class Take(Step):
...     take: str
>>> class Pass(Step):
...     pass_: None = Field(None, alias="pass")
>>> Orders = steps_model("Orders", Take, Pass)
>>> Orders.model_validate([{"take": "white"}, "pass"]).root
[Take(take='white'), Pass(pass_=None)]
>>> dump_steps(Orders.model_validate(["pass", {"take": "white"}]))
[{'pass': None}, {'take': 'white'}]
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, RootModel, Tag, model_validator

#: more steps than any legal turn of any shipped game needs; a bound against hostile input
MAX_STEPS = 200


class Step(BaseModel):
    """Base of every step model: exactly one field, the keyword; unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    keyword: ClassVar[str] = ""

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        fields = list(cls.model_fields.items())
        if len(fields) != 1:
            raise TypeError(f"step {cls.__name__} must have exactly one field, has {len(fields)}")
        name, info = fields[0]
        cls.keyword = info.alias or name

    @model_validator(mode="before")
    @classmethod
    def _bare_keyword(cls, data: Any) -> Any:
        if isinstance(data, str) and data == cls.keyword:
            return {cls.keyword: None}
        return data

    @property
    def value(self) -> Any:
        return getattr(self, next(iter(type(self).model_fields)))

    def quote(self) -> str:
        """The step as a player would write it, for error messages: ``place: Bd5``."""
        dumped = self.model_dump(mode="json", by_alias=True)[self.keyword]
        if dumped is None:
            return self.keyword
        return f"{self.keyword}: {_flow(dumped)}"


def _flow(value: Any) -> str:
    """YAML flow style, compact: ``{at: Bd5, from: front}``, ``[cod, amber]``."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _keyword_of(value: Any) -> str | None:
    if isinstance(value, Step):
        return value.keyword
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        return key if isinstance(key, str) else None
    return None


def step_union(*models: type[Step]) -> Any:
    """The annotated union of these step models, told apart by their keyword."""
    if not models:
        raise TypeError("a step union needs at least one step model")
    names = ", ".join(m.keyword for m in models)
    members = tuple(Annotated[m, Tag(m.keyword)] for m in models)
    return Annotated[
        Union[members],  # noqa: UP007 - a runtime-built union of tagged members
        Discriminator(
            _keyword_of,
            custom_error_type="unknown_step",
            custom_error_message=f"not a known step; a step is one of: {names}",
            custom_error_context={"steps": names},
        ),
    ]


def steps_model(
    name: str, *models: type[Step], min_steps: int = 0, max_steps: int = MAX_STEPS
) -> type[RootModel]:
    """A ``RootModel`` for a list of these steps, of ``min_steps`` to ``max_steps`` items."""
    item = step_union(*models)
    annotation = Annotated[list[item], Field(min_length=min_steps, max_length=max_steps)]  # type: ignore[valid-type]
    # the step models ride along, for messages that name a step's fields and examples
    namespace = {"__module__": models[0].__module__, "__annotations__": {"step_models": ClassVar[tuple]}}
    return type(name, (RootModel[annotation],), {**namespace, "step_models": models})


def dump_steps(orders: RootModel) -> list[Any]:
    """Orders as plain data, the form they are stored, hashed and replayed in."""
    return orders.model_dump(mode="json", by_alias=True)
