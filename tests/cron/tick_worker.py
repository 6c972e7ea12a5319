"""``pbem tick`` as its own process, with the host's test game (Pearl Dive) known to it: what the
concurrency tests start several of at once. Arguments are the tick command's own."""

from __future__ import annotations

import sys

from pbem.cli.cron import app
from pbem.core import registry
from tests.host.pearl_dive import GAME

if __name__ == "__main__":
    registry.register(GAME)
    app(["tick", *sys.argv[1:]], prog_name="pbem")
