"""Migration 0009 cleans the passwords an older pbem left in stored raw forms."""

from __future__ import annotations

import base64
import zlib
from email import message_from_bytes, policy

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


def test_migration_0009_reads_every_part_and_the_encoded_subject(db_url: str) -> None:
    # the revision carries its own copy of the redaction: it must still see a password however written
    engine = create_engine(db_url)
    migrations.upgrade(engine, "0004")
    encoded = base64.encodebytes(b"game: g\npassword: 'tulip-garden'\norders: []\n")
    html_part = "<p>{game: g, <b>password</b>: tulip-garden}</p>"
    leaky_mail = (
        b"From: bo@example.org\r\nSubject: =?utf-8?q?pw_tulip-garden?=\r\nMessage-ID: <p@x>\r\n"
        b'MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="BB"\r\n\r\n'
        b"--BB\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        + encoded
        + b"\r\n--BB\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
        + html_part.encode()
        + b"\r\n--BB--\r\n"
    )
    with engine.begin() as conn:
        conn.execute(
            text("INSERT INTO inbound (key, received_at, raw_z, outcome) VALUES ('k', :at, :z, 'rejected')"),
            {"at": START, "z": zlib.compress(leaky_mail)},
        )
    migrations.upgrade(engine)
    with engine.connect() as conn:
        cleaned = zlib.decompress(conn.execute(text("SELECT raw_z FROM inbound")).scalar_one())
    engine.dispose()
    read = message_from_bytes(cleaned, policy=policy.default)
    texts = [str(read["Subject"])] + [part.get_content() for part in read.walk() if not part.is_multipart()]
    assert len(texts) == 3 and all("[password redacted]" in t for t in texts)
    assert all("tulip-garden" not in t for t in texts) and b"tulip-garden" not in cleaned
    assert read["From"] == "bo@example.org"
