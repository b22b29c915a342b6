"""The table layer: what every env shares between the game and an agent (episodes of a hand or a match, rewards and
bonuses, infos, text). ``protocol`` declares the interface every format's table offers (``GameTable``);
``two_players`` frames two-player hands, ``formats`` three players, four players and rooms (docs/rules.md section
15), ``batched`` many two-player games at once for the vector env; ``checks`` holds the argument and action checks
the envs share."""
