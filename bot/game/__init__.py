"""The table service: Discord-free game flow between the engine and the database."""
