"""The game itself, with no Gymnasium in it (docs/rules.md): cards, the rules and their presets, the action ids,
the exact solver, the one-hand engine, the match to a target, the three- and four-player formats and rooms
(section 15), and what a player sees of a hand (``observation``)."""
