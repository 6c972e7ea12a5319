"""Mail in: orders and commands read from Maildir, mbox or IMAP, each message handled exactly once.

Modules, by concept: :mod:`.sources` (the mailboxes), :mod:`.limits` (bounds before parsing),
:mod:`.reading` (one message: sender, key, automated mail, the orders in it), :mod:`.extract` (where a
reply's own text is), :mod:`.inbound` (handling a message exactly once), :mod:`.commands` (report,
template, help and the other commands, and the registry of the rest), :mod:`.gm` (game master commands),
:mod:`.press` (messages between players), :mod:`.password_reset`, :mod:`.lobby` and :mod:`.lobby_confirm`
(open games, joining, standby lists, resigning and replacements), :mod:`.welcome` (a seat's first mail),
:mod:`.bounces`, :mod:`.backscatter`, :mod:`.guards`, :mod:`.poison`, :mod:`.redaction`.

Mail out (composing, the outbox, SMTP) is :mod:`pbem.outbox`, a layer below.
"""

# the modules that answer commands register themselves with pbem.mail.commands as they are imported
from pbem.mail import gm, lobby, lobby_confirm, password_reset, press, record  # noqa: F401
