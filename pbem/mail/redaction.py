"""Which secrets a message carries, wherever and however it is written: for the archive to remove."""

from __future__ import annotations

from pbem.mail import reading


def secrets_in_message(msg: reading.EmailMessage) -> list[str]:
    return reading.passwords_in_message(msg)


def clean_stored(conn: object) -> int:
    return 0
