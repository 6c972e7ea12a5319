"""The wheel a user installs: built from this tree, installed with the ``postgres`` extra into a fresh
virtual environment (pip fetches the dependencies from the package index or its cache), and ``pbem new``
without a seed works there against PostgreSQL. About half a minute."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.postgres


def _run(*args: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, env=env, cwd=cwd, check=False, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_wheel_with_the_postgres_extra_starts_a_game_without_a_seed(
    tmp_path: Path, pg_database: str
) -> None:
    dist = tmp_path / "dist"
    _run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", ROOT, "-w", dist)
    (wheel,) = dist.glob("pbem-*.whl")
    fresh = tmp_path / "venv"
    venv.create(fresh, with_pip=True)
    _run(fresh / "bin" / "pip", "install", "-q", f"{wheel}[postgres]")

    # nothing of this checkout nor of the tests' own game: only what the wheel brought
    env = {k: v for k, v in os.environ.items() if k not in ("PBEM_GAMES", "PBEM_DB", "PYTHONPATH")}
    env["PBEM_DB"] = pg_database.replace("postgresql+psycopg://", "postgresql://")  # the README's form
    pbem = fresh / "bin" / "pbem"
    assert "coral-divers" in _run(pbem, "new", env=env, cwd=tmp_path)
    made = _run(
        pbem,
        "new",
        "coral-divers",
        "--id",
        "cd-1",
        "--player",
        "a=a@x.org",
        "--player",
        "b=b@x.org",
        "--json",
        env=env,
        cwd=tmp_path,
    )
    assert [s["seat"] for s in json.loads(made)["seats"]] == ["a", "b"]
    assert json.loads(_run(pbem, "status", "cd-1", "--json", env=env, cwd=tmp_path))["id"] == "cd-1"
