"""Reading one message: the orders in it, its sender, its key, and whether a person sent it."""

from __future__ import annotations

from email import policy
from email.message import EmailMessage

import pytest

from pbem.mail import reading
from tests.mail.conftest import HOST, mail

ORDERS = "game: pd-1\nplayer: red\nturn: 1\npassword: tulip-frog-42\norders:\n  - bid: 3\n"


def raw(msg: EmailMessage) -> bytes:
    return msg.as_bytes(policy=policy.SMTP)


def test_orders_are_read_from_the_plain_text_body() -> None:
    found = reading.extract(reading.parse(raw(mail(ORDERS))))
    assert found.origin == "body"
    assert found.text == ORDERS.rstrip("\n")


@pytest.mark.parametrize("name", ["orders.yaml", "ORDERS.YML", "turn-3.txt"])
def test_orders_are_read_from_an_attachment_named_yaml_yml_or_txt(name: str) -> None:
    msg = mail("Hi, my orders are attached. Ann")
    msg.add_attachment(ORDERS.encode(), maintype="application", subtype="octet-stream", filename=name)
    found = reading.extract(reading.parse(raw(msg)))
    assert found.origin == f"attachment {name}"
    assert "bid: 3" in found.text


def test_an_attachment_of_another_kind_is_not_read_as_orders() -> None:
    msg = mail("Hi, my orders are attached. Ann")
    msg.add_attachment(ORDERS.encode(), maintype="application", subtype="pdf", filename="orders.pdf")
    found = reading.extract(reading.parse(raw(msg)))
    assert found.origin == "body"
    assert found.text == "Hi, my orders are attached. Ann"


def test_the_body_wins_over_an_attachment_that_holds_no_orders() -> None:
    msg = mail(ORDERS)
    msg.add_attachment("just a note\n", filename="note.txt")
    assert reading.extract(reading.parse(raw(msg))).origin == "body"


def test_quoted_reply_and_attribution_line_are_dropped() -> None:
    body = ORDERS + "\nOn Mon, 2 Mar 2026, pbem <host@pbem.test> wrote:\n> turn 1 report\n> password: old\n"
    found = reading.extract(reading.parse(raw(mail(body))))
    assert found.text == ORDERS.rstrip("\n")


def test_signature_is_dropped_but_yaml_document_markers_are_not() -> None:
    body = "---\n" + ORDERS + "-- \nAnn Diver\nphone 123\n"
    assert reading.strip_reply(body) == "---\n" + ORDERS.rstrip("\n")
    assert reading.strip_reply(ORDERS + "--\nAnn\n") == ORDERS.rstrip("\n")


def test_indentation_is_kept_and_no_break_spaces_become_spaces() -> None:
    body = ORDERS.replace("  - bid", "\xa0\xa0- bid")
    assert "\n  - bid: 3" in reading.extract(reading.parse(raw(mail(body)))).text


def test_html_with_a_text_part_is_read_from_the_text_part() -> None:
    msg = mail(ORDERS)
    msg.add_alternative("<html><body><p>game: pd-1</p></body></html>", subtype="html")
    found = reading.extract(reading.parse(raw(msg)))
    assert found.origin == "body" and found.problem == ""
    assert "bid: 3" in found.text


def test_html_only_mail_is_read_from_its_text() -> None:
    msg = mail()
    msg.set_content("<html><body><p>game: pd-1</p><p>player: red</p></body></html>", subtype="html")
    found = reading.extract(reading.parse(raw(msg)))
    assert (found.text, found.problem, found.how) == ("game: pd-1\n\nplayer: red", "", "scan")


def test_empty_mail_is_flagged_empty() -> None:
    assert reading.extract(reading.parse(raw(mail("\n\n")))).problem == "empty"


def test_body_in_latin_1_is_decoded_by_its_charset() -> None:
    msg = mail()
    msg.set_content("player: red # für Ann\n".encode("latin-1"), "text", "plain")
    msg.replace_header("Content-Type", 'text/plain; charset="iso-8859-1"')
    assert reading.extract(reading.parse(raw(msg))).text == "player: red # für Ann"


def test_unknown_or_lying_charset_falls_back_without_error() -> None:
    data = (
        b"From: ann@example.org\r\nSubject: x\r\nContent-Type: text/plain; charset=x-no-such-charset\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\nplayer: r\xc3\xa9d\r\n"
    )
    assert reading.extract(reading.parse(data)).text == "player: réd"
    lying = data.replace(b"x-no-such-charset", b"us-ascii").replace(b"r\xc3\xa9d", b"r\xe9d")
    assert reading.extract(reading.parse(lying)).text == "player: réd"  # latin-1, the last resort


def test_the_sender_is_the_one_from_address_never_reply_to() -> None:
    msg = mail(ORDERS, headers={"Reply-To": "victim@elsewhere.org", "Cc": "other@elsewhere.org"})
    assert reading.sender(reading.parse(raw(msg))) == "ann@example.org"


@pytest.mark.parametrize(
    "frm", ["ann@example.org, victim@elsewhere.org", "", "not an address", "ann@localhost", "<>"]
)
def test_no_single_valid_from_address_means_no_sender(frm: str) -> None:
    data = f"From: {frm}\r\nSubject: x\r\n\r\nhi\r\n".encode()
    assert reading.sender(reading.parse(data)) is None


def test_the_key_is_message_id_plus_a_digest_that_ignores_delivery_headers() -> None:
    msg = mail(ORDERS, message_id="<m1@example.org>")
    first = raw(msg)
    delivered = b"Return-Path: <ann@example.org>\r\nDelivered-To: host@pbem.test\r\n" + first.replace(
        b"\r\n", b"\n"
    )
    key = reading.message_key(first, reading.parse(first))
    assert key.startswith("<m1@example.org> ")
    assert reading.message_key(delivered, reading.parse(delivered)) == key


def test_the_same_message_id_with_other_content_is_another_key() -> None:
    a = raw(mail(ORDERS, message_id="<same@example.org>"))
    b = raw(mail(ORDERS.replace("bid: 3", "bid: 4"), message_id="<same@example.org>"))
    assert reading.message_key(a, reading.parse(a)) != reading.message_key(b, reading.parse(b))


def test_an_overlong_message_id_still_gives_a_key_that_fits_the_column() -> None:
    data = raw(mail(ORDERS, message_id="<" + "x" * 1000 + "@example.org>"))
    assert len(reading.message_key(data, reading.parse(data))) <= 400


@pytest.mark.parametrize(
    ("headers", "frm", "reason"),
    [
        ({"Auto-Submitted": "auto-replied"}, "ann@example.org", "auto-reply"),
        ({"Auto-Submitted": "auto-generated"}, "ann@example.org", "auto-reply"),
        ({"Precedence": "bulk"}, "ann@example.org", "bulk"),
        ({"Precedence": "junk"}, "ann@example.org", "bulk"),
        ({"Precedence": "list"}, "ann@example.org", "bulk"),
        ({"Return-Path": "<>"}, "ann@example.org", "bounce"),
        ({}, "MAILER-DAEMON@example.org", "bounce"),
        ({}, "postmaster@example.org", "bounce"),
        ({"X-Loop": HOST}, "ann@example.org", "our own"),
        ({"X-PBEM-Host": "other-host@pbem.test"}, "ann@example.org", "pbem host"),
        ({}, HOST, "our own"),
    ],
)
def test_automated_mail_is_recognised(headers: dict[str, str], frm: str, reason: str) -> None:
    msg = reading.parse(raw(mail("out of office", frm=frm, headers=headers)))
    found = reading.automated_reason(msg, (HOST,), HOST)
    assert found is not None and reason in found


def test_a_person_s_mail_is_not_automated() -> None:
    msg = mail(ORDERS, headers={"Auto-Submitted": "no", "Return-Path": "<ann@example.org>"})
    assert reading.automated_reason(reading.parse(raw(msg)), (HOST,), HOST) is None


def test_a_delivery_report_is_a_bounce() -> None:
    msg = mail("could not deliver", frm="ann@example.org")
    msg.make_mixed()
    msg.replace_header("Content-Type", 'multipart/report; report-type=delivery-status; boundary="b"')
    assert "bounce" in (reading.automated_reason(reading.parse(raw(msg)), (HOST,), HOST) or "")


def test_password_is_found_with_quotes_and_comments() -> None:
    assert reading.password_in("password: tulip-frog-42") == "tulip-frog-42"
    assert reading.password_in("password: 'tulip-frog-42'   # mine") == "tulip-frog-42"
    assert reading.password_in("game: g\nplayer: red") is None


def test_redaction_reaches_base64_and_quoted_printable_parts_and_headers() -> None:
    secret = "tulip-frog-42"
    msg = mail(ORDERS + "\n" + "é" * 10 + "\n", subject=f"orders {secret}")  # non-ASCII: encoded body
    msg.add_attachment(ORDERS.encode(), maintype="application", subtype="octet-stream", filename="o.yaml")
    msg.add_attachment(ORDERS, subtype="plain", filename="o.txt", cte="base64")
    data = raw(msg)
    out = reading.redact(data, reading.parse(data), secret)
    assert secret.encode() not in out
    back = reading.parse(out)
    assert all(secret not in reading.decode_part(p) for p in back.walk())
    assert "[password redacted]" in reading.decode_part(back.get_body(preferencelist=("plain",)))  # type: ignore[arg-type]


def test_redaction_leaves_a_message_without_the_password_byte_identical() -> None:
    data = raw(mail("game: pd-1\nplayer: red\n"))
    assert reading.redact(data, reading.parse(data), "tulip-frog-42") == data


def test_a_signed_message_is_read_from_its_signed_text() -> None:
    data = (
        "From: ann@example.org\r\nSubject: orders\r\nMIME-Version: 1.0\r\n"
        'Content-Type: multipart/signed; protocol="application/pgp-signature"; boundary="s"\r\n\r\n'
        "--s\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + ORDERS.replace("\n", "\r\n") + "\r\n"
        "--s\r\nContent-Type: application/pgp-signature; name=signature.asc\r\n\r\n"
        "-----BEGIN PGP SIGNATURE-----\r\nabc\r\n-----END PGP SIGNATURE-----\r\n--s--\r\n"
    ).encode()
    found = reading.extract(reading.parse(data))
    assert (found.origin, found.text) == ("body", ORDERS.rstrip("\n"))


def test_mailing_list_mail_is_never_answered() -> None:
    for name, value in (("List-Id", "<players.example.org>"), ("List-Unsubscribe", "<mailto:u@example.org>")):
        msg = reading.parse(raw(mail("game: pd-1", headers={name: value})))
        assert reading.automated_reason(msg) == f"mailing-list mail ({name})"


def test_format_flowed_text_is_read_as_its_writer_wrote_it() -> None:
    body = "game: pd-1\norders:\n   # bid one pearl: a long comment that a \n client broke\n   - bid: 3\n"
    msg = mail()
    msg.set_content(body, params={"format": "flowed"})
    found = reading.extract(reading.parse(raw(msg)))
    assert (
        found.text == "game: pd-1\norders:\n  # bid one pearl: a long comment that a client broke\n  - bid: 3"
    )
