"""Fixtures of the language tests: a database on SQLite and on PostgreSQL (the cron tests' fixtures),
and small catalogs in place of the real ones, so a test can tell one language's words from another's
whatever the real catalogs hold."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.core import i18n
from tests.cron.conftest import db_url, engine, pg_url  # noqa: F401 - fixtures used by these tests
from tests.i18n.test_language import write_catalog

BOT_NOTE = "The stand-in played for {seat} this turn, at the easy level."
WORDS = {
    "hu": "Ebben a körben a helyettes játszott ({seat}), könnyű szinten.",
    "cs": "Za hráče {seat} v tomto kole hrál zástupce, lehce.",
    "ru": "В этом ходу за {seat} играл заменяющий бот, легко.",
    "zh": "本回合由替补代替 {seat} 行动（简单）。",
}


@pytest.fixture
def known_words(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str]]:
    """The host's bot note in every language, from catalogs in ``tmp_path``."""
    folder = tmp_path / "locale"
    for lang, text in WORDS.items():
        write_catalog(folder, "pbem", lang, {BOT_NOTE: text})
    monkeypatch.setattr(i18n, "catalog_dirs", lambda: [(folder, "pbem")])
    i18n.reload()
    yield WORDS
    i18n.reload()
