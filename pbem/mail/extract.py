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
from typing import ClassVar

from pbem.core import markers
from pbem.core.i18n import _

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
    """The document (indentation kept) and how it was found: ``markers`` or ``scan``."""

    text: str
    how: str


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
        return Found(_joined(lines[plain[0] : plain[1]]), "markers")
    found = _scan(_drop_quoted(ours), command_words)
    if found is not None:
        return found
    if not (forwarded or any(_FORWARD.match(line) for line in lines)):
        return None
    # a forward: the player's own part holds nothing, the forwarded message below it is read
    plain = markers.span(lines)
    if plain is not None:
        return Found(_joined(lines[plain[0] : plain[1]]), "markers")
    return _scan(_drop_quoted(lines), command_words) if len(ours) < len(lines) else None


def own_part(text: str) -> str:
    """What the player wrote: the text above the earlier message, quotes and signature off."""
    return _joined(_drop_quoted(cut_earlier_message(text.replace("\r\n", "\n").split("\n"))))


def _joined(lines: list[str]) -> str:
    return "\n".join(line.rstrip() for line in lines).strip("\n")


def _scan(kept: list[str], command_words: tuple[str, ...]) -> Found | None:
    start = next((i for i, line in enumerate(kept) if _START_KEY.match(line)), None)
    if start is None:
        return _command_alone(kept, command_words)
    end = start + 1
    while end < len(kept) and _reads_as_yaml(kept[end]):
        end += 1
    while end > start and not kept[end - 1].strip():
        end -= 1
    before = next((i for i in range(start - 1, -1, -1) if kept[i].strip()), None)
    if before is not None and _command_word(kept[before], command_words):
        start = before
    return Found("\n".join(kept[start:end]), "scan")


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


def _drop_quoted(lines: list[str]) -> list[str]:
    kept: list[str] = []
    for line in lines:
        if _SIGNATURE.match(line.rstrip()):
            break
        if not _QUOTE.match(line):
            kept.append(line.rstrip())
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


def _command_alone(lines: list[str], words: tuple[str, ...]) -> Found | None:
    """A command written without envelope lines (``help``)."""
    first = next((line for line in lines if line.strip()), None)
    if first is not None and _command_word(first, words):
        return Found(first.strip(), "scan")
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

_AT = re.compile(r"line (\d+), column (\d+)")


def point_at(document: str, error: str) -> str | None:
    """The line an error names (``line 5, column 1``), quoted, with a caret under the column; ``None``
    when the error names no line of ``document``."""
    found = _AT.search(error)
    if found is None:
        return None
    line_no, column = int(found.group(1)), int(found.group(2))
    lines = document.split("\n")
    if not 1 <= line_no <= len(lines):
        return None
    shown = lines[line_no - 1].expandtabs(4)[:72]
    caret = " " * min(max(column - 1, 0), len(shown)) + "^"
    label = _("line {line}:", line=line_no) + " "  # the caret stands under the text, past the label
    return f"    {label}{shown}\n    {' ' * len(label)}{caret}"


def explain(errors: list[str], document: str, how: str) -> str:
    """What a rejection adds when the document itself could not be read: each line an error names,
    quoted with a caret under the spot, and what to do about it. Empty for errors of the rules."""
    reading = [e for e in errors if "[yaml." in e or "[envelope." in e or e.startswith("orders: the text")]
    if not reading:
        return ""
    pointed = [p for p in (point_at(document, e) for e in reading) if p]
    shown = _("Where the reading stopped:") + "\n\n" + "\n\n".join(pointed) + "\n\n" if pointed else ""
    return "\n" + shown + advice(how) + "\n"


def advice(how: str) -> str:
    """What to do when a document found without markers could not be read."""
    if how == "markers":
        return _("Please correct the marked line and send the orders again.")
    return _(
        "Put your orders between the two lines of the template, as it came in your report:\n\n"
        "    {begin}\n    (your orders)\n    {end}\n\n"
        "Then the host reads exactly what is between them, whatever else your mail holds.",
        begin=markers.BEGIN,
        end=markers.END,
    )
