"""The ground floor: the game contract every engine implements (:mod:`.game`, :mod:`.steps`), the
registry that finds the games, errors, chance and the committed dice, the codec, the clock and time
zones, the catalogs and the words (:mod:`.i18n`, :mod:`.glossary`, :mod:`.catalogs`), the order
template's marker lines, and the named caches. Imports nothing else of pbem."""
