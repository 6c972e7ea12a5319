"""One view, several renderings: the Jinja environment and its caches, the reports (text and HTML),
the mail HTML with its board pictures, the calendar parts, the preview of ``pbem check``."""
