"""pbem: a host for board games played by email."""

__version__ = "0.1.0"
