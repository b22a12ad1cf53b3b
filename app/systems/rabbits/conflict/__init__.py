"""Rabbits conflicts (an encounter; docs/RABBITS-CONFLICTS.md): models.py types the state, state.py reads it,
setup.py starts one (and holds the conflict campaign setting); disposition.py the starting disposition, script.py
scripting, locking and what a viewer reads, exchange.py the exchanges, volley.py rolling an action, odds.py its odds,
weapons.py the weapons' modifiers, maneuver.py spending a maneuver, tie.py and fate.py ties and Fate rerolls,
result.py settling an exchange, end.py the end and compromise.
"""
