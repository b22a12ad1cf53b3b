"""ART combat rounds (an encounter): models.py types the state, state.py reads it and holds the view and the turn
machinery, setup.py starts a combat; the actions are in turns.py (initiative, waiting, ending a turn), moves.py (the
range track), foe_moves.py (a foe's move, stopping it), attacks.py (attacks), defense.py (the Defense roll,
parrying, taking the damage), aoe.py (area of effect), fumbles.py (the Fumble table), options.py (dodging,
maneuvers, grappling, aiming), grapple.py and grapple_hit.py, perks.py (kicker-triggered perks), free.py (a perk's
free attack), gear.py (arming in combat), pvp.py (adventurer against adventurer) and ruses.py (protecting a
companion, playing dead); roll.py holds what their rolls share.
"""
