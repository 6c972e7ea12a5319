"""Running the host unattended: ``pbem tick`` and its jobs, claims that let several ticks share the
games, the time base, the outage guard and the tick's mail steps."""
