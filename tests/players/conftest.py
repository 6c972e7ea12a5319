"""The mail tests' fixtures for the players' tests (issue 32): a database on SQLite and PostgreSQL, a
real IMAP server (Dovecot) and its certificate; SMTP servers are started by each test."""

from tests.mail.conftest import both_engines, certificate, db_path, dovecot  # noqa: F401
