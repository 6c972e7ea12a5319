"""Playing a game: creating it, taking orders, resolving turns, and its status."""
