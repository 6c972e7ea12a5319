"""One place that decides what a mail address is: seat and observer addresses at the door, the From of
inbound mail, and the recipient of every mail the host sends.

An address is kept as ``local@domain`` in one normal form: lower case, the domain in its ASCII (IDNA,
``xn--``) spelling, so ``Ann@Exämple.org`` and ``ann@xn--exmple-cua.org`` are one seat. Whatever the host
stores or hands to an SMTP server is plain ASCII, so no mail can fail on encoding it.

Refused, with a message saying what to write instead: anything that is not one bare address (angle
brackets, a list, a display name), a local part that is not a dot-atom (``john.``, ``a..b``, control
characters, quotes), a local part in non-ASCII letters (that needs SMTPUTF8, which the host does not
speak: refusing it at the door beats a mail that can never be sent), a domain without a dot
(``localhost``) or that is not a valid host name, and anything over the lengths RFC 5321 allows.
"""

from __future__ import annotations

import re

import idna

#: the characters RFC 5322 allows in an unquoted local part (atext), dots between them
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_LOCAL = re.compile(rf"{_ATEXT}(?:\.{_ATEXT})*")
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")
#: RFC 5321 4.5.3.1: a local part of at most 64 octets, a path of at most 256 with its brackets
MAX_LOCAL, MAX_ADDRESS = 64, 254


class AddressError(ValueError):
    """Not a mail address the host can use; the message says why, in words for the person who wrote it."""


def normalise(address: str) -> str:
    """The address in the host's one form (see the module), or :class:`AddressError` saying what is wrong.

    >>> normalise(" Ann@Example.ORG ")
    'ann@example.org'
    >>> normalise("bob@exämple.org")
    'bob@xn--exmple-cua.org'
    """
    text = address.strip()
    shown = _shown(text)
    if not text:
        raise AddressError("the mail address is empty: write it as name@example.org")
    if any(c in text for c in "<>"):
        raise AddressError(
            f"{shown} is not a mail address: write the bare address, without angle brackets or a name"
        )
    if any(c in text for c in ",;"):
        raise AddressError(f"{shown} is not a mail address: write one address only (no commas or semicolons)")
    if any(c.isspace() for c in text) or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise AddressError(
            f"{shown} is not a mail address: a mail address has no spaces or control characters"
        )
    if text.count("@") != 1:
        raise AddressError(
            f"{shown} is not a mail address: a mail address has exactly one @, as in name@example.org"
        )
    local, domain = text.split("@")
    if not local or not domain:
        raise AddressError(
            f"{shown} is not a mail address: a mail address needs a name before the @ and a domain after it"
        )
    if not local.isascii():
        raise AddressError(
            f"{shown} is not a mail address: the part before the @ must be plain ASCII letters, "
            "digits or . _ - + (this host cannot send to non-ASCII names)"
        )
    if len(local) > MAX_LOCAL or not _LOCAL.fullmatch(local):
        raise AddressError(
            f"{shown} is not a mail address: the part before the @ may hold letters, digits and . _ - +, "
            "with no dot at its start or end and no two dots together"
        )
    ascii_domain = _domain(domain, shown)
    result = f"{local.lower()}@{ascii_domain}"
    if len(result) > MAX_ADDRESS:
        raise AddressError(
            f"{shown} is not a mail address: the address is too long (at most {MAX_ADDRESS} characters)"
        )
    return result


def _domain(domain: str, shown: str) -> str:
    name = domain.rstrip(".").lower()
    if not name.isascii():
        try:
            name = idna.encode(name, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError):
            raise AddressError(
                f"{shown} is not a mail address: {_shown(domain)} is not a valid domain name"
            ) from None
    labels = name.split(".")
    if len(labels) < 2:
        raise AddressError(
            f"{shown} is not a mail address: the domain needs a dot, as in example.org "
            "(a bare host name is local)"
        )
    if len(name) > 253 or not all(_LABEL.fullmatch(label) for label in labels) or labels[-1].isdigit():
        raise AddressError(
            f"{shown} is not a mail address: {_shown(domain)} is not a valid domain name "
            "(letters, digits and dashes between dots)"
        )
    if any(label.startswith("xn--") for label in labels):
        try:  # an ASCII-written IDNA label must decode, or no server will route it
            idna.decode(name)
        except (idna.IDNAError, UnicodeError):
            raise AddressError(
                f"{shown} is not a mail address: {_shown(domain)} is not a valid domain name"
            ) from None
    return name


def _shown(text: str) -> str:
    """The address as the message quotes it: control characters made visible, length bounded."""
    visible = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text[:120])
    return "'" + visible + ("…" if len(text) > 120 else "") + "'"


def is_valid(address: str) -> bool:
    try:
        normalise(address)
    except AddressError:
        return False
    return True
