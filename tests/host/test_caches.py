"""The process's caches in one registry (pbem.core.caches): one name one cache, and one clear_all
(tests, and pbem.core.i18n.reload) forgets every one of them."""

from __future__ import annotations

import threading

import pytest

from pbem.core import caches, i18n
from pbem.render import mail_html, patches, pictures, tables  # noqa: F401 - their caches made


def test_a_name_is_one_cache_and_its_size_is_fixed() -> None:
    one = caches.named("test-one", 3)
    assert caches.named("test-one", 3) is one
    with pytest.raises(ValueError, match="maxsize 3"):
        caches.named("test-one", 4)
    for n in range(5):
        one[n] = n
    assert sorted(one) == [2, 3, 4]  # the least lately used dropped


def test_remembered_makes_a_value_once_until_cleared() -> None:
    made: list[int] = []
    for _ in range(3):
        assert caches.remembered("test-made", 8, "k", lambda: made.append(1) or 42) == 42
    assert made == [1]
    caches.clear_all()
    caches.remembered("test-made", 8, "k", lambda: made.append(1) or 42)
    assert made == [1, 1]


def test_a_memo_is_a_function_kept_by_its_arguments() -> None:
    calls: list[int] = []

    @caches.memo("test-memo", 2)
    def double(n: int) -> int:
        calls.append(n)
        return 2 * n

    assert [double(1), double(1), double(2), double(3), double(1)] == [2, 2, 4, 6, 2]
    assert calls == [1, 2, 3, 1]  # 1 dropped once 2 and 3 came


@pytest.mark.parametrize("clear", [caches.clear_all, i18n.reload])
def test_clearing_forgets_every_cache_of_the_registry(clear: object) -> None:
    for name in caches.names():
        cache = caches.named(name, caches._caches[name].maxsize)
        kept = patches.Patch((0,), frozenset(), b"") if name == patches.PATCHES else "x"
        with caches.lock(name):
            cache[("test", name)] = kept
    assert {"report-tables", "report-pieces", "mail-picture-patches", "mail-pictures"} <= set(caches.names())
    clear()  # type: ignore[operator]
    assert all(len(caches._caches[name]) == 0 for name in caches.names())


def test_threads_share_one_cache_safely() -> None:
    def fill(base: int) -> None:
        for n in range(2_000):
            caches.remembered("test-threads", 64, (base, n % 100), lambda n=n: n)

    workers = [threading.Thread(target=fill, args=(b,)) for b in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(caches.named("test-threads", 64)) == 64
