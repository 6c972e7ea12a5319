"""Finding the order document (or a command) in an ordinary mail's text.

Players reply to a report with a greeting above the orders, a signature below, the report quoted with
``>`` or (Outlook) pasted unquoted under ``From:``/``Sent:`` lines. In order of certainty:

1. the template's marker lines (:mod:`pbem.core.markers`): what lies between them is the document, whatever
   surrounds it; a quoted pair is never read (a reply quotes the host's own template: "thanks" above
   a quoted welcome must not send its template as orders);
2. without markers, the text is cut where the quoted earlier message begins (``mail-parser-reply``
   knows the attribution lines and Outlook header blocks of many clients and languages), ``>`` lines
   are dropped, and the document is the run of lines that starts at the first envelope key
   (``game:``, ``player:``…) and goes on while lines read like YAML (keys, ``- steps``, indented or
   empty lines, comments).

The reply library is used only to find where the earlier message starts: on the document itself it
takes ``- step`` lines for a signature (see ``/work/shared/ops``), so the document is never given to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from itertools import pairwise
from typing import ClassVar

from pbem.core import markers
from pbem.core.i18n import _
from pbem.intake.envelope import PASSWORD_PLACEHOLDER

#: keys that start a document (an order file or a command's envelope)
_START_KEY = re.compile(
    r"""^["']?(game|player|password|orders|turn|command|language|timezone|away)["']?\s*:""", re.IGNORECASE
)
#: a top-level YAML key as orders and commands write them (lower case: Outlook's "From:" is not one)
_KEY = re.compile(r"""^(?:[a-z][a-z0-9_-]*|"[a-z][a-z0-9_-]*"|'[a-z][a-z0-9_-]*')\s*:(\s|$)""")
_QUOTE = re.compile(r"^((?:[ \t]*>)+)[ \t]?")
_SIGNATURE = re.compile(r"^--\s*$")
#: the line a client writes above a message forwarded inline (Gmail, Thunderbird, Apple Mail, Outlook)
_FORWARD = re.compile(
    r"^\s*(-{5,}\s*forwarded message\s*-{5,}|begin forwarded message:)\s*$",
    re.IGNORECASE,
)
#: a subject that says the mail is a forward
FORWARD_SUBJECT = re.compile(r"^\s*(fwd?|wg|tr|rv|i|doorst)\s*:", re.IGNORECASE)


@dataclass(frozen=True)
class Found:
    """The document (indentation kept) and how it was found: ``markers`` or ``scan``. ``lines`` holds
    the number (from 1) of each of its lines in the text it was found in, so that an answer counts
    lines as the player's mail shows them (empty: as the document's own)."""

    text: str
    how: str
    lines: tuple[int, ...] = ()

    def as_shown(self) -> str:
        """The document with each line at its place in the mail, the mail's other lines left empty:
        read as YAML it is the same document, and "line 9" in an error is line 9 of the mail."""
        return as_shown(self.text, self.lines)


def as_shown(text: str, numbers: tuple[int, ...] | list[int]) -> str:
    """``text``'s lines put at the line ``numbers`` (from 1, increasing) and every other line left
    empty; ``text`` as it is when the numbers do not fit its lines."""
    lines = text.split("\n")
    if len(numbers) != len(lines) or any(b <= a for a, b in pairwise(numbers)):
        return text
    out = [""] * numbers[-1] if numbers else []
    for at, line in zip(numbers, lines, strict=True):
        out[at - 1] = line
    return "\n".join(out)


def find(text: str, command_words: tuple[str, ...] = (), *, forwarded: bool = False) -> Found | None:
    """The order document or command in a mail body, or ``None`` when there is none.

    A line holding only one of ``command_words`` just above the document (``report``, ``password``)
    belongs to it. Only the player's own part is read, unless the mail is a forward (``forwarded``,
    or a forward's own separator line in the text): a reply that says "thanks" above a quoted
    report or welcome must not send the template in it as orders.

    >>> find("Hi all,\\n\\ngame: g\\nplayer: red\\norders:\\n- pass\\n\\nThanks, Ann").text
    'game: g\\nplayer: red\\norders:\\n- pass'
    """
    lines = text.replace("\r\n", "\n").split("\n")
    ours = cut_earlier_message(lines)
    plain = markers.span(lines)
    if plain is not None and plain[0] <= len(ours):  # the player's own pair (it may run past the cut)
        return _numbered(list(enumerate(lines))[plain[0] : plain[1]], "markers")
    found = _scan(_drop_quoted(ours), command_words)
    if found is not None:
        return found
    if not (forwarded or any(_FORWARD.match(line) for line in lines)):
        return _filled_in_quote(lines)
    # a forward: the player's own part holds nothing, the forwarded message below it is read
    plain = markers.span(lines)
    if plain is not None:
        return _numbered(list(enumerate(lines))[plain[0] : plain[1]], "markers")
    return _scan(_drop_quoted(lines), command_words) if len(ours) < len(lines) else None


def _filled_in_quote(lines: list[str]) -> Found | None:
    """Orders filled in inside the quoted mail, ``>`` kept (``how`` is ``quoted``), when the player's
    own part holds none; ``None`` unless the quoted document has a password written in.

    The quote is not read as orders: a reply quotes the host's own template, and "thanks" above it
    must not send it. But a quoted document with a password filled in is most likely the player's
    own, and telling them their orders are quoted beats telling them a greeting is not YAML. (A
    welcome mail's template has the password too: its "thanks" gets the same answer, which still
    says what the host read and why.)"""
    quoted = [(at, _QUOTE.sub("", line, count=1)) for at, line in enumerate(lines) if _QUOTE.match(line)]
    found = _scan(quoted, ())
    if found is None or found.how != "scan":
        return None
    if not any(_filled_password(line) for line in found.text.split("\n")):
        return None
    return Found("\n".join(lines[n - 1].rstrip() for n in found.lines), "quoted", found.lines)


def _filled_password(line: str) -> bool:
    key, sep, value = line.partition(":")
    value = value.split("#")[0].strip().strip("'\"")
    return key.strip().lower() == "password" and bool(sep) and bool(value) and value != PASSWORD_PLACEHOLDER


def own_part(text: str) -> str:
    """What the player wrote: the text above the earlier message, quotes and signature off."""
    kept = _drop_quoted(cut_earlier_message(text.replace("\r\n", "\n").split("\n")))
    return "\n".join(line for _at, line in kept).strip("\n")


def _numbered(numbered: list[tuple[int, str]], how: str) -> Found:
    """A document of ``(index, line)`` pairs, blank lines at either end off, each line's number kept."""
    kept = [(at, line.rstrip()) for at, line in numbered]
    while kept and not kept[0][1]:
        kept.pop(0)
    while kept and not kept[-1][1]:
        kept.pop()
    return Found("\n".join(line for _at, line in kept), how, tuple(at + 1 for at, _line in kept))


def _scan(kept: list[tuple[int, str]], command_words: tuple[str, ...]) -> Found | None:
    start = next((i for i, (_at, line) in enumerate(kept) if _START_KEY.match(line)), None)
    if start is None:
        return _command_alone(kept, command_words)
    end = start + 1
    while end < len(kept) and _reads_as_yaml(kept[end][1]):
        end += 1
    while end > start and not kept[end - 1][1].strip():
        end -= 1
    before = next((i for i in range(start - 1, -1, -1) if kept[i][1].strip()), None)
    if before is not None and _command_word(kept[before][1], command_words):
        start = before
    return Found(
        "\n".join(line for _at, line in kept[start:end]), "scan", tuple(at + 1 for at, _l in kept[start:end])
    )


def cut_earlier_message(lines: list[str]) -> list[str]:
    """``lines`` up to where an earlier message, quoted or pasted below (Outlook), begins."""
    from mailparser_reply import EmailReplyParser

    try:
        replies = (
            EmailReplyParser(languages=["en", "de", "fr", "es", "it", "nl", "pl", "sv", "cs"])
            .read("\n".join(lines))
            .replies
        )
    except Exception:  # a library's fault on an odd body must not lose the orders: keep the whole text
        return lines
    heads = [reply.headers for reply in replies[1:] if reply.headers]
    if not heads:
        return lines
    first_line = heads[0].split("\n")[0].strip()
    if _KEY.match(first_line.lstrip("> ")):
        return lines  # "from: De3" is a step of an order, not the header of an earlier message
    for at, line in enumerate(lines):
        if line[:1] in (" ", "\t"):
            continue  # an indented line belongs to a document; a header block starts at the margin
        if line.strip() == first_line or line.strip().lstrip("> ").strip() == first_line.lstrip("> "):
            cut = at
            # the rule Outlook draws above the header block goes with it
            while cut > 0 and (not lines[cut - 1].strip() or set(lines[cut - 1].strip()) <= set("_-")):
                cut -= 1
            return lines[:cut]
    return lines


def _drop_quoted(lines: list[str]) -> list[tuple[int, str]]:
    """The lines that are not quoted, up to a signature, each with its index in ``lines``."""
    kept: list[tuple[int, str]] = []
    for at, line in enumerate(lines):
        if _SIGNATURE.match(line.rstrip()):
            break
        if not _QUOTE.match(line):
            kept.append((at, line.rstrip()))
    return kept


def _reads_as_yaml(line: str) -> bool:
    stripped = line.strip()
    if not stripped or stripped.startswith("#") or line[0] in " \t":
        return True
    if stripped.startswith("-") and not stripped.startswith("--"):
        return True
    return _KEY.match(line) is not None or _START_KEY.match(line) is not None


def _command_word(line: str, words: tuple[str, ...]) -> bool:
    return line.strip().lower().rstrip(".!:") in words


def _command_alone(lines: list[tuple[int, str]], words: tuple[str, ...]) -> Found | None:
    """A command written without envelope lines (``help``)."""
    first = next(((at, line) for at, line in lines if line.strip()), None)
    if first is not None and _command_word(first[1], words):
        return Found(first[1].strip(), "scan", (first[0] + 1,))
    return None


# ------------------------------------------------------------------------------ HTML-only mail


class _Text(HTMLParser):
    """An HTML body's text, line by line as a browser shows it: block elements and ``<br>`` end a
    line, runs of white space are one space, ``&nbsp;`` (how Gmail and Outlook write indentation)
    stays a space, ``<pre>`` is kept as it is. Scripts, styles and the quoted blocks of a reply
    (``<blockquote>``, Gmail's ``gmail_quote``) are left out."""

    _BLOCKS: ClassVar[frozenset[str]] = frozenset(
        {"p", "div", "br", "tr", "li", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "table", "hr"}
    )
    _SKIP: ClassVar[frozenset[str]] = frozenset({"script", "style", "head", "title", "blockquote"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.stack: list[bool] = []  # per open div: whether it is a quote to skip

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        quote = tag in self._SKIP or (
            tag == "div" and ("gmail_quote" in classes or "divRplyFwdMsg" in classes)
        )
        if tag == "div":
            self.stack.append(quote)
        if quote:
            self.skip += 1
        if tag == "pre":
            self.pre += 1
        if tag in self._BLOCKS:
            self.out.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            if self.stack and self.stack.pop():
                self.skip -= 1
        elif tag in self._SKIP:
            self.skip = max(self.skip - 1, 0)
        if tag == "pre":
            self.pre = max(self.pre - 1, 0)
        if tag in self._BLOCKS and tag != "br":
            self.out.append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.pre:
            self.out.append(data.replace("\xa0", " "))
            return
        # a no-break space is the writer's own indentation: keep it through the collapsing of the rest
        collapsed = re.sub(r"[ \t\r\n\f]+", " ", data.replace("\xa0", "\x00"))
        self.out.append(collapsed)


def html_text(html: str) -> str:
    """The text a reader sees in an HTML mail body (see :class:`_Text`).

    >>> html_text('<div dir="ltr">game: g<br>orders:<br>&nbsp; - pass</div>')
    'game: g\\norders:\\n  - pass'
    """
    parser = _Text()
    try:
        parser.feed(html)
        parser.close()
    except Exception:  # html.parser is lenient; anything it still cannot take is no text
        return ""
    lines = "".join(parser.out).split("\n")
    return "\n".join(line.lstrip(" ").rstrip().replace("\x00", " ") for line in lines).strip("\n")


# ------------------------------------------------------------------------------ pointing at a line


def _where_patterns() -> list[re.Pattern[str]]:
    """How an error names its place in the reader's language (``line 5, column 1: ``, ``5. sor, ``):
    the messages that say it, their numbers made groups. Asked each time: the language is the reply's."""
    found = []
    for message in ("line {line}, column {column}: ", "line {line}, ", "line {line}:"):
        words = _(message, line="\x00L", column="\x00C") if "column" in message else _(message, line="\x00L")
        pattern = (
            re.escape(words.strip()).replace("\x00L", r"(?P<line>\d+)").replace("\x00C", r"(?P<column>\d+)")
        )
        found.append(re.compile(pattern))
    return found


def named_place(error: str) -> tuple[int, int | None] | None:
    """The line (and column, when given) an error names, or ``None``."""
    for pattern in _where_patterns():
        hit = pattern.search(error)
        if hit is not None:
            column = hit.groupdict().get("column")
            return int(hit["line"]), int(column) if column else None
    return None


def point_at(document: str, error: str) -> str | None:
    """The line an error names, quoted, marked under the column it names (``^``) or under the whole
    line (``^^^``); ``None`` when the error names no line of ``document``."""
    place = named_place(error)
    if place is None:
        return None
    line_no, column = place
    lines = document.split("\n")
    if not 1 <= line_no <= len(lines) or not lines[line_no - 1].strip():
        return None
    shown = lines[line_no - 1].expandtabs(4)[:72]
    if column is not None:
        marker = " " * min(max(column - 1, 0), len(shown)) + "^"
    else:
        text = shown.lstrip()
        marker = " " * (len(shown) - len(text)) + "^" * len(text.rstrip())
    label = _("line {line}:", line=line_no) + " "  # the marker stands under the text, past the label
    return f"    {label}{shown}\n    {' ' * len(label)}{marker}"


def explain(errors: list[str], document: str, how: str) -> str:
    """What a rejection adds below its errors: each line an error names, quoted with a marker under
    the spot, and what to do about it. ``document`` is the orders with the lines as the mail shows
    them (:meth:`Found.as_shown`), so the numbers are the ones the player sees. Empty when no error
    names a line, unless a document found without the markers could not be read (then the advice to
    use them)."""
    reading = [e for e in errors if "[yaml." in e or "[envelope." in e or e.startswith("orders: the text")]
    pointed = list(dict.fromkeys(p for p in (point_at(document, e) for e in errors) if p))
    if not pointed and (not reading or how == "markers"):
        return ""  # nothing to show, nothing to advise: the errors above say it all
    head = _("Where the reading stopped:") if reading else _("The line each error names, as in your mail:")
    shown = head + "\n\n" + "\n\n".join(pointed) + "\n\n" if pointed else ""
    return "\n" + shown + (advice(how) if reading else advice("markers")) + "\n"


def advice(how: str) -> str:
    """What to do when a document found without markers could not be read."""
    if how == "markers":
        return _("Please correct the marked line and send the orders again.")
    if how == "quoted":
        return _(
            "Write your orders above the quoted mail, or remove the `> ` in front of them: what a reply "
            "quotes is not read, so that a reply quoting a report is never taken for orders."
        )
    return _(
        "Put your orders between the two lines of the template, as it came in your report:\n\n"
        "    {begin}\n    (your orders)\n    {end}\n\n"
        "Then the host reads exactly what is between them, whatever else your mail holds.",
        begin=markers.BEGIN,
        end=markers.END,
    )
