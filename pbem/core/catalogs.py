"""``make i18n``: re-extract every message into the gettext catalogs, merge, compile.

One catalog set per package (see :mod:`pbem.core.i18n`): the host's (``pbem/``, the shared
``templates/base.*`` and ``templates/pieces.txt.j2``, and the archive page) and each game's (``games/<g>/``
and its own ``templates/<g>/`` folder, so a game's words travel with it and its glossary). For each: ``pybabel
extract`` (keywords ``_``, ``N_``, ``ngettext``; the map in ``babel.cfg``) into
``<locale>/<domain>.pot``, ``pybabel update`` (or ``init``) of every language's ``.po``, and
``pybabel compile`` of the ``.mo`` files, which are committed so that
a wheel and a checkout carry them (``tests/i18n`` checks they match their ``.po``).

A game's own words (``P_("colour", "orange")``: the entries with a ``msgctxt``) are not translated by
hand: between update and compile, :func:`fill_terms` writes each one's word from the game's glossary
(``games/<g>/data/glossary/<lang>.yaml``, the term named :func:`term_key` of the word), so a report
says the word of that language's rulebook, and says it the same in every sentence.

Run from a source checkout: ``python -m pbem.core.catalogs`` (what ``make i18n`` does).
"""

from __future__ import annotations

import contextlib
import io
import re
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.frontend import CommandLineInterface
from babel.messages.pofile import read_po, write_po

from pbem.core.glossary import Glossary, load_glossary
from pbem.core.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]
#: the languages with a catalog (English is the source language)
TRANSLATED = tuple(code for code in LANGUAGES if code != "en")
KEYWORDS = (
    *("-k", "N_", "-k", "T_", "-k", "P_:1c,2", "-k", "comment"),
    *("-k", "ngettext:1,2", "-k", "TN_:1,2"),
)


@dataclass(frozen=True)
class Package:
    """One catalog set: where its messages are read from, and where its catalogs live."""

    domain: str
    sources: tuple[str, ...]  # paths relative to the source tree
    locale: str

    def po(self, lang: str) -> Path:
        return ROOT / self.locale / lang / "LC_MESSAGES" / f"{self.domain}.po"

    def mo(self, lang: str) -> Path:
        return self.po(lang).with_suffix(".mo")

    @property
    def pot(self) -> Path:
        return ROOT / self.locale / f"{self.domain}.pot"

    @property
    def glossary(self) -> Path | None:
        """The game's glossary folder (the host has none)."""
        folder = ROOT / "games" / self.domain / "data" / "glossary"
        return folder if folder.is_dir() else None


def packages() -> list[Package]:
    """The host, and every game package of the source tree."""
    found = [
        Package(
            "pbem",
            (
                "pbem",
                "templates/base.html.j2",
                "templates/base.txt.j2",
                "templates/pieces.txt.j2",
                "templates/archive",  # the archive page: its frame is read in the page's language
                "templates/web",  # the web host's pages (pbem serve)
            ),
            "pbem/locale",
        )
    ]
    for init in sorted((ROOT / "games").glob("*/__init__.py")):
        name = init.parent.name
        sources = [f"games/{name}"]
        if (ROOT / "templates" / name.replace("_", "-")).is_dir():
            sources.append(f"templates/{name.replace('_', '-')}")
        found.append(Package(name, tuple(sources), f"games/{name}/locale"))
    return found


def _pybabel(*args: str) -> None:
    # from the source tree's root, so the catalogs' location comments are relative paths
    with contextlib.chdir(ROOT):
        code = CommandLineInterface().run(["pybabel", "-q", *args])
    if code:
        raise SystemExit(f"pybabel {args[0]} failed ({code})")


_CREATED = re.compile(rb'^"POT-Creation-Date: [^"]*"$', re.MULTILINE)


def extract(package: Package, output: Path) -> None:
    """``pybabel extract`` of ``package``'s sources into the template ``output``; a template whose
    messages did not change keeps its bytes (its creation date too, so a run changes no file for
    nothing and two branches do not conflict over a date)."""
    output.parent.mkdir(parents=True, exist_ok=True)
    before = output.read_bytes() if output.is_file() else None
    _pybabel(
        "extract",
        "-F",
        str(ROOT / "babel.cfg"),
        *KEYWORDS,
        "-c",
        "Translators:",
        "--sort-by-file",
        # file names without line numbers: a line added above a message must not change every
        # catalog (and make two branches' catalogs conflict where no message changed)
        "--add-location",
        "file",
        "--project",
        "pbem",
        "--copyright-holder",
        "pbem authors",
        "-o",
        str(output),
        *package.sources,
    )
    if before is not None and _CREATED.sub(b"", before) == _CREATED.sub(b"", output.read_bytes()):
        output.write_bytes(before)


def extracted(package: Package) -> Catalog:
    """The messages the code of ``package`` has now (a fresh extraction, nothing written)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "messages.pot"
        extract(package, out)
        return read_po(io.BytesIO(out.read_bytes()))


def term_key(word: str) -> str:
    """The glossary term of a game's word as ``P_`` writes it: ``open sea`` → ``open-sea``."""
    return "-".join(word.strip().lower().split())


class MissingTerms(ValueError):
    """``P_`` words that the game's glossary does not have (add them to every language's file)."""


def fill_terms(po: Path, glossary: Glossary, lang: str) -> int:
    """Write into ``po`` each term entry's (``msgctxt``: made by ``P_``) word from ``glossary`` in
    ``lang``, not fuzzy; the other entries stay as they are. Returns how many entries it filled; a
    term the glossary lacks is :class:`MissingTerms`, naming it, so no catalog keeps an English word."""
    with po.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    missing: list[str] = []
    filled = 0
    for message in catalog:
        if not message.id or message.context is None or not isinstance(message.id, str):
            continue
        key = term_key(message.id)
        if key not in glossary.terms[lang]:
            missing.append(f"{message.context}/{message.id} (term {key!r})")
            continue
        message.string = glossary.word(key, lang)
        message.flags.discard("fuzzy")
        filled += 1
    if missing:
        raise MissingTerms(f"{po}: the glossary has no word for {', '.join(missing)}")
    with po.open("wb") as handle:
        write_po(
            handle, catalog, width=76, include_lineno=False
        )  # pybabel's own width, so an update and a fill agree
    return filled


def update(package: Package) -> None:
    """Extract, then update (or create) every language's ``.po``, then compile the ``.mo`` files."""
    extract(package, package.pot)
    for lang in TRANSLATED:
        command = "update" if package.po(lang).is_file() else "init"
        extra = ("--ignore-pot-creation-date",) if command == "update" else ()
        _pybabel(
            command,
            "-i",
            str(package.pot),
            "-d",
            str(ROOT / package.locale),
            "-D",
            package.domain,
            "-l",
            lang,
            *extra,
        )
    if package.glossary is not None:
        glossary = load_glossary(package.glossary)
        for lang in TRANSLATED:
            fill_terms(package.po(lang), glossary, lang)
    _pybabel("compile", "-d", str(ROOT / package.locale), "-D", package.domain)


def main(argv: list[str] | None = None) -> int:
    for package in packages():
        update(package)
        print(f"{package.domain}: {package.pot.relative_to(ROOT)} and {', '.join(TRANSLATED)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
