"""Reading an order file: bytes in, plain data out, or one clear error.

Hostile input is stopped before it costs anything: the size is checked on the raw bytes before they
are decoded; the text must be UTF-8 and hold no control characters; the YAML is read with the safe
loader, refusing anchors and aliases outright (so no "billion laughs"), nesting deeper than any order
needs, duplicate keys and more than one document.

The text is scanned and parsed by libyaml (C) when PyYAML was built with it, and by PyYAML's own
pure-Python scanner otherwise: the checks are the same Python code either way. The pure-Python scanner
took up to 1.7 s of CPU on some files of 64 KiB (20,000 items on one line, deep nesting); libyaml
reads the worst 16 KiB file in tens of milliseconds, and no game's order file comes near 16 KiB.
"""

from __future__ import annotations

import gc
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.events import AliasEvent, CollectionStartEvent, NodeEvent
from yaml.resolver import Resolver

from pbem import markers

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
            f"the file is {len(data):,} bytes; orders may be at most {max_bytes:,} bytes",
        )
    if isinstance(raw, str):
        return raw
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OrderFileError(
            "encoding",
            "input.not_utf8",
            f"the file is not UTF-8 text (byte {exc.start + 1} cannot be read); save it as UTF-8",
        ) from None
    return text.removeprefix("\ufeff")


def load(raw: str | bytes, *, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The YAML document in ``raw``, as plain data (dicts, lists, strings, numbers). The limits are an
    order file's unless given (an archive is larger, and read the same careful way)."""
    # the template's marker lines, when present, say where the document is (pbem.markers)
    text = markers.inside(decode(raw, max_bytes))
    control = _NON_PRINTABLE.search(text)
    if control is not None:
        raise OrderFileError(
            "yaml",
            "yaml.unprintable",
            f"character {control.start() + 1} is a control character (#x{ord(control.group()):04x}); "
            "orders are plain text",
        )
    try:
        return _read(text, max_depth)
    except _Refused as exc:
        raise OrderFileError("yaml", exc.code, f"{_at(exc.mark)}{exc.message}") from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "not valid YAML"
        if (exc.context or "").startswith("expected a single document"):
            problem = "the file holds more than one YAML document; send one"
        elif "could not determine a constructor" in problem:
            problem = "tags (!...) are not allowed in orders"
        raise OrderFileError("yaml", "yaml.syntax", f"{_at(mark)}{problem}") from None
    except yaml.YAMLError as exc:
        raise OrderFileError("yaml", "yaml.syntax", f"not valid YAML: {exc}") from None


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
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
