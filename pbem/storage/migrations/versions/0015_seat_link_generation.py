"""The generation of a seat's sign-in links (issue 30).

- ``seat.link_generation``: every one-click sign-in link (and every web session) carries the generation
  of its seat when it was made; a password reset or a ``replace`` raises it by one, so the links and
  sessions made before stop working at once. Existing seats start at 0.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    inspector = sa.inspect(op.get_bind())
    if "link_generation" not in {c["name"] for c in inspector.get_columns("seat")}:
        op.add_column("seat", sa.Column("link_generation", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("link_generation")
