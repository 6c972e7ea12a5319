"""The orders form at ``/g/<game>/<seat>/orders``: orders by clicking, step by step, and the YAML box.

Every choice is a button of an ordinary form that carries the steps chosen so far (as hidden fields),
the turn the form was made for and the CSRF token; the host checks all of them again on every request
(:mod:`pbem.play.builder`), so a form kept open past the turn, or edited by hand, is refused in the
player's words. Without JavaScript each POST answers with the whole page; ``orders.js`` asks for the
changed part only (header ``X-PBEM-Fragment``). Sending goes through the intake of mail and files, and
a confirmation is mailed to the seat as for orders sent by mail.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import FileResponse, HTMLResponse
from sqlalchemy import Engine
from sqlmodel import Session, select

from pbem.core.game import JSON
from pbem.core.i18n import _, language
from pbem.outbox import notices
from pbem.outbox.settings import load_settings
from pbem.play import builder
from pbem.play.orders import Check, Receipt
from pbem.render.environment import environment
from pbem.storage.history import game_facts, game_of
from pbem.storage.models import SeatRow
from pbem.web import api, receipts
from pbem.web.auth import SeatAccess, api_token, check_csrf, csrf_token, engine_of, seat_access
from pbem.web.words import render

router = APIRouter()

SCRIPT = Path(__file__).resolve().parent / "static" / "orders.js"
SCRIPT_URL = "/static/orders.js"
#: the header orders.js sends to be answered with the changed part of the page only
FRAGMENT = "x-pbem-fragment"

Steps = Annotated[list[str] | None, Form()]


def _base(access: SeatAccess) -> str:
    return f"/g/{quote(access.game_id, safe='')}/{quote(access.seat, safe='')}/orders"


def _game_facts(engine: Engine, game_id: str) -> dict[str, str]:
    with Session(engine) as session:
        row = game_facts(session, game_id)
    title = game_of(row).title if row is not None else game_id
    return {"id": game_id, "title": title}


def _api_of(request: Request, engine: Engine, access: SeatAccess) -> dict[str, str]:
    """Where a program reaches this seat through the JSON API, and the seat's bearer token (this page is
    the seat's own: only its player, signed in, reads it)."""
    with Session(engine) as session:
        generation = session.exec(
            select(SeatRow.link_generation).where(
                SeatRow.game_id == access.game_id, SeatRow.name == access.seat
            )
        ).one()
    return {
        "base": f"{api.PREFIX}/games/{quote(access.game_id, safe='')}/seats/{quote(access.seat, safe='')}",
        "token": api_token(request.app.state.settings.secret_key, access, generation),
    }


class _Page:
    """What one answer of the form shows, rendered as the whole page or as the part that changed."""

    def __init__(self, request: Request, access: SeatAccess) -> None:
        self.request = request
        self.access = access
        self.engine: Engine = engine_of(request)
        self.built: builder.Steps | None = None
        self.refusal: str | None = None
        self.notice: str | None = None
        self.checked: Check | None = None
        self.sent: Receipt | None = None
        self.yaml_text: str | None = None

    def build(self, chosen: list[JSON], turn: int | None) -> None:
        """The steps after ``chosen``; refused, the reason is shown and the form starts over."""
        try:
            self.built = builder.steps(self.engine, self.access.game_id, self.access.seat, chosen, turn)
        except builder.Refused as refused:
            self.refusal = refused.message
            if chosen:  # the turn is still due: the form goes on from no step at all
                self.build([], None)

    def start_over(self, refused: builder.Refused) -> HTMLResponse:
        """Why the steps sent are refused, and the form from no step at all."""
        self.refusal = refused.message
        self.build([], None)
        return self.render("orders_form")

    def render(self, part: str | None = None) -> HTMLResponse:
        whole = part is None or self.request.headers.get(FRAGMENT) != "1"
        if self.yaml_text is None and whole:  # the YAML box is in the whole page only
            try:
                self.yaml_text = builder.template(self.engine, self.access.game_id, self.access.seat)
            except builder.Refused:
                self.yaml_text = ""
        context: dict[str, Any] = {
            "game": _game_facts(self.engine, self.access.game_id),
            "seat": self.access.seat,
            "page": f"/g/{quote(self.access.game_id, safe='')}/{quote(self.access.seat, safe='')}",
            "base": _base(self.access),
            "script": SCRIPT_URL,
            "built": self.built,
            "refusal": self.refusal,
            "notice": self.notice,
            "checked": self.checked,
            "sent": self.sent,
            "yaml_text": self.yaml_text,
            "token": builder.step_token,
            "shown": builder.shown_step,
        }
        if whole:
            context["api"] = _api_of(self.request, self.engine, self.access)
            return render(self.request, "orders", self.access.language, **context)
        # the changed part alone, for orders.js: in the seat's language, with the form's CSRF token
        with language(self.access.language):
            html = (
                environment()
                .get_template(f"web/{part}.html.j2")
                .render(csrf=csrf_token(self.request), **context)
            )
        return HTMLResponse(html)


@router.get(SCRIPT_URL, include_in_schema=False)
def script() -> FileResponse:
    return FileResponse(SCRIPT, media_type="text/javascript", headers={"Cache-Control": "max-age=3600"})


@router.get("/g/{game}/{seat}/orders", response_class=HTMLResponse, include_in_schema=False)
def orders_form(request: Request, access: Annotated[SeatAccess, Depends(seat_access)]) -> HTMLResponse:
    with language(access.language):
        page = _Page(request, access)
        page.build([], None)
        standing = builder.standing_orders(page.engine, access.game_id, access.seat)
        if standing is not None and page.built is not None:
            page.notice = _(
                "Your orders for turn {turn} stand (shown in the YAML box below); orders you send now "
                "replace them until the turn is resolved.",
                turn=page.built.turn,
            )
        return page.render()


@router.post("/g/{game}/{seat}/orders/step", response_class=HTMLResponse, include_in_schema=False)
def add_step(
    request: Request,
    access: Annotated[SeatAccess, Depends(seat_access)],
    csrf: Annotated[str, Form()] = "",
    turn: Annotated[int | None, Form()] = None,
    step: Steps = None,
    add: Annotated[str | None, Form()] = None,
    undo: Annotated[str | None, Form()] = None,
) -> HTMLResponse:
    check_csrf(request, csrf)
    with language(access.language):
        page = _Page(request, access)
        try:
            chosen = builder.read_tokens([*(step or []), *([add] if add else [])])
        except builder.Refused as refused:
            return page.start_over(refused)
        if undo:
            chosen = chosen[:-1]
        page.build(chosen, turn)
        return page.render("orders_form")


@router.post("/g/{game}/{seat}/orders/submit", response_class=HTMLResponse, include_in_schema=False)
def submit_steps(
    request: Request,
    access: Annotated[SeatAccess, Depends(seat_access)],
    csrf: Annotated[str, Form()] = "",
    turn: Annotated[int | None, Form()] = None,
    step: Steps = None,
) -> HTMLResponse:
    check_csrf(request, csrf)
    with language(access.language):
        page = _Page(request, access)
        try:
            chosen = builder.read_tokens(step or [])
            built = builder.steps(page.engine, access.game_id, access.seat, chosen, turn)
        except builder.Refused as refused:
            return page.start_over(refused)
        if not built.complete:
            page.built = built
            page.refusal = _("These orders are not complete yet: choose more steps before sending them.")
            return page.render("orders_form")
        receipt = _send(page, built.text)
        if receipt.accepted:
            page.notice = _accepted(receipt)
            page.build([], None)
        else:
            page.refusal = "\n".join(receipt.errors)
            page.built = built
        return page.render("orders_form")


@router.post("/g/{game}/{seat}/orders/yaml", response_class=HTMLResponse, include_in_schema=False)
def yaml_box(
    request: Request,
    access: Annotated[SeatAccess, Depends(seat_access)],
    csrf: Annotated[str, Form()] = "",
    text: Annotated[str, Form()] = "",
    do: Annotated[str, Form()] = "check",
) -> HTMLResponse:
    check_csrf(request, csrf)
    with language(access.language):
        page = _Page(request, access)
        page.yaml_text = text
        if do == "send":
            page.sent = _send(page, text)
        else:
            page.checked = builder.check(page.engine, access.game_id, access.seat, text)
        if request.headers.get(FRAGMENT) != "1":
            page.build([], None)
        return page.render("orders_yaml")


def _send(page: _Page, text: str) -> Receipt:
    """Orders of the signed-in seat through the intake, and their confirmation mailed when accepted."""
    receipt = builder.submit(
        page.engine, page.access.game_id, page.access.seat, text, after_turn=notices.after_turn
    )
    if receipt.accepted:
        receipts.confirm(page.engine, load_settings(), receipt)
    return receipt


def _accepted(receipt: Receipt) -> str:
    said = _(
        "Your orders are accepted for turn {turn} (receipt {receipt}); a confirmation is on its way by mail.",
        turn=receipt.turn,
        receipt=(receipt.receipt or "")[:12],
    )
    if receipt.replaced_at is not None:
        said += " " + _("They replace the orders you sent before for this turn.")
    return said
