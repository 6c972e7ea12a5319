"""The proof campaign (issue 8): no leaked secret, no lost order, the same result every time, no input
that breaks the host.

Each concern is a module whose ``run(...)`` returns :class:`~proof.common.Figures`; ``python -m proof``
(``make proof``) runs the full campaign and prints one ``name: value`` line per figure, and
``tests/proof/`` runs a small sample of the same code inside ``make test``.
"""
