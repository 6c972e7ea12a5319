"""``pbem serve``: the web host (:mod:`pbem.web.app`) on uvicorn, over the same database as ``pbem tick``.

Every worker process builds the application from the environment (``pbem.web.app:factory``), so the
options are handed to them there: ``--db`` as ``$PBEM_DB``, ``--behind-tls`` as ``$PBEM_WEB_TLS``. The key
that signs links and cookies is read from ``$PBEM_WEB_SECRET`` (or the file ``$PBEM_WEB_SECRET_FILE``
names), never from an option: a command line is visible to every user of the machine.
"""

from __future__ import annotations

import os
from typing import Annotated

import typer
import uvicorn

from pbem.cli.common import DbOption, guarded
from pbem.storage.db import connect
from pbem.web.settings import from_env

commands = typer.Typer()


@commands.command("serve")
def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.", min=1, max=65535)] = 8000,
    db: DbOption = None,
    workers: Annotated[
        int, typer.Option("--workers", help="Worker processes (PostgreSQL for many).", min=1, max=64)
    ] = 1,
    behind_tls: Annotated[
        bool,
        typer.Option(
            "--behind-tls", help="A TLS proxy stands in front: Secure cookies, its client addresses."
        ),
    ] = False,
) -> None:
    """Serve the games on the web: sign-in links, each seat's page, orders by clicking, press, the
    archive pages, the JSON API (PBEM_WEB_SECRET or PBEM_WEB_SECRET_FILE holds the key that signs links
    and cookies).

    [bold]Example:[/bold] PBEM_WEB_SECRET_FILE=/etc/pbem/web-secret pbem serve --db pbem.sqlite --port 8000
    """
    if db:
        os.environ["PBEM_DB"] = db
    if behind_tls:
        os.environ["PBEM_WEB_TLS"] = "1"

    def check() -> None:
        from_env()  # a missing key is said here, once, not by every worker
        connect(os.environ.get("PBEM_DB"), create=False).dispose()

    guarded(check)
    uvicorn.run(
        "pbem.web.app:factory",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        proxy_headers=behind_tls,
        forwarded_allow_ips="127.0.0.1" if behind_tls else None,
        server_header=False,
        log_level="info",
    )
