"""The JSON API under ``/api/v1``, for other clients and bots: the seat's view, the legal next steps,
check, submit, press and status, each for the one seat its bearer token (``Authorization: Bearer ...``)
was issued to.

The same services as the orders form and mail (:mod:`pbem.play.builder`, the intake, press), so the same
rules, words, limits and receipts. An error is ``{"error": {"code": ..., "message": ...}}``: ``code`` is
stable (the intake's and the rules' codes, ``auth.*``), ``message`` is in the seat's language. What a
seat's token reads is what that seat's report shows, never another seat's holdings.
"""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from sqlmodel import Session

from pbem.core.errors import UserError
from pbem.core.game import JSON
from pbem.core.i18n import N_, _, language
from pbem.mail import press as mail_press
from pbem.outbox import notices
from pbem.outbox.settings import load_settings
from pbem.play import builder, status
from pbem.play.builder import MAX_STEPS
from pbem.play.orders import Receipt
from pbem.storage.history import current_state, game_facts, game_of
from pbem.web import receipts
from pbem.web.auth import SeatAccess, bearer_access, engine_of
from pbem.web.words import reader_language

PREFIX = "/api/v1"
router = APIRouter(prefix=PREFIX, tags=["seat"])


def _denied(request: Request, status_code: int, code: str, message: str) -> HTTPException:
    with language(reader_language(request)):
        said = _(message)
    headers = {"WWW-Authenticate": "Bearer"} if status_code == 401 else None
    return HTTPException(status_code, detail={"code": code, "message": said}, headers=headers)


def api_seat(request: Request) -> SeatAccess:
    """The seat of the path if the bearer token was issued to it: 401 for no token or a token that is
    not (or no longer) valid, 403 for a valid token of another seat or game; the same answer whether
    the game and seat of the path exist or not."""
    try:
        access = bearer_access(request)
    except HTTPException:
        raise _denied(
            request,
            401,
            "auth.token",
            N_(
                "no valid token: send the header Authorization: Bearer followed by your seat's token "
                "(a reset password or a replaced seat ends the old one)"
            ),
        ) from None
    if (access.game_id, access.seat) != (request.path_params.get("game"), request.path_params.get("seat")):
        raise _denied(
            request,
            403,
            "auth.other_seat",
            N_("this token is for another seat: it reads and acts for its own only"),
        )
    return access


Seat = Annotated[SeatAccess, Depends(api_seat)]


class ErrorBody(BaseModel):
    code: str = Field(description="stable code: the intake's and the rules' own, e.g. turn.stale")
    message: str = Field(description="what is wrong and what to do, in the seat's language")


class ErrorAnswer(BaseModel):
    error: ErrorBody


class StepsAsked(BaseModel):
    chosen: list[JSON] = Field(default_factory=list, max_length=MAX_STEPS, description="the steps so far")
    turn: int | None = Field(None, description="the turn the client builds orders for; refused once over")


class OrdersGiven(BaseModel):
    """Orders as steps (``orders``, for the turn that is due, or ``turn``) or as a whole order file
    (``text``: the same YAML a mail carries; the password may stay the template's placeholder)."""

    orders: list[JSON] | None = Field(None, max_length=MAX_STEPS)
    turn: int | None = None
    text: str | None = Field(None, max_length=64_000)


class PressGiven(BaseModel):
    to: list[str] | str = Field(description='"all", or the seats to write to')
    text: str = Field(max_length=16_000)


def error(code: str, message: str, status_code: int) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status_code)


def _refused(refused: builder.Refused) -> JSONResponse:
    # the turn moved on or nothing is owed: a conflict with the game's state; else the steps are wrong
    conflict = refused.code.startswith(("turn.", "game."))
    return error(refused.code, refused.message, 409 if conflict else 422)


_ANSWERS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorAnswer, "description": "no token, or one that is not (or no longer) valid"},
    403: {"model": ErrorAnswer, "description": "a token of another seat or game"},
    409: {"model": ErrorAnswer, "description": "the seat owes nothing now, or the turn moved on"},
    422: {"model": ErrorAnswer, "description": "illegal orders or steps"},
}


@router.get("/games/{game}/seats/{seat}/view", responses=_ANSWERS)
def seat_view(request: Request, access: Seat) -> dict[str, Any]:
    """The seat's view of the game (what its report shows), the turn and what it owes now."""
    engine = engine_of(request)
    with language(access.language), Session(engine) as session:
        row = game_facts(session, access.game_id)
        assert row is not None  # the token was checked against the game
        game = game_of(row)
        state = current_state(game, row)
        decision = game.pending(state).get(access.seat) if row.status == "active" else None
        return {
            "game": row.id,
            "game_type": game.name,
            "title": game.title,
            "seat": access.seat,
            "status": row.status,
            "turn": row.turn + 1,
            "decision": {"kind": decision.kind, "prompt": _(decision.prompt)} if decision else None,
            "view": game.view(state, access.seat),
            "orders": builder.standing_orders(engine, access.game_id, access.seat),
        }


@router.post("/games/{game}/seats/{seat}/steps", responses=_ANSWERS)
def next_steps(request: Request, access: Seat, asked: StepsAsked) -> Any:
    """The steps the rules allow next after ``chosen``; once complete, the preview and the receipt the
    orders would get."""
    with language(access.language):
        try:
            built = builder.steps(engine_of(request), access.game_id, access.seat, asked.chosen, asked.turn)
        except builder.Refused as refused:
            return _refused(refused)
        return {
            "turn": built.turn,
            "prompt": built.prompt,
            "chosen": built.chosen,
            "choices": [{"step": c.step, "keyword": c.keyword, "label": c.label} for c in built.choices],
            "complete": built.complete,
            "order_file": built.text,
            "preview": built.preview,
            "receipt": built.receipt,
        }


def _order_file(request: Request, access: SeatAccess, given: OrdersGiven) -> str | JSONResponse:
    if (given.text is None) == (given.orders is None):
        return error(
            "orders.shape",
            _("give either orders (a list of steps) or text (an order file), not both and not neither"),
            422,
        )
    if given.text is not None:
        return given.text
    try:
        return builder.order_file(
            engine_of(request), access.game_id, access.seat, given.orders or [], given.turn
        )
    except builder.Refused as refused:
        return _refused(refused)


@router.post("/games/{game}/seats/{seat}/check", responses=_ANSWERS)
def check(request: Request, access: Seat, given: OrdersGiven) -> Any:
    """``pbem check``: the errors, or the preview and the receipt the orders would get. Stores nothing."""
    with language(access.language):
        text = _order_file(request, access, given)
        if isinstance(text, JSONResponse):
            return text
        checked = builder.check(engine_of(request), access.game_id, access.seat, text)
        return {
            "ok": checked.ok,
            "errors": checked.errors,
            "preview": checked.preview,
            "receipt": checked.receipt,
        }


@router.post("/games/{game}/seats/{seat}/orders", responses=_ANSWERS)
def submit(request: Request, access: Seat, given: OrdersGiven) -> Any:
    """Send orders: stored as by mail, with the same receipt, replacing the seat's earlier orders for the
    turn; a confirmation goes to the seat's address. Rejected orders answer 422 with every error."""
    engine = engine_of(request)
    with language(access.language):
        text = _order_file(request, access, given)
        if isinstance(text, JSONResponse):
            return text
        receipt = builder.submit(engine, access.game_id, access.seat, text, after_turn=notices.after_turn)
        if receipt.accepted:
            receipts.confirm(engine, load_settings(), receipt)
            return _receipt(receipt)
        return JSONResponse(
            {
                "error": {"code": _code(receipt.errors), "message": "\n".join(receipt.errors)},
                "errors": receipt.errors,
            },
            status_code=422,
        )


def _code(errors: list[str]) -> str:
    return builder.refusal(errors).code


def _receipt(receipt: Receipt) -> dict[str, Any]:
    return {
        "accepted": True,
        "game": receipt.game_id,
        "seat": receipt.seat,
        "turn": receipt.turn,
        "receipt": receipt.receipt,
        "replaced": receipt.replaced_at.isoformat() if receipt.replaced_at else None,
    }


@router.post("/games/{game}/seats/{seat}/press", responses=_ANSWERS)
def press(request: Request, access: Seat, given: PressGiven) -> Any:
    """Press to other seats (``to``: ``"all"`` or seat names), with the rules and limits of press by
    mail, and the same mails to its readers."""
    engine = engine_of(request)
    with language(access.language):
        try:
            checked = mail_press.prepare(engine, access.game_id, access.seat, given.to, given.text)
        except UserError as exc:
            return error("press.refused", str(exc), 422)
        with Session(engine) as session:
            checked.write(session, f"api:{uuid.uuid4()}")
            session.commit()
        return {"sent": True, "to_all": checked.to_all, "to": checked.recipients}


@router.get("/games/{game}/seats/{seat}/status", responses=_ANSWERS)
def game_status(request: Request, access: Seat) -> Any:
    """Where the game stands (what ``pbem status --json`` shows: nothing any seat keeps hidden)."""
    with language(access.language):
        return status.status(engine_of(request), access.game_id)[0]


def api_bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A body that is not what the route takes: where, in the reader's words (not the validator's)."""
    where = ", ".join(
        ".".join(str(p) for p in e.get("loc", ()) if p != "body") or "body" for e in exc.errors()[:5]
    )
    with language(reader_language(request)):
        said = _("the request's JSON body is not what this call takes; look at: {fields}", fields=where)
    return error("request.shape", said, 422)
