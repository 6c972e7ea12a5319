"""pbem serve: the same games, views and rules in a browser and over a JSON API."""
