"""Helper processes for one tick: ``pbem tick --jobs N`` works on N games at once.

The helpers are forked from the tick once it has read its mail, so they start with everything imported
and share nothing but the database: each claims its own games (:mod:`.claims`), so no two work on the
same one, and each hands back its counts through a pipe. A helper dies with its tick, even one killed
with SIGKILL, so a killed tick is wholly gone, as a tick of one process would be.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import logging
import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

log = logging.getLogger("pbem.cron")

#: what ``--jobs`` means when not given: a process per core, up to this many
MAX_AUTO_JOBS = 4

Counts = dict[str, int]


def auto_jobs() -> int:
    """One job per core this process may run on, at most :data:`MAX_AUTO_JOBS`."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(cores, MAX_AUTO_JOBS))


#: what a helper's ``work`` is given to say it is done with a game (for the tick's progress bar)
Progress = Callable[[str], None]


@dataclass
class Helpers:
    """Forked helpers at work. Each sends ``("game", id)`` as it finishes a game, then ``("done",
    counts)``; :meth:`relay` hands the games finished so far to the progress callback, :meth:`join`
    waits for the helpers and returns their counts."""

    started: list[tuple[BaseProcess, Connection]]
    progress: Progress | None = None
    counts: dict[int, Counts] = field(default_factory=dict)  # by helper, once it is done

    def relay(self) -> None:
        """Pass on the games the helpers finished since the last call (never waits)."""
        for index, (_process, reader) in enumerate(self.started):
            while not reader.closed and reader.poll() and self._take(index, reader):
                pass

    def join(self) -> list[Counts]:
        found: list[Counts] = []
        for index, (process, reader) in enumerate(self.started):
            while not reader.closed and self._take(index, reader):
                pass
            counts = self.counts.get(index)
            if counts is None:  # it died before it could answer: its games' leases run out
                log.error(
                    "tick helper %s ended without a summary (exit code %s)", process.pid, process.exitcode
                )
                counts = {"errors": 1}
            found.append(counts)
            process.join()
        return found

    def _take(self, index: int, reader: Connection) -> bool:
        """Read one message; False once the helper is done (its counts kept) or gone."""
        try:
            kind, value = reader.recv()
        except EOFError:
            reader.close()
            return False
        if kind == "game":
            if self.progress is not None:
                self.progress(value)
            return True
        self.counts[index] = value
        reader.close()
        return False


@contextlib.contextmanager
def frozen_heap() -> Iterator[None]:
    """What the tick holds when its games begin (the modules, the games' data, settings, caches: all of
    it lives as long as the tick) set aside from the garbage collector's later passes (``gc.freeze``),
    in this process and, inherited, in every helper forked meanwhile. A full collection then walks only
    what the games make: it walked the 125,000 objects of the imported host each time, some 75 ms of a
    core, a few times every hundred games in each process. It is also what the Python documentation
    advises before a fork without an exec: the helpers' collections no longer write to the pages they
    share with the tick. Given back at the end (``gc.unfreeze``), so a long-lived caller (a test) frees
    them as before."""
    gc.collect()  # what is garbage already is not kept for the tick's life
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def start(count: int, work: Callable[[int, Progress], Counts], progress: Progress | None = None) -> Helpers:
    """Fork ``count`` helpers, the i-th (from 1) running ``work(i, report)`` and handing back its
    result; what it passes to ``report`` reaches ``progress`` (see :class:`Helpers`)."""
    if count < 1:
        return Helpers([], progress)
    context = multiprocessing.get_context("fork")
    started = []
    for index in range(1, count + 1):
        reader, writer = context.Pipe(duplex=False)
        process = context.Process(target=_helper, args=(work, index, writer), daemon=True)
        process.start()
        writer.close()
        started.append((process, reader))
    return Helpers(started, progress)


def _helper(work: Callable[[int, Progress], Counts], index: int, writer: Connection) -> None:
    _die_with_parent()
    try:
        counts = work(index, lambda game_id: writer.send(("game", game_id)))
    except BaseException as exc:  # the tick's parts are guarded: this is a bug, counted as an error
        log.error("tick helper %d: %s: %s", index, type(exc).__name__, exc, exc_info=exc)
        counts = {"errors": 1}
    writer.send(("done", counts))
    writer.close()


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent dies (else a helper of a killed tick goes on)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):  # not Linux: the helper ends when its work does
        return
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(1)
