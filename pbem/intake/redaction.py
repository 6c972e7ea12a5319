"""Passwords out of every text the host keeps, whatever shape the text is in.

An order text may be block YAML (``password: x``), flow YAML (``{game: g, password: x}``), JSON
(``{"password": "x"}``), with the key quoted, the value quoted, escaped (``"tu\\x6cip"``) or on the next
line. :func:`redact_text` finds every ``password`` key wherever it stands on a line and replaces its
value, as written, with ``[redacted]``; :func:`keyed_passwords` returns those values as the YAML reader
would read them (escapes resolved), so that a copy elsewhere (a Subject, a quoted reply) is replaced as
well. Both are linear in the text: no pattern here can backtrack over a long line.
"""

from __future__ import annotations

import re

import yaml

MARK = "[redacted]"
#: what a redacted value reads as: this module's mark, and the mail archive's
MARKS = (MARK, "[password redacted]")
#: a password key: quoted or not, then its colon; the value starts after any blanks (or on the next line)
_KEY = re.compile(r"""(?i)(["']?)password\1[ \t]*:[ \t]*(?:\r?\n[ \t]*)?""")
#: passwords shorter than this are not replaced as plain text elsewhere: "ab" would shred the record
MIN_LITERAL = 4


def _value_end(text: str, start: int) -> int:
    """Where the value starting at ``start`` ends: after its closing quote, or at the first
    ``,`` ``}`` ``]`` line break or `` #`` of a plain scalar."""
    if start >= len(text):
        return start
    quote = text[start]
    if quote == '"':
        at = start + 1
        while at < len(text) and text[at] not in '"\n':
            at += 2 if text[at] == "\\" else 1
        return min(at + 1, len(text))
    if quote == "'":
        at = start + 1
        while at < len(text):
            if text[at] == "'":
                if text[at + 1 : at + 2] == "'":  # '' is a quote inside a single-quoted scalar
                    at += 2
                    continue
                return at + 1
            if text[at] == "\n":
                return at
            at += 1
        return at
    at = start
    while at < len(text) and text[at] not in ",}]\r\n":
        if text[at] == "#" and at > start and text[at - 1] in " \t":
            break
        at += 1
    return at


def _spans(text: str) -> list[tuple[int, int]]:
    spans = []
    for found in _KEY.finditer(text):
        start = found.end()
        if any(text.startswith(mark, at) for mark in MARKS for at in (start, start + 1)):
            continue  # redacted already
        end = _value_end(text, start)
        while end > start and text[end - 1] in " \t":  # the blanks before a comment stay
            end -= 1
        if text[start:end].strip():
            spans.append((start, end))
    return spans


def keyed_passwords(text: str) -> list[str]:
    """Every value written under a ``password`` key, as YAML (or JSON) reads it, and as written."""
    found: list[str] = []
    for start, end in _spans(text):
        written = text[start:end].strip()
        candidates = [written.strip("'\"")]
        try:
            read = yaml.safe_load(written)
        except yaml.YAMLError:
            read = None
        if isinstance(read, str | int | float):
            candidates.append(str(read))
        for value in candidates:
            if value and value not in found:
                found.append(value)
    return found


def redact_text(text: str, known: list[str] | tuple[str, ...] = (), mark: str = MARK) -> str:
    """``text`` with the value of every ``password`` key replaced, and every copy of the passwords it
    names (and of ``known`` ones) replaced too."""
    secrets = sorted({*keyed_passwords(text), *(k for k in known if k)}, key=len, reverse=True)
    parts, last = [], 0
    for start, end in _spans(text):
        quote = text[start] if text[start] in "'\"" else ""
        parts += [text[last:start], f"{quote}{mark}{quote}"]
        last = end
    out = "".join([*parts, text[last:]])
    for secret in secrets:
        if len(secret) >= MIN_LITERAL:
            out = out.replace(secret, mark)
    return out
