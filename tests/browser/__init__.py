"""A package, so that its conftest.py loads as `browser.conftest`: a second top-level `conftest` module would
replace tests/conftest.py in sys.modules, and `from conftest import …` elsewhere would find the wrong one."""
