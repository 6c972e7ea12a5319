"""Seat passwords: four EFF words and two digits, stored as salted scrypt with its cost, checked in
constant time; the first stored form (no cost, n=2^14) still verifies."""

from __future__ import annotations

import hashlib
import math
import re
import time

from pbem.intake import passwords


def test_generated_password_is_four_words_and_two_digits() -> None:
    for _ in range(20):
        assert re.fullmatch(r"[a-z]+-[a-z]+-[a-z]+-[a-z]+-\d\d", passwords.generate())


def test_generated_passwords_draw_from_the_eff_short_list_for_about_48_bits() -> None:
    words = set(passwords._words())
    assert len(words) == 1295  # the EFF short list, less "yo-yo"
    assert all(re.fullmatch(r"[a-z]+", word) for word in words)
    assert 4 * math.log2(len(words)) + math.log2(100) > 47.9
    for _ in range(20):
        assert set(passwords.generate().split("-")[:4]) <= words


def test_generated_passwords_differ() -> None:
    assert len({passwords.generate() for _ in range(50)}) == 50


def test_hash_is_salted_scrypt_with_its_cost_and_verifies_only_the_password() -> None:
    one, two = (
        passwords.hash_password("sage-plank-cod-viral-42"),
        passwords.hash_password("sage-plank-cod-viral-42"),
    )
    assert re.fullmatch(r"scrypt\$n=2048,r=8,p=1\$[0-9a-f]{32}\$[0-9a-f]{64}", one)
    assert one != two  # a fresh salt each time
    assert "sage-plank-cod-viral-42" not in one
    assert passwords.verify("sage-plank-cod-viral-42", one)
    assert not passwords.verify("sage-plank-cod-viral-43", one)


def test_the_cost_written_in_the_hash_is_the_one_checked() -> None:
    salt = bytes(range(16))
    at_1024 = hashlib.scrypt(b"sage-plank-cod-viral-42", salt=salt, n=1024, r=8, p=1, dklen=32).hex()
    assert passwords.verify("sage-plank-cod-viral-42", f"scrypt$n=1024,r=8,p=1${salt.hex()}${at_1024}")
    assert not passwords.verify("sage-plank-cod-viral-42", f"scrypt$n=2048,r=8,p=1${salt.hex()}${at_1024}")


def test_the_first_stored_form_still_verifies_at_its_cost() -> None:
    salt = bytes(range(16))
    legacy = hashlib.scrypt(b"tulip-frog-42", salt=salt, n=2**14, r=8, p=1, dklen=32).hex()
    stored = f"scrypt${salt.hex()}${legacy}"
    assert passwords.verify("tulip-frog-42", stored)
    assert not passwords.verify("tulip-frog-43", stored)


def test_no_stored_hash_never_verifies() -> None:
    assert not passwords.verify("anything", None)
    assert not passwords.verify("anything", "plain$text")
    assert not passwords.verify("anything", "scrypt$n=2048,r=8$00$00")
    assert not passwords.verify("anything", "scrypt$n=3,r=8,p=1$00$00")  # scrypt refuses n not a power of 2


def test_an_unknown_seat_costs_a_real_check() -> None:
    stored = passwords.hash_password("sage-plank-cod-viral-42")

    def best_of_five(check: str | None) -> float:
        times = []
        for _ in range(5):
            start = time.process_time()
            passwords.verify("sage-plank-cod-viral-41", check)
            times.append(time.process_time() - start)
        return min(times)

    # the same scrypt runs either way; a skipped check would be a hundred times faster
    assert best_of_five(None) > best_of_five(stored) / 3
