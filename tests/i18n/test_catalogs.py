"""The catalogs are complete and safe: every message of the code is in every language's catalog, each
translated, none fuzzy, with the original's placeholders; the compiled ``.mo`` files are those of the
``.po`` files beside them. ``make i18n`` re-extracts and compiles; the coordinator's translation pass
fills in the ``.po`` files."""

from __future__ import annotations

import gettext
import io

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from pbem.core import catalogs
from pbem.core.i18n import compile_po, placeholders

PACKAGES = catalogs.packages()
CASES = [(p, lang) for p in PACKAGES for lang in catalogs.TRANSLATED]
IDS = [f"{p.domain}-{lang}" for p, lang in CASES]


def _read(path) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle)


def _ids(catalog: Catalog) -> set[object]:
    return {m.id for m in catalog if m.id}


def test_every_package_has_a_catalog_set() -> None:
    assert [p.domain for p in PACKAGES] == ["pbem", "coral_divers", "mare_balticum", "reef_encounter"]
    for package in PACKAGES:
        assert package.pot.is_file(), f"{package.pot}: run make i18n"


@pytest.mark.parametrize("package", PACKAGES, ids=[p.domain for p in PACKAGES])
def test_template_holds_every_message_of_the_code(package: catalogs.Package) -> None:
    """A message written in the code but not extracted (make i18n not run) fails here."""
    fresh = _ids(catalogs.extracted(package))
    stored = _ids(_read(package.pot))
    assert fresh - stored == set(), f"{package.pot} lacks messages: run make i18n"
    assert stored - fresh == set(), f"{package.pot} has messages the code no longer has: run make i18n"


def _problems(message: Message) -> list[str]:
    where = f"{message.id!r} ({', '.join(f'{f}:{n}' for f, n in message.locations) or 'no location'})"
    if message.fuzzy:
        return [f"fuzzy: {where}"]
    forms = list(message.string) if isinstance(message.string, list | tuple) else [message.string]
    if not all(forms):
        return [f"untranslated: {where}"]
    if isinstance(message.id, list | tuple):
        allowed = [placeholders(message.id[0]), placeholders(message.id[1])]
        # a plural form may leave out {n} where the language's form says the number in words ("one")
        allowed += [a - {"{n}", "%(n)s", "%(num)s"} for a in list(allowed)]
        bad = [f for f in forms if placeholders(f) not in allowed]
    else:
        bad = [f for f in forms if placeholders(f) != placeholders(message.id)]
    return [f"placeholders differ in {where}: {bad[0]!r}"] if bad else []


@pytest.mark.parametrize(("package", "lang"), CASES, ids=IDS)
def test_every_message_is_translated_safely(package: catalogs.Package, lang: str) -> None:
    """Untranslated, fuzzy, or with other placeholders than the English: each is listed."""
    po = package.po(lang)
    assert po.is_file(), f"{po}: run make i18n"
    catalog = _read(po)
    missing = _ids(_read(package.pot)) - _ids(catalog)
    assert not missing, f"{po} lacks {len(missing)} message(s) of {package.pot.name}: run make i18n"
    problems = [p for message in catalog if message.id for p in _problems(message)]
    assert not problems, f"{po}: {len(problems)} problem(s):\n  " + "\n  ".join(problems[:40])


@pytest.mark.parametrize(("package", "lang"), CASES, ids=IDS)
def test_compiled_catalog_matches_its_po(package: catalogs.Package, lang: str) -> None:
    mo = package.mo(lang)
    assert mo.is_file(), f"{mo}: run make i18n"
    committed = gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))._catalog  # type: ignore[attr-defined]
    fresh = gettext.GNUTranslations(io.BytesIO(compile_po(package.po(lang))))._catalog  # type: ignore[attr-defined]
    committed.pop("", None)
    fresh.pop("", None)
    assert committed == fresh, f"{mo} is stale: run make i18n"


def test_the_checks_catch_what_they_must() -> None:
    """The checks above, on messages made to fail them."""
    assert _problems(Message("Turn {turn}", "Kör {turn}")) == []
    assert _problems(Message("Turn {turn}", "")) != []
    assert "placeholders" in _problems(Message("Turn {turn}", "Kör {kor}"))[0]
    assert "placeholders" in _problems(Message("Turn %(turn)s", "Kör"))[0]
    assert _problems(Message("Turn {turn}", "Kör {turn}", flags=["fuzzy"]))[0].startswith("fuzzy")
    plural = Message(("{n} polyp", "{n} polyps"), ("{n} polip", "{n} polip"))
    assert _problems(plural) == []
    assert _problems(Message(("{n} polyp", "{n} polyps"), ("{n} polip", "{x} polip"))) != []
