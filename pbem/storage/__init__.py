"""What the host keeps: the database and its connections (:mod:`.db`, :mod:`.sqlite`), the tables
(:mod:`.models`, :mod:`.cron_models`), their migrations, the turn history, the claim fences and the
press log. Renders nothing and sends nothing."""
