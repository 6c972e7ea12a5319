"""A game kept and checked: archive files (export, import), storing an imported game, the archive
page, replay and its verification, records of games played elsewhere, and ``pbem verify``."""
