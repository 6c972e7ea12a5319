"""Hardening (issue 20): inbound tries and errors; passwords cleaned from the raw forms already stored.

``inbound.attempts`` counts the tries of a message and is its claim's generation, ``inbound.error`` the
last try's error (:mod:`pbem.mail.poison`). Rows stored by older code may hold a plaintext password
(order mails in JSON or flow YAML, a quoted ``"password":`` key, the password in the Subject, a YAML
escape): every ``inbound.raw_z`` and ``submission.raw_z`` is redacted again with today's redaction.

Revision ID: 0009
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("inbound")}
    with op.batch_alter_table("inbound") as batch:
        if "attempts" not in columns:
            batch.add_column(sa.Column("attempts", sa.Integer(), nullable=False, server_default="0"))
        if "error" not in columns:
            batch.add_column(sa.Column("error", sa.String(length=300), nullable=True))
    from pbem.mail.redaction import clean_stored

    clean_stored(op.get_bind())


def downgrade() -> None:
    with op.batch_alter_table("inbound") as batch:
        batch.drop_column("error")
        batch.drop_column("attempts")
