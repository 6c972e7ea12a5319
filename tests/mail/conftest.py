"""Fixtures for the mail tests: a database with a game, mail settings, real SMTP servers (aiosmtpd, in
process, on loopback) and a real IMAP server (Dovecot, started here on a free port with its own folder).

Dovecot comes from the machine's packages; if it is missing the fixture fails (never skips) and says
that ``scripts/system-deps.sh`` installs it.
"""

from __future__ import annotations

import imaplib
import os
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session
from sqlalchemy import Engine

from pbem.core.registry import register
from pbem.intake.envelope import PASSWORD_PLACEHOLDER
from pbem.outbox.settings import MailSettings
from pbem.play import orders
from pbem.play.create import create_game
from pbem.storage.db import connect
from tests.host.pearl_dive import GAME as PEARL_DIVE

HOST = "host@pbem.test"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PLAYERS = [("red", "ann@example.org"), ("blue", "bob@example.org")]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "pbem.sqlite"


@pytest.fixture
def engine(db_path: Path) -> Iterator[Engine]:
    engine = connect(f"sqlite:///{db_path}")
    yield engine
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def both_engines(request: pytest.FixtureRequest, db_path: Path) -> Iterator[Engine]:
    """The database of an end-to-end mail test, on SQLite and on PostgreSQL (which enforces every
    column's length: a value only SQLite keeps fails there). A module takes it as its ``engine`` with
    ``engine = on_both_databases()``."""
    from tests.cron.conftest import fresh_pg_database

    if request.param == "sqlite":
        eng = connect(f"sqlite:///{db_path}")
        yield eng
        eng.dispose()
        return
    with fresh_pg_database() as url:
        eng = connect(url)
        yield eng
        eng.dispose()


def on_both_databases() -> Any:
    """The ``engine`` fixture of a module whose tests run on SQLite and on PostgreSQL."""

    @pytest.fixture
    def engine(both_engines: Engine) -> Engine:
        return both_engines

    return engine


@pytest.fixture
def settings() -> MailSettings:
    return MailSettings(from_addr=HOST, from_name="pbem test host", retry_seconds=60, max_attempts=3)


@dataclass
class Game:
    id: str
    passwords: dict[str, str]
    emails: dict[str, str]


def new_game(
    engine: Engine, game_id: str = "pd-1", *, require_from_match: bool = False, seed: int = 7
) -> Game:
    register(PEARL_DIVE)
    passwords = create_game(
        engine,
        PEARL_DIVE.name,
        game_id,
        PLAYERS,
        seed=seed,
        options={"rounds": "2"},
        require_from_match=require_from_match,
        now=START,
    )
    return Game(game_id, passwords, dict(PLAYERS))


@pytest.fixture
def game(engine: Engine) -> Game:
    return new_game(engine)


def mail(
    body: str = "",
    *,
    frm: str = "Ann <ann@example.org>",
    to: str = HOST,
    subject: str = "orders",
    headers: dict[str, str] | None = None,
    message_id: str | None = None,
) -> EmailMessage:
    """A plain-text message as a player's mail program would send it."""
    msg = EmailMessage()
    msg["From"] = frm
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = format_datetime(datetime(2026, 3, 2, 10, 0, tzinfo=UTC))
    msg["Message-ID"] = message_id or make_msgid(domain="example.org")
    for name, value in (headers or {}).items():
        msg[name] = value
    msg.set_content(body)
    return msg


def bot_orders(engine: Engine, game: Game, seat: str) -> str:
    """The bot's legal orders for ``seat``, as the player would mail them."""
    return orders.template(engine, game.id, seat, suggest=True).replace(
        PASSWORD_PLACEHOLDER, game.passwords[seat]
    )


def orders_text(game: Game, seat: str, orders: str, *, turn: int = 1, password: str | None = None) -> str:
    pw = game.passwords[seat] if password is None else password
    return f"game: {game.id}\nplayer: {seat}\nturn: {turn}\npassword: {pw}\norders:\n{orders}"


# --------------------------------------------------------------------------------------------- SMTP


@dataclass
class Received:
    sender: str
    recipients: list[str]
    data: bytes


@dataclass
class Recorder:
    """An aiosmtpd handler that keeps what it accepts, and answers from a script of replies first."""

    script: list[str] = field(default_factory=list)  # e.g. ["451 4.3.0 busy", "421 4.3.2 bye"]
    refuse_rcpt: set[str] = field(default_factory=set)
    received: list[Received] = field(default_factory=list)
    deliver: Callable[[Received], None] | None = None

    async def handle_RCPT(
        self, server: Any, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if address.lower() in self.refuse_rcpt:
            return "550 5.1.1 no such user here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Session, envelope: Envelope) -> str:
        if self.script:
            return self.script.pop(0)
        got = Received(
            str(envelope.mail_from), list(envelope.rcpt_tos), bytes(envelope.original_content or b"")
        )
        self.received.append(got)
        if self.deliver is not None:
            self.deliver(got)
        return "250 2.0.0 accepted"


@dataclass
class SmtpServer:
    port: int
    handler: Recorder
    logins: list[tuple[str, str]]

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"


def _start_smtp(handler: Recorder, **kwargs: Any) -> tuple[Controller, SmtpServer]:
    logins: list[tuple[str, str]] = []

    def authenticator(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        if isinstance(data, LoginPassword):
            logins.append((data.login.decode(), data.password.decode()))
            # handled=False: aiosmtpd then answers a wrong password 535 itself (handled=True, the
            # default, means "already answered", and the client would wait for a reply that never comes)
            return AuthResult(success=data.password == b"smtp-secret-9", handled=False)
        return AuthResult(success=False, handled=False)

    port = free_port()
    options: dict[str, Any] = {"auth_require_tls": False, **kwargs}  # plain test servers offer AUTH in clear
    controller = Controller(handler, hostname="127.0.0.1", port=port, authenticator=authenticator, **options)
    controller.start()
    return controller, SmtpServer(port, handler, logins)


@pytest.fixture
def smtp() -> Iterator[SmtpServer]:
    """An SMTP server that accepts everything (and checks a login if one is offered)."""
    controller, server = _start_smtp(Recorder())
    yield server
    controller.stop()


# -------------------------------------------------------------------------------------------- Dovecot

DOVECOT_CONF = """\
protocols = imap
listen = 127.0.0.1
base_dir = {root}/run
state_dir = {root}/state
log_path = {root}/dovecot.log
ssl = yes
ssl_cert = <{cert}
ssl_key = <{key}
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = dovecot
default_login_user = dovenull
default_internal_group = dovecot
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = static
  args = uid=dovecot gid=dovecot home={root}/mail/%u
}}
mail_location = maildir:~/Maildir
# "/" between a mailbox and its children, as most servers write it (INBOX/Входящие)
namespace inbox {{
  inbox = yes
  separator = /
}}
service imap-login {{
  inet_listener imap {{
    port = {port}
  }}
  inet_listener imaps {{
    port = {tls_port}
  }}
}}
first_valid_uid = 100
# a test that logs in with a wrong password must not slow down the logins of the tests after it
auth_failure_delay = 0
login_trusted_networks = 127.0.0.1/32
"""

IMAP_USERS = {
    HOST: "host-imap-secret-7",
    "ann@example.org": "ann-imap",
    "bob@example.org": "bob-imap",
    "cy@example.org": "cy-imap",
    "dee@example.org": "dee-imap",
}


@dataclass
class Dovecot:
    port: int  # IMAP, with STARTTLS offered
    tls_port: int  # IMAPS
    root: Path
    passwords: dict[str, str]

    def url(self, user: str, mailbox: str = "INBOX") -> str:
        return f"imap://{user}@127.0.0.1:{self.port}/{mailbox}"

    def login(self, user: str) -> imaplib.IMAP4:
        conn = imaplib.IMAP4("127.0.0.1", self.port, timeout=10)
        conn.login(user, self.passwords[user])
        return conn

    def append(self, user: str, raw: bytes, mailbox: str = "INBOX") -> None:
        conn = self.login(user)
        try:
            if mailbox != "INBOX":
                conn.create(mailbox)
            status, _ = conn.append(mailbox, None, None, raw)
            assert status == "OK"
        finally:
            conn.logout()

    def messages(self, user: str, mailbox: str = "INBOX") -> list[bytes]:
        """Every message in the mailbox, oldest first (read without marking)."""
        conn = self.login(user)
        try:
            conn.select(mailbox, readonly=True)
            _, found = conn.uid("SEARCH", "ALL")
            out = []
            for uid in found[0].split():
                _, data = conn.uid("FETCH", uid, "(BODY.PEEK[])")
                out.extend(part[1] for part in data if isinstance(part, tuple))
            return out
        finally:
            conn.logout()

    def unseen(self, user: str, mailbox: str = "INBOX") -> int:
        conn = self.login(user)
        try:
            conn.select(mailbox, readonly=True)
            _, found = conn.uid("SEARCH", "UNSEEN")
            return len(found[0].split())
        finally:
            conn.logout()

    def clear(self, user: str, mailbox: str = "INBOX") -> None:
        conn = self.login(user)
        try:
            status, data = conn.select(mailbox)
            if status == "OK" and int(data[0] or 0) > 0:
                conn.store("1:*", "+FLAGS", "(\\Deleted)")
                conn.expunge()
        finally:
            conn.logout()


@pytest.fixture(scope="session")
def dovecot(certificate: Certificate) -> Iterator[Dovecot]:
    """A private Dovecot on a free loopback port, with a mailbox per user of ``IMAP_USERS``."""
    binary = shutil.which("dovecot") or next(
        (p for p in ("/usr/sbin/dovecot", "/usr/local/sbin/dovecot") if os.path.exists(p)), None
    )
    if binary is None:
        pytest.fail(
            "Dovecot is not installed: the IMAP tests need a real server. "
            "Run `bash scripts/system-deps.sh` (as root) to install it (Debian package dovecot-imapd).",
            pytrace=False,
        )
    if os.geteuid() != 0:
        pytest.fail("the Dovecot fixture runs Dovecot's master process, which needs root", pytrace=False)
    # Not under pytest's tmp folder: Dovecot's own users must be able to walk the path to the mail.
    root = Path(tempfile.mkdtemp(prefix="pbem-dovecot-"))
    root.chmod(0o755)
    (root / "mail").mkdir()
    shutil.chown(root / "mail", "dovecot", "dovecot")
    (root / "users").write_text("".join(f"{u}:{{PLAIN}}{p}\n" for u, p in IMAP_USERS.items()))
    port, tls_port = free_port(), free_port()
    conf = root / "dovecot.conf"
    conf.write_text(
        DOVECOT_CONF.format(
            root=root, port=port, tls_port=tls_port, cert=certificate.cert, key=certificate.key
        )
    )
    # Output to a file, not a pipe: the daemon keeps its inherited descriptors, and a pipe would never end.
    with open(root / "start.log", "wb") as log:
        started = subprocess.run([binary, "-c", str(conf)], stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    if started.returncode != 0:
        why = (root / "start.log").read_text().strip()
        shutil.rmtree(root, ignore_errors=True)
        pytest.fail(f"Dovecot did not start: {why}", pytrace=False)
    try:
        _wait_for_port(port, root)
        _wait_for_port(tls_port, root)
        yield Dovecot(port, tls_port, root, dict(IMAP_USERS))
    finally:
        subprocess.run(
            [binary, "-c", str(conf), "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        _wait_gone(root / "run" / "master.pid")
        shutil.rmtree(root, ignore_errors=True)


def _wait_for_port(port: int, root: Path) -> None:
    for _ in range(100):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    log = (root / "dovecot.log").read_text() if (root / "dovecot.log").exists() else ""
    pytest.fail(f"Dovecot did not listen on port {port}:\n{log}", pytrace=False)


def _wait_gone(pid_file: Path) -> None:
    for _ in range(100):
        if not pid_file.exists():
            return
        time.sleep(0.05)


def stored_bytes(db_path: Path) -> bytes:
    """Everything the database holds on disk: the file and its WAL, where recent commits may still be."""
    return b"".join(p.read_bytes() for p in sorted(db_path.parent.glob(db_path.name + "*")))


# ---------------------------------------------------------------------------------------------- TLS


@dataclass(frozen=True)
class Certificate:
    cert: Path
    key: Path


@pytest.fixture(scope="session")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    """A self-signed certificate for 127.0.0.1, made with the openssl command."""
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    made = subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        capture_output=True,
        text=True,
    )  # fmt: skip
    if made.returncode != 0:
        pytest.fail(f"openssl could not make a test certificate: {made.stderr.strip()}", pytrace=False)
    return Certificate(cert, key)


def server_tls(certificate: Certificate) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(certificate.cert, certificate.key)
    return context


@pytest.fixture
def smtp_starttls(certificate: Certificate) -> Iterator[SmtpServer]:
    """An SMTP server that demands STARTTLS before anything else, and a login after it."""
    controller, server = _start_smtp(
        Recorder(),
        tls_context=server_tls(certificate),
        require_starttls=True,
        auth_required=True,
        auth_require_tls=True,
    )
    yield server
    controller.stop()


@pytest.fixture
def smtps(certificate: Certificate) -> Iterator[SmtpServer]:
    """An SMTP server speaking TLS from the first byte (port 465 style)."""
    controller, server = _start_smtp(Recorder(), ssl_context=server_tls(certificate))
    yield server
    controller.stop()
