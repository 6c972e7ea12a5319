"""Migration 0009 cleans the passwords an older pbem left in stored raw forms."""

from __future__ import annotations

import zlib

from sqlalchemy import create_engine, text

from pbem.storage import migrations
from tests.cron.conftest import START


def test_migration_0009_cleans_rows_an_older_pbem_stored(db_url: str) -> None:
    engine = create_engine(db_url)
    migrations.upgrade(engine, "0004")
    leaky_mail = (
        b"From: ann@example.org\r\nSubject: my pw hunter2-secret\r\nMessage-ID: <o@x>\r\n\r\n"
        b'{"game": "g", "password": "hunter2-secret", "orders": []}\r\n'
    )
    leaky_orders = '{game: g, player: red, turn: 1, password: "hunter\\x32-secret", orders: []}'
    with engine.begin() as conn:
        conn.execute(
            text("INSERT INTO inbound (key, received_at, raw_z, outcome) VALUES ('k', :at, :z, 'rejected')"),
            {"at": START, "z": zlib.compress(leaky_mail)},
        )
        conn.execute(
            text(
                "INSERT INTO submission (received_at, source, raw_z, status) "
                "VALUES (:at, 'mail', :z, 'rejected')"
            ),
            {"at": START, "z": zlib.compress(leaky_orders.encode())},
        )
    migrations.upgrade(engine)
    with engine.connect() as conn:
        mail_blob = zlib.decompress(conn.execute(text("SELECT raw_z FROM inbound")).scalar_one())
        orders_blob = zlib.decompress(conn.execute(text("SELECT raw_z FROM submission")).scalar_one())
    assert b"hunter2-secret" not in mail_blob and b"From: ann@example.org" in mail_blob
    assert b"hunter" not in orders_blob and b"[redacted]" in orders_blob
    engine.dispose()
