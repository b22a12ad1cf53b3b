"""Builders shared by the tests (fixtures stay in conftest.py), each written once: `web` for forms and tokens,
`tables` for a seated campaign, `server` for a real uvicorn and the PostgreSQL reset, `dice` and `dice_server` for
scripted dice in-process and in a browser test's server, `prompts` for a campaign's open roll prompts, `cat`, `art`,
`catfight` and `rabbits` for those systems' characters, `flip_duel` for a tiny test-only rule system (not the
fifth-system proof, tests/systems/coin). Importable as `utils` because pyproject.toml puts tests/ on the path
(bench/common.py does the same)."""
