"""Shared fixtures: the host's test game, known in this process and in every process a test starts.

``tests/host/pearl_dive.py`` is registered through ``pbem.core.registry.register`` here, and through
``$PBEM_GAMES`` (with ``tests/`` on ``$PYTHONPATH``) for subprocesses: ``pbem`` commands, the replay
process of ``replay --verify``, racing turn drivers.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
_games = [g for g in os.environ.get("PBEM_GAMES", "").split(",") if g]
if "host.pearl_dive:GAME" not in _games:
    os.environ["PBEM_GAMES"] = ",".join([*_games, "host.pearl_dive:GAME"])

from host.pearl_dive import GAME  # noqa: E402 - needs tests/ on sys.path first

from pbem.core import registry  # noqa: E402

registry.register(GAME)
