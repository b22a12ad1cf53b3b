"""Builders shared by the tests (fixtures stay in conftest.py): `web` for forms and tokens, `tables` for a seated
campaign, `server` for a real uvicorn and the PostgreSQL reset, `cat` and `art` for those systems, `coin_system`
for a tiny test-only rule system. Importable as `utils` because pyproject.toml puts tests/ on the path."""
