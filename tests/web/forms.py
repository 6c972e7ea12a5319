"""Reading the orders form as a browser without JavaScript would: its forms, their hidden fields and
buttons, so a test presses a button by sending exactly what that button sends."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class Button:
    name: str | None
    value: str
    text: str = ""


@dataclass
class Form:
    action: str
    hidden: list[tuple[str, str]] = field(default_factory=list)
    buttons: list[Button] = field(default_factory=list)
    textareas: dict[str, str] = field(default_factory=dict)

    def data(self, button: Button | None = None, **more: str) -> list[tuple[str, str]]:
        """What pressing ``button`` sends: the hidden fields, the button's name and value, ``more``."""
        sent = list(self.hidden) + list(self.textareas.items())
        if button is not None and button.name:
            sent.append((button.name, button.value))
        return sent + list(more.items())

    def button(self, name: str, value: str | None = None) -> Button:
        return next(b for b in self.buttons if b.name == name and (value is None or b.value == value))


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[Form] = []
        self._in: Form | None = None
        self._button: Button | None = None
        self._area: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._in = Form(a.get("action", ""))
            self.forms.append(self._in)
        elif self._in is not None and tag == "input" and a.get("type") == "hidden":
            self._in.hidden.append((a["name"], a.get("value", "")))
        elif self._in is not None and tag == "button" and "disabled" not in a:
            self._button = Button(a.get("name") or None, a.get("value", ""))
            self._in.buttons.append(self._button)
        elif self._in is not None and tag == "textarea":
            self._area = a["name"]
            self._in.textareas[self._area] = ""

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in = None
        elif tag == "button":
            self._button = None
        elif tag == "textarea":
            self._area = None

    def handle_data(self, data: str) -> None:
        if self._button is not None:
            self._button.text += data.strip()
        if self._in is not None and self._area is not None:
            self._in.textareas[self._area] += data


def encoded(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Form fields as httpx sends them: each name with its values in order."""
    out: dict[str, list[str]] = {}
    for name, value in pairs:
        out.setdefault(name, []).append(value)
    return out


def forms(page: str) -> dict[str, Form]:
    """The page's forms by the last part of their action (``step``, ``submit``, ``yaml``, ``press``)."""
    reader = _Reader()
    reader.feed(page)
    return {form.action.rsplit("/", 1)[-1]: form for form in reader.forms}
