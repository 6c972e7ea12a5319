"""Orders step by step, for the web's orders form and the JSON API alike.

A seat's orders are built one step at a time from the steps its game allows next
(:meth:`pbem.core.game.StepGuide.next_steps`), each shown in the reader's words. Whatever is built
becomes an ordinary order file (the envelope of ``pbem template``, the steps under ``orders:``), and
goes through the one intake of mail and files (:mod:`pbem.play.orders`): checked with the same words,
previewed as ``pbem check`` previews, stored with the same receipt, replacing the seat's earlier orders
until the turn resolves. The signed-in seat stands for the file's password (``signed_in``).

Nothing here trusts what the browser or the client sends back: the steps chosen so far are checked
again by the rules on every request, against the turn the form was made for.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.game import JSON, RulesError, StepGuide
from pbem.core.i18n import _, ngettext
from pbem.intake.envelope import order_template, orders_yaml, scalar_flow
from pbem.intake.orderfile import Positions
from pbem.play import orders, turns
from pbem.play.orders import Check, Receipt, rules_error
from pbem.play.standing import Standing, due_decision
from pbem.storage.history import STANDING_ORDERS, game_facts, game_of, of_turn
from pbem.storage.models import SeatRow

#: the most steps one request may carry (no game's decision has nearly as many): a bound on the work
#: a client can ask of the rules per request
MAX_STEPS = 200

_CODE = re.compile(r"\[([a-z_]+\.[a-z_.]+)\]\s*$")


class Refused(Exception):
    """The seat cannot add these steps now: ``message`` says why in the reader's words (as the intake
    says it), ``code`` is the stable code at its end (``turn.not_yours``, ``turn.stale``, a rule's)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Choice:
    """One step the seat may add next: as it stands under ``orders:``, its keyword, and its label in
    the reader's words."""

    step: JSON
    keyword: str
    label: str

    @property
    def token(self) -> str:
        """The step as one line of canonical JSON: what a form carries for it."""
        return step_token(self.step)


@dataclass(frozen=True)
class Steps:
    """Where a seat stands in building its orders for the turn that is due."""

    game_id: str
    seat: str
    turn: int
    #: the decision's prompt, in the reader's words
    prompt: str
    chosen: list[JSON]
    choices: list[Choice]
    #: whether ``chosen`` already makes orders the rules accept (they may be sent as they are)
    complete: bool
    #: the order file of ``chosen`` (the password as the template's placeholder: the sign-in stands for it)
    text: str
    #: ``pbem check``'s preview of ``chosen`` when complete
    preview: str | None = None
    receipt: str | None = None
    #: each chosen step in words, as its button said when it was chosen
    chosen_labels: list[str] = field(default_factory=list)

    def by_keyword(self) -> list[tuple[str, list[Choice]]]:
        """The choices grouped by keyword, the groups in the order the game first offers them."""
        groups: dict[str, list[Choice]] = {}
        for choice in self.choices:
            groups.setdefault(choice.keyword, []).append(choice)
        return list(groups.items())


def step_token(step: JSON) -> str:
    return json.dumps(step, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def read_tokens(tokens: Sequence[str]) -> list[JSON]:
    """Steps back from the tokens a form carried; :class:`Refused` for one that is not a step."""
    if len(tokens) > MAX_STEPS:
        raise Refused("orders.too_many", _too_many())
    steps: list[JSON] = []
    for n, token in enumerate(tokens, start=1):
        try:
            steps.append(json.loads(token))
        except ValueError:
            raise Refused(
                "orders.unreadable",
                _("{step} could not be read; undo it and choose again", step=_("step {n}", n=n)),
            ) from None
    return steps


def _too_many() -> str:
    return ngettext(
        "at most {n} step can be chosen at once", "at most {n} steps can be chosen at once", MAX_STEPS
    )


def refusal(errors: list[str]) -> Refused:
    """The intake's errors as one :class:`Refused`, coded by the first error's code."""
    found = _CODE.search(errors[0]) if errors else None
    return Refused(found.group(1) if found else "orders.refused", "\n".join(errors))


def _standing(engine: Engine, game_id: str, seat: str, turn: int | None) -> tuple[Any, Standing]:
    with Session(engine) as session:
        row = game_facts(session, game_id)
    if row is None:
        raise Refused("game.unknown", _("there is no game {game}", game=repr(game_id)))
    standing = due_decision(row, seat, row.turn + 1 if turn is None else turn)
    if standing.errors:
        raise refusal(standing.errors)
    return row, standing


def file_text(row: Any, standing: Standing, seat: str, chosen: Sequence[JSON]) -> str:
    assert standing.game is not None and standing.decision is not None
    return order_template(
        title=standing.game.title,
        game_id=row.id,
        seat=seat,
        turn=row.turn + 1,
        decision=replace(standing.decision, prompt=_(standing.decision.prompt)),
        orders_text=orders_yaml(list(chosen)),
        game_name=standing.game.name,
    )


def order_file(
    engine: Engine, game_id: str, seat: str, chosen: Sequence[JSON], turn: int | None = None
) -> str:
    """The order file of ``chosen`` for the turn that is due (``turn``: refused once it is not), for any
    game, led step by step or not (the API's orders given as a list)."""
    row, standing = _standing(engine, game_id, seat, turn)
    return file_text(row, standing, seat, chosen)


def guided(engine: Engine, game_id: str) -> bool:
    """Whether the game of ``game_id`` leads its players step by step (else only the YAML box is offered)."""
    with Session(engine) as session:
        row = game_facts(session, game_id)
    if row is None:
        return False
    return isinstance(game_of(row), StepGuide)


def steps(engine: Engine, game_id: str, seat: str, chosen: Sequence[JSON], turn: int | None = None) -> Steps:
    """The steps ``seat`` may add after ``chosen`` for the turn that is due (``turn``: the one the form
    was made for, refused once the game moved on), and the preview once ``chosen`` is complete.
    Raises :class:`Refused` when the seat owes nothing, the turn moved on, or a chosen step is illegal."""
    if len(chosen) > MAX_STEPS:
        raise Refused("orders.too_many", _too_many())
    row, standing = _standing(engine, game_id, seat, turn)
    game, decision = standing.game, standing.decision
    assert game is not None and decision is not None
    text = file_text(row, standing, seat, chosen)
    if not isinstance(game, StepGuide):
        raise Refused(
            "orders.not_stepped",
            _(
                "{title} cannot be played step by step yet; write your orders in the YAML box",
                title=game.title,
            ),
        )
    try:
        offered = game.next_steps(standing.state, seat, list(chosen))
    except RulesError as exc:
        raise Refused(exc.code, rules_error(exc, Positions())) from None
    choices = [Choice(c.step, c.keyword, _(c.label)) for c in offered.choices]
    built = Steps(
        game_id=row.id,
        seat=seat,
        turn=row.turn + 1,
        prompt=_(decision.prompt),
        chosen=list(chosen),
        choices=choices,
        complete=offered.complete,
        text=text,
        chosen_labels=_labels(game, standing.state, seat, chosen),
    )
    if not offered.complete:
        return built
    checked = check(engine, game_id, seat, text)
    if not checked.ok:  # the game's guide and its check disagree: say what the check says
        raise refusal(checked.errors)
    return replace(built, preview=checked.preview, receipt=checked.receipt)


def shown_step(step: JSON) -> str:
    """A step as one line of YAML, as the player would write it under ``orders:``."""
    text = scalar_flow(step)
    if isinstance(step, dict) and len(step) == 1:
        text = text.removeprefix("{").removesuffix("}")
    return text


def _labels(game: StepGuide, state: Any, seat: str, chosen: Sequence[JSON]) -> list[str]:
    """The words of each chosen step: the label the guide gave it among the choices after the steps
    before it (a player reads "place one grey polyp on Bd5", not the step's YAML)."""
    labels = []
    for at, step in enumerate(chosen):
        offered = game.next_steps(state, seat, list(chosen[:at])).choices
        label = next((c.label for c in offered if c.step == step), None)
        labels.append(_(label) if label is not None else shown_step(step))
    return labels


def template(engine: Engine, game_id: str, seat: str) -> str:
    """The order file the YAML box starts from: the seat's standing orders for the turn if it sent
    any, else the game's starter orders (as ``pbem template`` writes them)."""
    row, standing = _standing(engine, game_id, seat, None)
    sent = standing_orders(engine, game_id, seat)
    if sent is not None:
        return file_text(row, standing, seat, sent)
    return orders.template(engine, game_id, seat)


def standing_orders(engine: Engine, game_id: str, seat: str) -> list[JSON] | None:
    """The orders of ``seat`` that stand for the turn that is due, if it sent any."""
    with Session(engine) as session:
        row = game_facts(session, game_id)
        if row is None:
            return None
        found = session.connection().execute(STANDING_ORDERS, of_turn(row.id, row.epoch, row.turn + 1))
        for _id, who, orders_json in found:
            if who == seat and orders_json:
                sent = json.loads(orders_json)
                return sent if isinstance(sent, list) else [sent]
    return None


def check(engine: Engine, game_id: str, seat: str, text: str | bytes) -> Check:
    """``pbem check`` of an order file the signed-in seat wrote or built (the YAML box, the API)."""
    return orders.check(engine, text, signed_in=(game_id, seat))


def submit(
    engine: Engine, game_id: str, seat: str, text: str | bytes, *, after_turn: turns.AfterTurn | None = None
) -> Receipt:
    """The order file through the intake of mail and files: stored accepted or rejected, with the
    same receipt; accepted orders replace the seat's earlier ones for the turn. In a solo game the turn
    then resolves at once (``after_turn``: called in each turn's transaction, as the tick's is)."""
    receipt = orders.submit(engine, text, source="web", signed_in=(game_id, seat))
    if receipt.accepted and _solo(engine, game_id, seat):
        # a solo game: the stand-ins owe nothing, so the turn resolves now and the player reads the next
        # report at once; the tick mails it as it mails every stored report
        turns.process(engine, game_id, after_turn=after_turn)
    return receipt


def _solo(engine: Engine, game_id: str, seat: str) -> bool:
    """Every other seat of the game is played by the stand-in."""
    with Session(engine) as session:
        others = select(SeatRow.bot_level).where(SeatRow.game_id == game_id, SeatRow.name != seat)
        return all(level is not None for level in session.exec(others))
