"""Request floods: each client (by address) gets so many requests a minute, counted in this process.

A sliding window of one minute in sixty one-second slots, per client and kind (every page, or sign-in
tries). Counted per process: with ``--workers N`` a client gets up to N times the limit, which still stops a
flood; a host that must hold one limit across processes puts its proxy's limit in front (docs/web.md).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict

#: clients remembered at most (the oldest forgotten first): a flood from many addresses costs bounded memory
MAX_CLIENTS = 20_000
_SLOTS = 60


class RateLimiter:
    """Whether a client may make one more request of a kind, at most ``limit`` a minute."""

    def __init__(self) -> None:
        self._counts: OrderedDict[tuple[str, str], list[int]] = OrderedDict()
        self._lock = threading.Lock()

    def allow(self, client: str, kind: str, limit: int, now: float | None = None) -> bool:
        second = int(time.monotonic() if now is None else now)
        key = (client, kind)
        with self._lock:
            slots = self._counts.pop(key, None) or [0] * (_SLOTS + 1)
            self._counts[key] = slots
            if len(self._counts) > MAX_CLIENTS:
                self._counts.popitem(last=False)
            # slots[-1] is the second the others were last moved to
            if second != slots[-1]:
                gap = min(second - slots[-1], _SLOTS)
                for _gone in range(gap):
                    slots[: _SLOTS - 1], slots[_SLOTS - 1] = slots[1:_SLOTS], 0
                slots[-1] = second
            if sum(slots[:_SLOTS]) >= limit:
                return False
            slots[_SLOTS - 1] += 1
            return True
