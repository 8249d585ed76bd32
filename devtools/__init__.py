"""Helpers that the tests and the benches share, and nothing else imports: a fake Discord on loopback
(``fakediscord``), a throwaway PostgreSQL cluster (``pgcluster``), and deal positions for the AI's solver
(``positions``). Never imported by ``bot/`` or ``engine/`` (tests/test_import_boundaries.py)."""
