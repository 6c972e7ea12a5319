"""Where a stored report page holds the turn's shared table.

- ``report.table_at``: ``"start:end"``, the character offsets of the table in the unpacked page, written
  with the report (:func:`pbem.render.reports.report_rows`), so the mail of every seat of a turn takes
  the table out by them and makes it mail once (:func:`pbem.render.mail_html.mail_page`). Reports
  stored before keep NULL: their mail is made from the whole page (the same bytes, more work).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "table_at" not in {c["name"] for c in inspector.get_columns("report")}:
        op.add_column("report", sa.Column("table_at", sa.String(length=32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("report") as batch:
        batch.drop_column("table_at")
