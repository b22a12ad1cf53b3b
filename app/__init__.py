"""Fateboard: a browser tabletop with an authoritative, hash-chained roll log."""
