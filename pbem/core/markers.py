"""The two marker lines that frame every order template the host prints.

Between them is the order document; whatever a mail client or a player puts around them (a greeting,
a signature, a quoted report) is not read. The lines are plain ASCII of the PGP armour's shape, written
as YAML comments: mail clients leave such lines alone (no wrapping, no smart quotes), a reader finds
them even when a reply quotes them with ``>``, and the template is still plain YAML. Atlantis and
njudge frame orders with begin/end lines the same way.

Finding the document here, before the YAML is read, keeps line numbers honest: lines outside the
markers become empty lines, so an error's "line 7" is line 7 of the file the player sent.
"""

from __future__ import annotations

import re

#: YAML comments, so a template stays a YAML file that any editor or tool reads as it is
BEGIN = "# -----BEGIN PBEM ORDERS-----"
END = "# -----END PBEM ORDERS-----"

# tolerant of what a person or a client may do to the line: case, spaces, the "#" lost, a dash more
_BEGIN = re.compile(r"^\s*#?\s*-{3,}\s*BEGIN\s+PBEM\s+ORDERS\s*-{3,}\s*$", re.IGNORECASE)
_END = re.compile(r"^\s*#?\s*-{3,}\s*END\s+PBEM\s+ORDERS\s*-{3,}\s*$", re.IGNORECASE)


def frame(document: str) -> str:
    """``document`` between the two marker lines (the template as the host prints it)."""
    body = document if document.endswith("\n") else document + "\n"
    return f"{BEGIN}\n{body}{END}\n"


def is_begin(line: str) -> bool:
    return _BEGIN.match(line) is not None


def is_end(line: str) -> bool:
    return _END.match(line) is not None


def span(lines: list[str]) -> tuple[int, int] | None:
    """(first, last) index of the document's lines in ``lines``: after the first begin line, up to the
    next end line (or the end of the text when the end line was lost); ``None`` without a begin line."""
    begin = next((i for i, line in enumerate(lines) if is_begin(line)), None)
    if begin is None:
        return None
    end = next((i for i in range(begin + 1, len(lines)) if is_end(lines[i])), len(lines))
    return begin + 1, end


def inside(text: str) -> str:
    """The order document of ``text``: the lines between the markers, every other line left empty (so
    line numbers stay those of ``text``); ``text`` unchanged when it has no begin line.

    >>> inside("Hi!\\n# -----BEGIN PBEM ORDERS-----\\ngame: g\\n# -----END PBEM ORDERS-----\\nAnn\\n")
    '\\n\\ngame: g\\n\\n\\n'
    """
    lines = text.split("\n")
    found = span(lines)
    if found is None:
        return text
    first, last = found
    return "\n".join(line if first <= i < last else "" for i, line in enumerate(lines))
