"""``pbem replay --verify``: the whole check run again in a process of its own, with a hash seed of its
own, so that nothing this process computed or cached can make a game look sound
(``python -m pbem.archive.verifying SOURCE [--db URL]`` prints the verdict as JSON)."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from typing import Any

from pbem.archive.files import is_archive_path, load_source
from pbem.archive.replay import stored_problems, verify
from pbem.core.errors import UserError
from pbem.storage.db import connect


def verify_in_new_process(source: str, db_url: str | None) -> dict[str, Any]:
    """:func:`verify` run by ``python -m pbem.archive.verifying`` with a hash seed of its own."""
    env = dict(os.environ, PYTHONHASHSEED=str(secrets.randbelow(2**32)))
    command = [sys.executable, "-m", "pbem.archive.verifying", source]
    if db_url:
        command += ["--db", db_url]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        raise UserError(
            f"the replay process failed: {done.stderr.strip()[-2000:] or done.returncode}"
        ) from None


def _main(argv: list[str]) -> int:
    source = argv[0]
    db_url = argv[argv.index("--db") + 1] if "--db" in argv else None
    try:
        result = verify(load_source(source, db_url))
        if not is_archive_path(source):  # a game in the database: what the host reads besides the record
            stored = stored_problems(connect(db_url), source)
            result["problems"] += stored
            result["ok"] = result["ok"] and not stored
    except UserError as exc:
        result = {"ok": False, "turns": 0, "problems": [str(exc)]}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
