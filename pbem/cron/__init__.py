"""What a deadline means: durations and the deadline of a game (:mod:`.deadlines`), what a passed
deadline does (:mod:`.policy`), reminders and late notices (:mod:`.notices`), and the game master's
commands (:mod:`.admin`). The tick that runs them is :mod:`pbem.host`."""
