"""Reading an order file: bytes in, plain data out, or one clear error.

Hostile input is stopped before it costs anything: the size is checked on the raw bytes before they
are decoded; the text must be UTF-8; the YAML is read with the safe loader, refusing anchors and
aliases outright (so no "billion laughs"), nesting deeper than any order needs, duplicate keys and more
than one document.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.events import AliasEvent, CollectionStartEvent, NodeEvent

MAX_BYTES = 64 * 1024
MAX_DEPTH = 20


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


class _OrderLoader(yaml.SafeLoader):
    """The safe loader, without anchors, aliases or deep nesting, and with duplicate keys refused."""

    def __init__(self, stream: str, max_depth: int = MAX_DEPTH) -> None:
        super().__init__(stream)
        self._depth = 0
        self._max_depth = max_depth

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

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: set[Any] = set()
        for key_node, _value in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, list | dict):
                raise _Refused("yaml.key", "a key must be a plain word", key_node.start_mark)
            if key in seen:
                raise _Refused("yaml.duplicate_key", f"{key!r} is given twice", key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


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
    text = decode(raw, max_bytes)
    try:
        # The reader checks every character when the loader is made: a control character stops it there.
        loader = _OrderLoader(text, max_depth)
    except yaml.reader.ReaderError as exc:
        raise OrderFileError(
            "yaml",
            "yaml.unprintable",
            f"character {exc.position + 1} is a control character (#x{exc.character:04x}); "
            "orders are plain text",
        ) from None
    try:
        return loader.get_single_data()
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
    finally:
        loader.dispose()


def _at(mark: Any) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
