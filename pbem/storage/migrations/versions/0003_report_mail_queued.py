"""``report.mail_queued``: the mail pass reads only the reports whose mail is not queued yet.

Before it, every tick joined every report ever stored with the outbox to find the few new ones. The
flag is backfilled from the outbox's dedupe keys: a report is queued when no mail of it is missing,
by the rule the old pass used (a seat's report to a seat with an address, the public one to each
observer). A report the old pass skipped for good (a broken address) stays unqueued once; the next
pass looks at it and marks it.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

INDEX = "ix_report_mail_queued"

#: ``report:GAME:EPOCH:TURN:SEAT`` as pbem.outbox.report_key spells it
_KEY = (
    "'report:' || r.game_id || ':' || CAST(r.epoch AS VARCHAR) || ':' || CAST(r.turn AS VARCHAR)"
    " || ':' || r.seat"
)

BACKFILL = f"""
UPDATE report SET mail_queued = TRUE
WHERE id IN (
    SELECT r.id FROM report r
    WHERE NOT EXISTS (
        SELECT 1 FROM seat s
        WHERE r.seat <> '' AND s.game_id = r.game_id AND s.name = r.seat AND s.email <> ''
          AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.dedupe_key = {_KEY})
    )
    AND NOT EXISTS (
        SELECT 1 FROM observer b
        WHERE r.seat = '' AND b.game_id = r.game_id
          AND NOT EXISTS (
              SELECT 1 FROM outbox o WHERE o.dedupe_key = {_KEY} || 'observer=' || LOWER(TRIM(b.email))
          )
    )
)
"""


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    # A database made by the host's create_all with this code already has the column and index.
    if "mail_queued" not in {c["name"] for c in inspector.get_columns("report")}:
        op.add_column(
            "report", sa.Column("mail_queued", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        op.execute(BACKFILL)
    if INDEX not in {i["name"] for i in inspector.get_indexes("report")}:
        op.create_index(INDEX, "report", ["mail_queued", "game_id"], unique=False)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="report")
    op.drop_column("report", "mail_queued")
