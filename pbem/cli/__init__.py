"""The ``pbem`` command: parse, call one service, print. :mod:`.app` holds the commands of a game by
hand, :mod:`.cron` the tick and the game master's, :mod:`.mail` the mail's, :mod:`.demo` the demo."""
