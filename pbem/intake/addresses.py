"""One place that decides what a mail address is: seat and observer addresses at the door, the From of
inbound mail, and the recipient of every mail the host sends.

An address is kept as ``local@domain`` in one normal form: lower case, the domain in its ASCII (IDNA,
``xn--``) spelling, so ``Ann@Exämple.org`` and ``ann@xn--exmple-cua.org`` are one seat. Whatever the host
stores or hands to an SMTP server is plain ASCII, so no mail can fail on encoding it.

Refused, with a message saying what to write instead: anything that is not one bare address (angle
brackets, a list, a display name), a local part that is not a dot-atom (``john.``, ``a..b``, control
characters, quotes), a local part in non-ASCII letters (that needs SMTPUTF8, which the host does not
speak: refusing it at the door beats a mail that can never be sent), a domain without a dot
(``localhost``), one that is not a valid host name or IDNA 2008 name, one reserved for local or special
use (``.local``, ``.invalid``, ``.onion``, ``.arpa``), and anything over the lengths RFC 5321 allows.
The syntax is email-validator's; the words and the first checks, which say what a person got wrong,
are pbem's.
"""

from __future__ import annotations

import email_validator
from email_validator import EmailNotValidError, validate_email

from pbem.core.i18n import _, ngettext

#: RFC 5321 4.5.3.1: a path of at most 256 octets with its brackets (the local part's 64 is the library's)
MAX_ADDRESS = 254
_GOOD_LOCAL, _GOOD_DOMAIN = "a", "example.org"  # to tell which half of a refused address is at fault


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
        raise AddressError(_("the mail address is empty: write it as name@example.org"))
    if any(c in text for c in "<>"):
        raise AddressError(
            _(
                "{address} is not a mail address: write the bare address, without angle brackets or a name",
                address=shown,
            )
        )
    if any(c in text for c in ",;"):
        raise AddressError(
            _(
                "{address} is not a mail address: write one address only (no commas or semicolons)",
                address=shown,
            )
        )
    if any(c.isspace() for c in text) or any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise AddressError(
            _(
                "{address} is not a mail address: a mail address has no spaces or control characters",
                address=shown,
            )
        )
    if text.count("@") != 1:
        raise AddressError(
            _(
                "{address} is not a mail address: a mail address has exactly one @, as in name@example.org",
                address=shown,
            )
        )
    local, domain = text.split("@")
    if not local or not domain:
        raise AddressError(
            _(
                "{address} is not a mail address: a mail address needs a name before the @ and a domain "
                "after it",
                address=shown,
            )
        )
    if not local.isascii():
        raise AddressError(
            _(
                "{address} is not a mail address: the part before the @ must be plain ASCII letters, "
                "digits or . _ - + (this host cannot send to non-ASCII names)",
                address=shown,
            )
        )
    domain = domain.rstrip(".")  # the root's dot ("example.org.") names the same domain
    checked = _checked(f"{local}@{domain}")
    if checked is None:
        raise AddressError(
            _("{address} is not a mail address: {why}", address=shown, why=_why(local, domain))
        )
    return f"{checked.ascii_local_part.lower()}@{checked.ascii_domain}"


def _checked(address: str) -> email_validator.ValidatedEmail | None:
    """email-validator's verdict on the syntax: no DNS asked (this host may have none), no SMTPUTF8 (the
    host does not speak it), the RFC's 64 octets for the local part (``strict``), and the ``.test``
    domains of RFC 6761 allowed (``test_environment``), as pbem's own test and demo hosts live there."""
    try:
        return validate_email(
            address,
            allow_smtputf8=False,
            check_deliverability=False,
            strict=True,
            test_environment=True,
        )
    except EmailNotValidError:
        return None


def _why(local: str, domain: str) -> str:
    """Which half of a refused address is wrong, in pbem's words (the library's name the library)."""
    if _checked(f"{local}@{_GOOD_DOMAIN}") is None:
        return _(
            "the part before the @ may hold letters, digits and . _ - +, "
            "with no dot at its start or end and no two dots together"
        )
    if _checked(f"{_GOOD_LOCAL}@{domain}") is None:
        last = domain.lower().rsplit(".", 1)[-1]
        if "." not in domain.replace("。", "."):
            return _("the domain needs a dot, as in example.org (a bare host name is local)")
        if last in email_validator.SPECIAL_USE_DOMAIN_NAMES:
            return _(
                "{domain} is a name reserved for local or special use, which no mail reaches",
                domain=_shown(domain),
            )
        if not domain.isascii() or "xn--" in domain.lower():  # an IDNA name: the hint below is not its rule
            return _("{domain} is not a valid domain name", domain=_shown(domain))
        return _(
            "{domain} is not a valid domain name (letters, digits and dashes between dots)",
            domain=_shown(domain),
        )
    return ngettext(
        "the address is too long (at most {n} character)",
        "the address is too long (at most {n} characters)",
        MAX_ADDRESS,
    )


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
