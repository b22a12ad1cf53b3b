"""ART combat rounds (an encounter): state.py holds the state, the set-up, the view and the turn machinery; the
actions are in turns.py (initiative, waiting, ending a turn), moves.py (the range track), attacks.py (attacks,
defense, parrying), aoe.py (area of effect), options.py (dodging, fumbles, maneuvers, aiming), grapple.py and
grapple_hit.py, perks.py (kicker-triggered perks), free.py (a perk's free attack), gear.py (arming in combat),
pvp.py (adventurer against adventurer) and ruses.py (protecting a companion, playing dead); roll.py holds what
their rolls share.
"""
