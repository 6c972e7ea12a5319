"""``pip install .`` (not editable) gives a working ``pbem`` with the templates and every game's data."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_wheel_carries_templates_and_data_and_runs_a_demo(tmp_path: Path) -> None:
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [*pip, "wheel", str(ROOT), "--no-deps", "--no-build-isolation", "-w", str(tmp_path)], check=True
    )
    [wheel] = tmp_path.glob("pbem-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"pbem/templates/base.html.j2", "pbem/templates/base.txt.j2", "pbem/data/words.txt"} <= names
    for game in ("reef_encounter", "mare_balticum", "coral_divers"):
        assert any(n.startswith(f"games/{game}/data/") for n in names), game
        shipped = {n for n in names if n.startswith(f"pbem/templates/{game.replace('_', '-')}/")}
        assert len(shipped) == 2, game

    target = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--target", str(target), str(wheel)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PBEM_GAMES", "PBEM_DB")}
    env["PYTHONPATH"] = str(target)
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "import pbem, pbem.render as r; print(pbem.__file__); print(r.template_dirs()[0])",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=True,
    ).stdout.split()
    assert all(line.startswith(str(target)) for line in where), where
    demo = subprocess.run(
        [str(target / "bin" / "pbem"), "demo", "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        check=False,
    )
    assert demo.returncode == 0, demo.stderr
    assert (tmp_path / "out" / "index.html").is_file()
    assert "Reef Encounter" in (tmp_path / "out" / "alice" / "turn-0000.txt").read_text()
