"""The games that ship with pbem, one package each. A game imports nothing from the host but
:mod:`pbem.core.game`, the contract."""
