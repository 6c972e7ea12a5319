"""Seat passwords: three words and two digits, stored as salted scrypt, checked in constant time."""

from __future__ import annotations

import re

from pbem import passwords


def test_generated_password_is_three_words_and_two_digits() -> None:
    for _ in range(20):
        assert re.fullmatch(r"[a-z]+-[a-z]+-[a-z]+-\d\d", passwords.generate())


def test_generated_passwords_differ() -> None:
    assert len({passwords.generate() for _ in range(50)}) == 50


def test_hash_is_salted_scrypt_and_verifies_only_the_password() -> None:
    one, two = passwords.hash_password("tulip-frog-42"), passwords.hash_password("tulip-frog-42")
    assert one.startswith("scrypt$") and one.count("$") == 2
    assert one != two  # a fresh salt each time
    assert "tulip-frog-42" not in one
    assert passwords.verify("tulip-frog-42", one)
    assert not passwords.verify("tulip-frog-43", one)


def test_no_stored_hash_never_verifies() -> None:
    assert not passwords.verify("anything", None)
    assert not passwords.verify("anything", "plain$text")
