"""What comes in from a player, checked before anything is stored: the order file and its envelope,
the explanation of a mistake, the order schema for editors, passwords (a game's and a seat's),
guessing, redaction of secrets, mail addresses, time away."""
