"""Running a host unattended: ``pbem tick`` from cron, deadlines, missed orders, reminders, the outage
guard, game master commands, and claiming games so that several ticks (on several machines) share them.

Modules: :mod:`.deadlines` (durations, the deadline of a game and how it is shown), :mod:`.policy` (what
a passed deadline does), :mod:`.claims` (who processes which game), :mod:`.notices` (reminders and late
notices), :mod:`.tick` (one run), :mod:`.admin` (game master commands), :mod:`.cli` (the commands).
"""
