"""64-bit integers wherever a value can pass 2**31: the seed, durations, and the ids of ever-growing tables.

A seed is drawn below 2**63 (``secrets.randbelow(2**63)``); PostgreSQL's ``integer`` holds only 2**31,
so ``pbem new`` without ``--seed`` and ``pbem import`` of an archive made on SQLite failed there with
"integer out of range". Audited with it:

- ``game.seed``: up to 2**63 - 1.
- ``game.turn_seconds``, ``game.grace_seconds``, ``cron_clock.paused_left``, ``cron_tick.outage_seconds``:
  seconds a game master types or an outage lasts (2**31 seconds is 68 years; the CLI refuses more than
  ten years, and the column is no longer the limit).
- the ids of the tables that grow with every mail and submission (``submission``, ``inbound``,
  ``outbox``, ``report``, ``turn``, with ``inbound.submission_id``): a busy host's counters. Their
  sequences become 64-bit too.

Everything else (turn numbers, epochs, seat positions, misses, per-tick counters) is bounded far below.

SQLite stores every integer in up to 8 bytes whatever the declared type, and an ``INTEGER PRIMARY KEY``
is the 64-bit rowid: on SQLite only the declared types of the non-key columns change (a table rebuild
by alembic's batch mode), and the ids stay ``INTEGER`` (a ``BIGINT PRIMARY KEY`` would not be a rowid
and would lose its autoincrement).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

#: table -> non-key columns to widen (nullable?)
COLUMNS: dict[str, dict[str, bool]] = {
    "game": {"seed": False, "turn_seconds": True, "grace_seconds": False},
    "cron_clock": {"paused_left": True},
    "cron_tick": {"outage_seconds": False},
    "inbound": {"submission_id": True},
}
#: tables whose serial id widens on PostgreSQL
IDS = ("submission", "inbound", "outbox", "report", "turn")


def _alter(to: type[sa.types.TypeEngine], from_: type[sa.types.TypeEngine]) -> None:
    bind = op.get_bind()
    tables = set(sa.inspect(bind).get_table_names())
    if bind.dialect.name == "sqlite":
        return  # every SQLite integer is already stored in up to 8 bytes (see above)
    for table, columns in COLUMNS.items():
        if table not in tables:
            continue
        for column, nullable in columns.items():
            op.alter_column(table, column, type_=to(), existing_type=from_(), existing_nullable=nullable)
    if bind.dialect.name == "postgresql":
        kind = "bigint" if to is sa.BigInteger else "integer"
        for table in IDS:
            op.alter_column(table, "id", type_=to(), existing_type=from_(), existing_nullable=False)
            sequence = bind.execute(sa.text("SELECT pg_get_serial_sequence(:t, 'id')"), {"t": table}).scalar()
            if sequence:
                op.execute(f"ALTER SEQUENCE {sequence} AS {kind}")


def upgrade() -> None:
    _alter(sa.BigInteger, sa.Integer)


def downgrade() -> None:
    _alter(sa.Integer, sa.BigInteger)
