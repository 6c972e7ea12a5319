"""Play by email: orders in (Maildir, mbox, IMAP), replies and reports out (SMTP or an outbox Maildir).

Modules, by concept: :mod:`.reading` (one inbound message: sender, key, automated mail, the orders in
it), :mod:`.inbound` (handling a message exactly once), :mod:`.commands` (report/template requests),
:mod:`.compose` (building outgoing mail), :mod:`.outbox` (the queue, retries, report mail),
:mod:`.transport` (SMTP, Maildir), :mod:`.sources` (Maildir, mbox, IMAP), :mod:`.settings` (config file
and environment), :mod:`.cli` (``pbem mail``).

The cron layer calls :func:`pbem.mail.inbound.fetch`, :func:`pbem.mail.outbox.enqueue_reports` and
:func:`pbem.mail.outbox.send`; other mail (reminders) is queued with :func:`pbem.mail.outbox.queue`.
"""
