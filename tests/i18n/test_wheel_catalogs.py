"""``pip install .`` (a wheel) carries every compiled catalog and glossary, and the installed host reads
a game in Hungarian with no source tree around."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pbem.core.i18n import LANGUAGES

ROOT = Path(__file__).resolve().parents[2]


def test_the_installed_package_carries_the_catalogs_and_plays_in_hungarian(tmp_path: Path) -> None:
    target = tmp_path / "site"
    place = ["--target", str(target), str(ROOT)]
    subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", "install", "--no-deps", *place],
        check=True,
    )
    for lang in LANGUAGES[1:]:
        assert (target / "pbem" / "locale" / lang / "LC_MESSAGES" / "pbem.mo").is_file(), lang
        for game in ("reef_encounter", "mare_balticum", "coral_divers"):
            assert (target / "games" / game / "locale" / lang / "LC_MESSAGES" / f"{game}.mo").is_file()
    for game in ("reef_encounter", "mare_balticum", "coral_divers"):
        glossary = {p.stem for p in (target / "games" / game / "data" / "glossary").glob("*.yaml")}
        assert glossary == {*LANGUAGES, "rulebook-quotes"}  # a glossary a language, and its rulebooks' words
    env = {k: v for k, v in os.environ.items() if k not in ("PBEM_GAMES", "PBEM_DB")}
    env["PYTHONPATH"] = str(target)
    out = tmp_path / "out"
    lang_out = ["--lang", "hu", "--out", str(out)]
    ran = subprocess.run(
        [str(target / "bin" / "pbem"), "demo", "--game", "coral-divers", "--players", "2", *lang_out],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stderr
    texts = "".join(p.read_text(encoding="utf-8") for p in out.glob("*/turn-*.txt"))
    assert "Te következel: ültetés" in texts
