"""Alembic's environment for pbem: always run programmatically by :func:`pbem.storage.migrations.upgrade`,
which hands over an open connection (so the caller's lock and transaction cover the whole upgrade)."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

# every table on SQLModel.metadata: the host's and the cron layer's (autogenerate compares against them)
import pbem.storage.cron_models
import pbem.storage.models  # noqa: F401

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - the alembic command line is not how pbem upgrades
    raise RuntimeError("run pbem's migrations through pbem.storage.migrations.upgrade(engine)")

# SQLite cannot ALTER most things in place: batch mode copies the table, on every backend alike.
context.configure(connection=connection, target_metadata=SQLModel.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
