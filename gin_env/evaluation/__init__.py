"""Evaluation: agents against each other on duplicate deals, who beats whom, with 95% intervals and Elo.

    gin-env evaluate AGENT [AGENT ...] [--gauntlet] [--rules PRESET] [--rule KEY=VALUE ...] [--players 2|3|4]
                     [--deals N | --matches N] [--seed S] [--json FILE] [--plot FILE] [--replays DIR] [--workers W]
                     [--ray [ADDRESS]] [--no-progress]

(``python evaluate.py ...`` in a checkout is the same command.) The modules: :mod:`.tournament` runs the round
robin (or, with ``--gauntlet``, one agent against each member of :mod:`.gauntlet`) and makes the report;
:mod:`.lineups` says what a line-up is in each format and plays a chunk of its games
(two players with :mod:`.duel`, three and four with :mod:`.formats`, whose hands :mod:`.format_replays` saves);
:mod:`.runner` plays the chunks in this process, on worker processes or as Ray tasks (:mod:`.ray_tasks`), with a
progress bar (:mod:`.progress`); :mod:`.stats` turns the games into the numbers below; :mod:`.report` prints the
scoreboard and writes the JSON, :mod:`.plot` the PNG; and :mod:`.cli` is the command line.

Every line-up of the agents (round robin: every pair with two players, every three agents at a table with three,
every pair as two teams with four) plays N games, each game in every seating on the same deals: with two players
twice, the seats swapped (a duplicate game). ``--deals N`` plays single hands (single deals with four players),
``--matches N`` games to the target of the rules: ``--rules``' preset, with each ``--rule KEY=VALUE`` changing a key
of it (the report then names the rules with every key that differs from ``standard``'s: ``standard+custom
(knock_limit=0)``). The numbers depend only on the agents, the rules, N and the seed,
never on the number of worker processes nor on Ray. The definitions of the numbers of three and four players are in
:mod:`.formats`; those of two players follow.

Definitions (agent A is the first of a pair, B the second):

* points per hand: A's signed hand points (zero-sum, no end-of-game bonuses) over all hands played;
* hand win rate: hands A won over all hands, a hand with no winner (dead, or a tie that scores nothing) counting
  half for each, as a draw in chess;
* match win rate: games A won over all games, a game with no winner (a dead single hand, an abandoned game) counting
  half;
* capped hands and abandoned games: hands ended by the turn cap (R19) and games ended by ``max_dead_hands`` dead
  hands in a row (R19a), counted over both seatings; players that never knock would otherwise never finish;
* 95% intervals take the duplicate pair (the two seatings of one game) as the unit, because its two games share the
  cards and are not independent. Points per hand get a normal interval from the ratio estimator's variance over
  pairs; win rates get a Wilson score interval at the effective sample size ``p(1-p) / var``, where ``var`` is that
  same over-pairs variance, so the interval stays inside [0, 1] and reflects the pairing (when every pair ends
  with the same score, the games are counted as independent);
* duplicate win rate: the share of duplicate games in which A scored more hand points than B over both seatings
  together (equal counts half): the cards cancel out, so this compares the play alone, including how big the wins
  are;
* Elo: a Bradley-Terry fit, by maximum likelihood, of every pair's results: match scores with ``--matches``, and
  with ``--deals`` the duplicate games (a single hand's win or loss ignores its size, and an agent that wins fewer
  but bigger hands would rank too low). Each pair also gets one virtual drawn game, so that a perfect record gives a
  finite rating. The mean rating is fixed at 1500; 400 points mean 10:1 odds.
"""
from gin_env.evaluation.duel import play_games
from gin_env.evaluation.stats import fit_elo, pair_stats
from gin_env.evaluation.tournament import evaluate

__all__ = ["evaluate", "fit_elo", "pair_stats", "play_games"]
