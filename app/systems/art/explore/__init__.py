"""ART exploration scenes (an encounter on the phase track, ch. 4): track.py holds the state, the track and the
words for its time, narrator.py the narrator's actions on it, plan.py which roll a player's declaration makes and
its chance, declare.py the declaration itself (an action, travel, shadowing, tracking, or letting a phase go by).
"""
