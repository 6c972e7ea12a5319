"""Plain text as RFC 3676 ``format=flowed``: the text part of every mail the host writes."""

from __future__ import annotations

from functools import lru_cache

from pbem.core import markers

#: RFC 3676 §4.2: lines of at most 78 characters, the trailing space of a soft break included
FLOWED_WIDTH = 78


def flowed(text: str, width: int = FLOWED_WIDTH) -> str:
    """``text`` as RFC 3676 ``format=flowed`` (DelSp=No): prose lines longer than ``width`` broken at
    spaces, each break a trailing space that a reading client joins again; trailing spaces of the
    lines themselves removed (they would read as breaks); lines that start with a space, ``>`` or
    ``From `` space-stuffed. The order document between the template's markers is never broken: a
    client that does not know the format shows its lines as they are, and they must stay YAML.

    >>> flowed("a " * 3 + "b", width=4)
    'a a \\na b'
    """
    out: list[str] = []
    in_document = False
    # line by line, a line's sending depending on it and on whether it is in the order document
    # alone: so a paragraph at a time, each made once (the seats' reports share most of theirs: the
    # table); the blank line between two is sent blank, as every empty line
    for paragraph in text.replace("\r\n", "\n").split("\n\n"):
        sent, in_document = _flowed_paragraph(paragraph, width, in_document)
        out.append(sent)
    return "\n\n".join(out)


@lru_cache(maxsize=1024)
def _flowed_paragraph(paragraph: str, width: int, in_document: bool) -> tuple[str, bool]:
    """(``paragraph``'s lines as :func:`flowed` sends them, whether the order document goes on after
    them), from inside the order document or not (``in_document``). Cached by these three, all the
    result depends on: a paragraph of one seat's report is no other's unless its words are the same."""
    out: list[str] = []
    lines = paragraph.split("\n")
    if " \n" in paragraph or paragraph.endswith(" "):
        lines = [line.rstrip(" ") for line in lines]
    for line in lines:
        if len(line) <= width and "--" not in line:  # most lines: neither a marker nor to be broken
            out.append(" " + line if line.startswith(_STUFFED) else line)
            continue
        # a marker line has a run of dashes: the others need not be matched against the patterns
        if "---" in line and (markers.is_begin(line) or markers.is_end(line)):
            in_document = markers.is_begin(line)
            out.append(line)
            continue
        if line == "--":
            out.append("-- ")  # the signature separator keeps its space: it is no soft break
            continue
        pieces = [line] if in_document or len(line) <= width else _break(line, width)
        for piece in pieces:
            out.append(" " + piece if piece.startswith(_STUFFED) else piece)
    return "\n".join(out), in_document


#: what the start of a space-stuffed line is (RFC 3676 §4.4)
_STUFFED = (" ", ">", "From ")


def _break(line: str, width: int) -> list[str]:
    """``line`` in pieces of at most ``width`` characters, each but the last ending in the space it
    was broken at; a word longer than ``width`` stays whole."""
    pieces: list[str] = []
    indent = len(line) - len(line.lstrip(" "))
    while len(line) > width:
        at = line.rfind(" ", indent + 1, width)  # the space stays at the end of the piece
        if at <= indent:
            at = line.find(" ", width)
            if at < 0:
                break
        pieces.append(line[: at + 1])
        line = line[at + 1 :]
        indent = 0
    pieces.append(line)
    return pieces
