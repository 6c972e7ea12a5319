"""Reading an order file: bytes in, plain data out, or one clear error.

Hostile input is stopped before it costs anything: the size is checked on the raw bytes before they
are decoded; the text must be UTF-8 and hold no control characters; the YAML is read with the safe
loader, refusing anchors and aliases outright (so no "billion laughs"), nesting deeper than any order
needs, duplicate keys and more than one document.

The text is scanned and parsed by libyaml (C) when PyYAML was built with it, and by PyYAML's own
pure-Python scanner otherwise: the checks are the same Python code either way. The pure-Python scanner
took up to 1.7 s of CPU on some files of 64 KiB (20,000 items on one line, deep nesting); libyaml
reads the worst 16 KiB file in tens of milliseconds, and no game's order file comes near 16 KiB.

The events are always composed into nodes by PyYAML's own composer, in Python, where the checks see
each one. Not by libyaml's composer: it recurses in C a level of nesting with no bound (a file of
thousands of levels overflowed a thread's stack: a crash, not an answer), and on an order file it saved
some 0.1 ms beside the 3 ms of checking its password.
"""

from __future__ import annotations

import gc
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, CollectionStartEvent, NodeEvent
from yaml.resolver import Resolver

from pbem.core import markers
from pbem.core.i18n import _, format_number, ngettext

#: the largest order file read, in bytes (the biggest any shipped game asks for is under 1.5 KB)
MAX_BYTES = 16 * 1024
MAX_DEPTH = 20

#: the characters YAML 1.1 forbids, as PyYAML's own reader finds them (libyaml forbids the same ones)
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
#: libyaml's own refusal past 1,000 levels of nesting: opened on one line, it scans that far ahead
#: before the loader sees the level that is too deep
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"


class OrderFileError(Exception):
    """Why an order file could not be read. ``step`` names the stage (``size``, ``encoding``,
    ``yaml``), ``code`` is stable."""

    def __init__(self, step: str, code: str, message: str) -> None:
        super().__init__(message)
        self.step = step
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.step}: {self.message} [{self.code}]"


class _Refused(yaml.YAMLError):
    def __init__(self, code: str, message: str, mark: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.mark = mark


class _Checks:
    """What an order loader adds to the safe loader: no anchors, aliases or deep nesting, and keys
    that are plain and given once. Mixed in before the composer and the constructor."""

    _depth: int
    _max_depth: int

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, AliasEvent) or (isinstance(event, NodeEvent) and event.anchor is not None):
            raise _Refused(
                "yaml.alias", "anchors and aliases (& and *) are not allowed in orders", event.start_mark
            )
        nested = isinstance(event, CollectionStartEvent)
        if nested:
            self._depth += 1
            if self._depth > self._max_depth:
                raise _Refused(
                    "yaml.too_deep", f"nested deeper than {self._max_depth} levels", event.start_mark
                )
        try:
            return super().compose_node(parent, index)
        finally:
            if nested:
                self._depth -= 1

    def construct_object(self, node: Any, deep: bool = False) -> Any:
        # PyYAML's value builders raise plain exceptions on some well-formed text (a date that does not
        # exist, "0x_", "!!bool maybe"): each is an answer naming the value, never a traceback
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, KeyError, AttributeError, OverflowError, IndexError):
            raise _Refused(
                "yaml.value", "this value cannot be read (write it as plain text)", node.start_mark
            ) from None

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, list | dict | set | frozenset) or not _hashable(key):
                raise _Refused("yaml.key", "a key must be a plain word", key_node.start_mark)
            if key in seen:
                raise _Refused("yaml.duplicate_key", f"{key!r} is given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


class _PyOrderLoader(_Checks, yaml.SafeLoader):
    """The safe loader, all in Python: read when PyYAML has no libyaml."""

    def __init__(self, stream: str, max_depth: int = MAX_DEPTH) -> None:
        super().__init__(stream)
        self._depth = 0
        self._max_depth = max_depth


_Loader: Any = _PyOrderLoader
if yaml.__with_libyaml__:
    from yaml.cyaml import CParser

    class _COrderLoader(_Checks, Composer, CParser, SafeConstructor, Resolver):
        """libyaml's scanner and parser, under PyYAML's own composer (before ``CParser`` in the MRO,
        so that the checks above see every event) and safe constructor."""

        def __init__(self, stream: str, max_depth: int = MAX_DEPTH) -> None:
            CParser.__init__(self, stream)
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self._depth = 0
            self._max_depth = max_depth

    _Loader = _COrderLoader


def decode(raw: str | bytes, max_bytes: int = MAX_BYTES) -> str:
    """The text of an order file, after the size and encoding checks."""
    data = raw.encode("utf-8") if isinstance(raw, str) else raw
    if len(data) > max_bytes:
        raise OrderFileError(
            "size",
            "input.too_large",
            ngettext(
                "the file has {size} byte; orders may have at most {limit}",
                "the file has {size} bytes; orders may have at most {limit}",
                len(data),
                size=format_number(len(data)),
                limit=format_number(max_bytes),
            ),
        )
    if isinstance(raw, str):
        return raw
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OrderFileError(
            "encoding",
            "input.not_utf8",
            _(
                "the file is not UTF-8 text (byte {byte} cannot be read); save it as UTF-8",
                byte=exc.start + 1,
            ),
        ) from None
    return text.removeprefix("\ufeff")


def load(raw: str | bytes, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The YAML document in ``raw``, as plain data (dicts, lists, strings, numbers). The limits are an
    order file's unless given (an archive is larger, and read the same careful way)."""
    # the template's marker lines, when present, say where the document is (pbem.core.markers)
    text = markers.inside(decode(raw, max_bytes))
    _refuse_quoted(text)
    control = _NON_PRINTABLE.search(text)
    if control is not None:
        raise OrderFileError(
            "yaml",
            "yaml.unprintable",
            _(
                "character {position} is a control character ({code}); orders are plain text",
                position=control.start() + 1,
                code=f"#x{ord(control.group()):04x}",
            ),
        )
    try:
        return _read(text, max_depth)
    except _Refused as exc:
        raise OrderFileError("yaml", exc.code, f"{_at(exc.mark)}{exc.message}") from None
    except yaml.MarkedYAMLError as exc:
        raise OrderFileError("yaml", "yaml.syntax", _explain(text, exc)) from None
    except yaml.YAMLError:
        raise OrderFileError(
            "yaml", "yaml.syntax", _("this is not YAML text; start from the template")
        ) from None


#: a line quoted as a reply quotes the mail it answers: ``> game: g``, ``>> orders:``
_QUOTED = re.compile(r"^[ \t]*>")


def _refuse_quoted(text: str) -> None:
    """Orders filled in inside a quoted mail (``> `` on every line) are not YAML the way they stand
    (``>`` begins a folded text there): said as what it is, not as a slip on some line."""
    written = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if written and all(_QUOTED.match(line) for _n, line in written):
        raise OrderFileError(
            "yaml",
            "yaml.quoted",
            _(
                "line {line}: these orders are quoted: each line starts with `>`, as a reply quotes the "
                "mail it answers, and quoted lines are not read; if they are your orders, remove the `> ` "
                "at the start of each line",
                line=written[0][0],
            ),
        )


def _read(text: str, max_depth: int, *, again: bool = True) -> Any:
    # The loader makes tens of thousands of short-lived objects (events, nodes), all freed by reference
    # counting when it is done. Left on, the collector would take them for survivors and scan the whole
    # process every few order files (~60 ms in the proof campaign, more than the reading itself).
    collecting = gc.isenabled()
    gc.disable()
    try:
        loader = _Loader(text, max_depth)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        if exc.problem != _LIBYAML_TOO_DEEP or exc.problem_mark is None or not again:
            raise
        # libyaml stopped 1,000 levels down, before the loader saw the level that is too deep: the
        # text up to there shows where (and whether an anchor comes first) the loader refuses it.
        try:
            _read(text[: exc.problem_mark.index], max_depth, again=False)
        except _Refused as refused:
            raise refused from None
        except yaml.YAMLError:
            pass
        raise _Refused("yaml.too_deep", f"nested deeper than {max_depth} levels", exc.problem_mark) from None
    finally:
        if collecting:
            gc.enable()


def _at(mark: Any) -> str:
    if mark is None:
        return ""
    return _("line {line}, column {column}: ", line=mark.line + 1, column=mark.column + 1)


#: ``key:value`` with no space after the colon: YAML reads it as one word, and then fails a line later
_NO_SPACE = re.compile(r"^(?P<lead>[ ]*(?:-[ ]+)?)(?P<key>[A-Za-z_][\w-]*):(?P<value>[^\s:/].*)$")
_TAB_INDENT = re.compile(r"^[ ]*(?:-[ ]*)?\t")
#: the line an order file begins with, whatever the order of its envelope
_ENVELOPE_KEY = re.compile(r"^(game|player|turn|password|orders)[ \t]*:(\s|$)")
#: a line at the margin that YAML could take for part of an order file: a key, a step, a comment,
#: a flow collection, a quoted value, a document marker
_YAML_AT_MARGIN = re.compile(r"""^(["']?[\w.-]+["']?[ \t]*:|[-#\[\]{}'"]|\.\.\.)""")


def _prose(text: str, reported: int) -> str | None:
    """The answer for words around the orders (``Hi all,`` above ``game:``, ``Thanks, Ann`` below
    them), when such a line comes no later than the line the parser gave up on (1-based
    ``reported``). The parser names the line where it noticed, often a fine one (``game: reef-7``
    after a greeting); the greeting is the line to change."""
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines) if _ENVELOPE_KEY.match(line)), None)
    for number, line in enumerate(lines[: reported + 1]):
        if not line.strip() or line[0] in " \t" or _YAML_AT_MARGIN.match(line):
            continue
        written = line.strip() if len(line.strip()) <= 40 else line.strip()[:37] + "..."
        if start is not None and number < start:
            return _(
                "line {line}: `{written}` is not part of the orders, which begin at line {start} (`{key}`): "
                "delete the lines above that one",
                line=number + 1,
                written=written,
                start=start + 1,
                key=lines[start].strip(),
            )
        return _(
            "line {line}: `{written}` is not part of the orders: delete it, or put `# ` in front of it to "
            "keep it as a note",
            line=number + 1,
            written=written,
        )
    return None


def _explain(text: str, exc: yaml.MarkedYAMLError) -> str:
    """A YAML error in a player's words: where it is, what is wrong, what to write instead.

    Parsers report where they gave up, which for the two commonest slips is not where the slip is: a
    tab in the indentation, and ``turn:1`` (no space after the colon, so YAML reads one word and fails
    on the line after). Those are looked for on the lines up to the one reported; everything else is
    worded from the parser's problem."""
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or ""
    context = exc.context or ""
    lines = text.splitlines()
    last = min(mark.line, len(lines) - 1) if mark is not None else len(lines) - 1
    prose = _prose(text, last + 1)
    if prose is not None:
        return prose
    for number in range(0, last + 1):
        if _TAB_INDENT.match(lines[number]):
            column = lines[number].index("\t") + 1
            return _(
                "line {line}, column {column}: a tab indents this line; YAML indents with spaces only: "
                "replace the tab with spaces (two for each level, as in the template)",
                line=number + 1,
                column=column,
            )
    for number in range(last, max(last - 2, -1), -1):
        found = _NO_SPACE.match(lines[number]) if 0 <= number < len(lines) else None
        if found is not None:
            written = f"{found['key']}:{found['value']}".strip()
            fixed = f"{found['key']}: {found['value']}".strip()
            return _(
                "line {line}: write a space after the colon: `{fixed}`, not `{written}`",
                line=number + 1,
                fixed=fixed,
                written=written,
            )
    at = _at(mark)
    if context.startswith("expected a single document"):
        return at + _("the file holds more than one YAML document (a line `---` starts another); send one")
    if "could not determine a constructor" in problem:
        return at + _("tags (!...) are not allowed in orders; write plain values")
    if "tab" in problem:
        return at + _("a tab here; YAML indents with spaces only: replace the tab with spaces")
    if "cannot start any token" in problem:
        char = lines[mark.line][mark.column] if mark and mark.column < len(lines[mark.line]) else ""
        return at + _(
            "a value cannot begin with `{char}`; put the value in quotes: '{char}…'", char=char.strip() or "?"
        )
    if "mapping values are not allowed" in problem:
        return at + _(
            "a second `: ` on this line; a line holds one `name: value` (put a value holding `: ` in quotes)"
        )
    if "could not find expected ':'" in problem or "expected ':'" in problem:
        line = max(mark.line, 1) if mark else 1  # the parser noticed on the line after the slip
        return _(
            "line {line}: this line is not `name: value`; write it as in the template, with a space after "
            "the colon",
            line=line,
        )
    if "expected ',' or ']'" in problem or "expected ',' or '}'" in problem or "flow" in context:
        return at + _("a list [ … ] or a group { … } opened earlier is not closed; close it with ] or }")
    if "escape" in problem:
        return at + _(
            "a backslash escape in double quotes that is not a character; write the character itself, "
            "or use single quotes"
        )
    if "quoted scalar" in context or "end of stream" in problem:
        return at + _("a quote opened earlier is not closed; end the value with the same quote")
    if (
        "expected <block end>" in problem
        or "expected key" in problem
        or "'-' indicator" in problem
        or "block" in context
    ):
        return at + _(
            "the indentation here does not match the lines above; the steps under orders: are indented "
            "two spaces each (`  - pass`), as in the template"
        )
    return at + _("this cannot be read as YAML; compare the line with the template")


@dataclass
class Positions:
    """Where things are in an order file, for messages: the line of each top-level key and of each step
    under ``orders:`` (1-based). Unknown places are simply absent."""

    keys: dict[str, int] = field(default_factory=dict)
    steps: list[int] = field(default_factory=list)

    def key(self, name: str) -> str:
        line = self.keys.get(name)
        return _("line {line}, ", line=line) if line else ""

    def step(self, index: int) -> str:
        line = self.steps[index] if 0 <= index < len(self.steps) else None
        return _("line {line}, ", line=line) if line else ""


class _Later(Positions):
    """:class:`Positions` found only when a message first asks for one. Finding them parses the file a
    second time, and a file that is accepted (most of them) is never quoted by line."""

    def __init__(self, raw: str | bytes) -> None:  # the dataclass's fields are the properties below
        self._raw = raw
        self._found: Positions | None = None

    def _read(self) -> Positions:
        if self._found is None:
            self._found = _positions(self._raw)
        return self._found

    @property  # type: ignore[override]
    def keys(self) -> dict[str, int]:
        return self._read().keys

    @property  # type: ignore[override]
    def steps(self) -> list[int]:
        return self._read().steps


def positions(raw: str | bytes) -> Positions:
    """The :class:`Positions` of a file :func:`load` has read (so it is small and safe to read again),
    read when first asked for."""
    return _Later(raw)


def _positions(raw: str | bytes) -> Positions:
    found = Positions()
    try:
        # the bound in bytes: a text's characters may take more than one each (the template's "·")
        text = decode(raw, max_bytes=len(raw.encode("utf-8") if isinstance(raw, str) else raw) + 1)
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OrderFileError, yaml.YAMLError):
        return found
    if not isinstance(node, yaml.MappingNode):
        return found
    for key, value in node.value:
        if isinstance(key, yaml.ScalarNode):
            found.keys.setdefault(str(key.value), key.start_mark.line + 1)
            if key.value == "orders" and isinstance(value, yaml.SequenceNode):
                found.steps = [item.start_mark.line + 1 for item in value.value]
    return found
