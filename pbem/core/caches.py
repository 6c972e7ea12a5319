"""The process's caches, each by name, in one registry: one :func:`clear_all` forgets them all.

A cache here keeps what is costly to make again (a rendered table, a drawn picture, a page made
mail) and may be forgotten at any moment: tests forget everything for a fresh process's first
drawing, and :func:`pbem.core.i18n.reload` does, as much of it holds words of the old catalogs.
Before, each module kept its own least-recently-used cache and its own ``clear_caches``, each clearing
the next; a cache one of them forgot to clear kept old words. Here there is no way to hold one outside
the registry.

``functools.cache`` stays where it is a memo of a pure function of constants (nothing to forget).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import cachetools
import cachetools.keys

F = TypeVar("F", bound=Callable[..., Any])
V = TypeVar("V")

_caches: dict[str, cachetools.LRUCache[Any, Any]] = {}
_locks: dict[str, threading.RLock] = {}
#: guards the registry itself (a cache asked for by two threads at once is made once)
_registry_lock = threading.Lock()
#: the functions :func:`memo` keeps (each with ``cache_info()``, as ``functools.lru_cache``'s)
_memos: list[Any] = []


def named(
    name: str, maxsize: int, getsizeof: Callable[[Any], float] | None = None
) -> cachetools.LRUCache[Any, Any]:
    """The least-recently-used cache called ``name``, made on first use with at most ``maxsize``
    entries (or, with ``getsizeof``, that much weight). Asking again gives the same cache; asking
    with another size is a mistake (two modules sharing a name by accident)."""
    with _registry_lock:
        found = _caches.get(name)
        if found is None:
            found = _caches[name] = cachetools.LRUCache(maxsize=maxsize, getsizeof=getsizeof)
            _locks[name] = threading.RLock()
        elif found.maxsize != maxsize:
            raise ValueError(f"cache {name!r} exists with maxsize {found.maxsize}, not {maxsize}")
        return found


def lock(name: str) -> threading.RLock:
    """The lock of the cache ``name`` (made by :func:`named` first): an LRU cache reorders itself even on
    a read, so whoever reads or writes it directly holds this."""
    return _locks[name]


def remembered(name: str, maxsize: int, key: Hashable, make: Callable[[], V]) -> V:
    """``make()``, kept in the cache ``name`` under ``key``: made only when not kept already. The
    cache is read and written under its lock (an LRU cache reorders itself even on a read); ``make``
    runs outside it, so two threads may both make a missing value (the same value: it is a function
    of its key)."""
    cache = named(name, maxsize)
    lock = _locks[name]
    with lock:
        found = cache.get(key, _MISSING)
    if found is not _MISSING:
        return found  # type: ignore[no-any-return]
    value = make()
    with lock:
        cache[key] = value
    return value


def memo(name: str, maxsize: int) -> Callable[[F], F]:
    """``functools.lru_cache(maxsize)`` of a function, its cache the registry's ``name``."""
    cache = named(name, maxsize)

    def decorate(function: F) -> F:
        wrapped = cachetools.cached(cache, key=cachetools.keys.hashkey, lock=_locks[name], info=True)(
            function
        )
        _memos.append(wrapped)
        return wrapped  # type: ignore[no-any-return]

    return decorate


def clear_all() -> None:
    """Forget every cache of the registry."""
    with _registry_lock:
        kept = list(_caches.items())
    for name, cache in kept:
        with _locks[name]:
            cache.clear()
    for wrapped in _memos:
        wrapped.cache_clear()  # its hits and misses too, as a fresh process's


def names() -> list[str]:
    """The caches made so far (for a test that each is cleared)."""
    return sorted(_caches)


_MISSING = object()
