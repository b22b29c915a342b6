"""The jokers variant's test tables of docs/rules.md section 17.9, and the table of worked example X11, as data.

* ``DEADWOOD_CASES``: T1..T18, each hand with the overrides of the table's "rules" column on top of the ``jokers``
  preset (``PRESET``), its DW, the table's optimal arrangement and the rule it cites. T14 is an 11-card hand: its
  DW is that of the best discard, and the table names its gin discards (the 8C is the card taken from the pile in
  X18b, which R16 forbids discarding).
* ``SHOWDOWN_CASES``: S1..S9, the knocker's 10 cards after the knock discard and the defender's, with one
  ``Variant`` per rules column (preset and overrides, K, F's range, gin, who scores and how much). S9's knocker is
  10 cards plus the 8C taken from the pile, and scores by big gin or, discarding the AS or the 5S, by gin.
* ``X11_ROWS``: X11's alternative arrangements, each with the deadwood its table gives.

Notation (R62): ``JK`` is a joker; in one card list the first is id 52 and the second 53, and in a showdown they are
numbered across both hands, the knocker's first. In an arrangement ``{...}`` is a meld, ``JK=7S`` a run joker with
its identity, a bare ``JK`` a set joker, and the cards after ``|`` are deadwood.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from gin_env.game import cards
from tests.oracles.jokers_oracle import FIRST_JOKER, RUN, SET

#: The ``jokers`` preset's joker keys (R81); each case's overrides go on top.
PRESET = {"jokers": 2, "joker_value": 20, "joker_min_naturals": 2}


class DeadwoodCase(NamedTuple):
    id: str
    hand: str
    overrides: dict
    dw: int
    arrangement: str
    rule: str
    taken: str | None = None
    gin_discards: tuple[str, ...] = ()


class Variant(NamedTuple):
    """One rules column of a showdown row: the preset and overrides it names, and what the row expects."""

    preset: str
    overrides: dict
    k: int
    f_low: int
    f_high: int
    gin: bool
    scorer: str
    points: int
    big_gin: bool = False


class ShowdownCase(NamedTuple):
    id: str
    knocker: str
    defender: str
    variants: tuple[Variant, ...]
    rule: str
    upcard: str | None = None
    taken: str | None = None


DEADWOOD_CASES = (
    DeadwoodCase("T1", "5S 7S JK 9H 9D 9C 2C 3C 4C KD", {}, 10, "{5S JK=6S 7S} {9H 9D 9C} {2C 3C 4C} | KD", "R65 gap"),
    DeadwoodCase("T2", "AS 2S JK 4H 5H 6H 8D 8C 8S QC", {}, 10, "{AS 2S JK=3S} {4H 5H 6H} {8S 8D 8C} | QC", "E16"),
    DeadwoodCase("T3", "QS KS JK 2D 3D 4D 6H 6C 6S AC", {}, 1, "{JK=JS QS KS} {2D 3D 4D} {6S 6H 6C} | AC", "E16"),
    DeadwoodCase("T4", "KS AS JK 7D 8D 9D 3H 3C 3S TC", {}, 21, "{3S 3H 3C} {7D 8D 9D JK=TD} | AS KS TC",
                 "E16 no wrap"),
    DeadwoodCase("T5", "7S 7H JK 2C 3C 4C 5C 9D TD QD", {}, 14, "{2C 3C 4C 5C} {9D TD JK=JD QD} | 7S 7H", "X11a"),
    DeadwoodCase("T6", "7S 7H 7D 7C JK 2S 9H KD 5C QH", {}, 27, "{7S 7D 7C} {7H JK=8H 9H} | 2S 5C QH KD",
                 "E15, X11b"),
    DeadwoodCase("T7a", "KS JK JK 2H 3H 4H 6D 6C 6S 9C", {}, 19, "{6S 6D 6C JK} {2H 3H 4H JK=5H} | 9C KS", "E17"),
    DeadwoodCase("T7b", "KS JK JK 2H 3H 4H 6D 6C 6S 9C", {"joker_min_naturals": 1}, 9,
                 "{KS JK JK} {2H 3H 4H} {6S 6D 6C} | 9C", "R65"),
    DeadwoodCase("T8", "5S 8S JK JK 2H 2D 2C KC QD 9H", {}, 29, "{5S JK=6S JK=7S 8S} {2H 2D 2C} | 9H QD KC", "E17"),
    DeadwoodCase("T9", "7S 7H JK JK 9D TD 2C 4S KH 5C", {}, 21, "{7S 7H JK} {JK=8D 9D TD} | 2C 4S 5C KH", "X12a"),
    DeadwoodCase("T10", "7S 7H JK JK 2C 4D 9H KS TD 5C", {}, 38, "{JK=6H 7H JK=8H 9H} | 2C 4D 5C 7S TD KS", "R65"),
    DeadwoodCase("T11a", "7S 7H 7D 7C KS KH KD KC 2S JK", {}, 9, "{7S 7H 7D JK} {KS KH KD KC} | 7C 2S", "R68b"),
    # The table's arrangement for T11b reads "same as T11a".
    DeadwoodCase("T11b", "7S 7H 7D 7C KS KH KD KC 2S JK", {"joker_value": 15}, 9,
                 "{7S 7H 7D JK} {KS KH KD KC} | 7C 2S", "R68b"),
    DeadwoodCase("T11c", "7S 7H 7D 7C KS KH KD KC 2S JK", {"joker_value": 0}, 2,
                 "{7S 7H 7D 7C} {KS KH KD KC} | 2S JK", "E20"),
    DeadwoodCase("T12", "2C 3C 4C 5C 3S 4S 5S 4H JK JK", {}, 0, "{3S 4S 5S} {4H 4C JK} {2C 3C JK=4C 5C}", "R66, E18"),
    DeadwoodCase("T13", "AH 2H 3H JK 5H 6H 7H 8H 9H TH", {}, 0, "{AH 2H 3H JK=4H 5H 6H 7H 8H 9H TH}", "E4"),
    DeadwoodCase("T14", "AS 2S JK 4S 5S 9D 9H JK 6C 7C 8C", {}, 0, "{AS 2S JK=3S 4S 5S} {9H 9D JK} {6C 7C 8C}",
                 "R24, X18b", taken="8C", gin_discards=("AS", "5S")),
    # The table writes "no meld | all ten" for T15a and T15b.
    DeadwoodCase("T15a", "JK JK 2S 5H 8D JC 3C 6S 9H QD", {}, 93, "| JK JK 2S 5H 8D JC 3C 6S 9H QD", "R68a"),
    DeadwoodCase("T15b", "JK JK 2S 5H 8D JC 3C 6S 9H QD", {"joker_value": 0}, 53,
                 "| JK JK 2S 5H 8D JC 3C 6S 9H QD", "R67"),
    # The table adds "(or {QD JK JK}, ...)" after the meld.
    DeadwoodCase("T15c", "JK JK 2S 5H 8D JC 3C 6S 9H QD", {"joker_min_naturals": 1}, 43,
                 "{JC JK JK} | 2S 3C 5H 6S 8D 9H QD", "R65"),
    DeadwoodCase("T16", "7S 7H 7D 7C JK JK KS KH KD KC", {}, 0, "{7S 7H JK} {7D 7C JK} {KS KH KD KC}", "R68a, E19"),
    DeadwoodCase("T17", "4H 4C 4S 5H 6H 7H 9C 9D 9S JK", {}, 0, "{4S 4H 4C} {5H 6H 7H JK=8H} {9S 9D 9C}",
                 "X1a + joker"),
    DeadwoodCase("T18", "3H 3C 3S 4H 5H 9C 9D 2C AD JK", {}, 9, "{3H 4H 5H} {9D 9C JK} | AD 2C 3S 3C",
                 "X1b + joker"),
)

_S1_DEFENDER = "4S 8S KH KD KC 2H 3H 4H 7D TC"
_X16_DEFENDER = "JK 2C 6D 9S KH 4H QS 8C TH 5C"

SHOWDOWN_CASES = (
    ShowdownCase("S1", "5S 6S JK 9H 9D 9C 2C 3C 4C AD", _S1_DEFENDER,
                 (Variant("jokers", {}, 1, 17, 29, False, "knocker", 28),), "X13"),
    ShowdownCase("S2", "5H 6H 7H QC QD QS 2C 3C 4C 6D", "JK 9H 5C AC KD KH KS 3D 2S QH",
                 (Variant("jokers", {}, 6, 5, 5, False, "defender", 11),
                  Variant("foony", {"jokers": 2}, 6, 5, 5, False, "defender", 26)), "X14"),
    ShowdownCase("S3", "AS 2S JK 4S 7C 7D 7H TD JD QD", _X16_DEFENDER,
                 (Variant("jokers", {}, 0, 84, 84, True, "knocker", 104),), "X16a"),
    ShowdownCase("S4", "AS 2S 3S JK 7C 7D 7H TD JD 5D", _X16_DEFENDER,
                 (Variant("jokers", {}, 5, 64, 64, False, "knocker", 59),), "X16b"),
    ShowdownCase("S5", "7S 7H JK 2C 3C 4C 9D TD JD AH", "7D 7C KS KH KC 5S 6S 8H 4D QC",
                 (Variant("jokers", {}, 1, 40, 40, False, "knocker", 39),), "E23: 7D laid off, 7C not"),
    ShowdownCase("S6", "5S JK 7S 9H 9D 9C 2C 3C 4C 3D", "6S 4S KH KD KC 2H 3H 4H TD JC",
                 (Variant("jokers", {}, 3, 26, 26, False, "knocker", 23),), "X15"),
    ShowdownCase("S7", "5S 6S JK 9H 9D 9C 2C 3C 4C TD", _S1_DEFENDER,
                 (Variant("oklahoma", {"jokers": 2}, 10, 17, 29, False, "knocker", 19),), "X17", upcard="JK"),
    ShowdownCase("S8", "7S 7H 7D 7C KS KH KD KC 2S JK", "AS AH 3D 4D 5D 9C TC 6H 8H QS",
                 (Variant("jokers", {}, 9, 45, 45, False, "knocker", 36),
                  Variant("jokers", {"joker_value": 0}, 2, 45, 45, False, "knocker", 43)), "X18a"),
    ShowdownCase("S9", "AS 2S JK 4S 5S 9D 9H JK 6C 7C", "3S 8S 5H 5D 5C KD QH JH 2D TS",
                 (Variant("seed-000", {"jokers": 2}, 0, 53, 53, True, "knocker", 103, big_gin=True),
                  Variant("jokers", {}, 0, 53, 53, True, "knocker", 73)), "X18b", taken="8C"),
)

#: X11's tables: each hand's arrangements as the table lists them, with the deadwood it gives; the first is the best.
X11_ROWS = (
    ("X11a", "7S 7H JK 2C 3C 4C 5C 9D TD QD", (
        ("{2C 3C 4C 5C} {9D TD JK=JD QD} | 7S 7H", 14),
        ("{7S 7H JK} {2C 3C 4C 5C} | 9D TD QD", 29),
    )),
    ("X11b", "7S 7H 7D 7C JK 2S 9H KD 5C QH", (
        ("{7S 7D 7C} {7H JK=8H 9H} | 2S 5C QH KD", 27),
        ("{7S 7H 7D JK} | 7C 2S 9H KD 5C QH", 43),
        ("{7S 7H 7D 7C} | JK 2S 9H KD 5C QH", 56),
    )),
)


def rules_of(case: DeadwoodCase) -> dict:
    """The case's joker keys: the ``jokers`` preset's with the case's overrides on top."""
    return {**PRESET, **case.overrides}


def parse_hand(text: str, first_joker: int = FIRST_JOKER) -> list[int]:
    """Card ids of a card list, its jokers numbered from ``first_joker`` in order (R62)."""
    ids = []
    next_joker = first_joker
    for token in text.split():
        if token == cards.JOKER:
            ids.append(next_joker)
            next_joker += 1
        else:
            ids.append(cards.card(token))
    return ids


def parse_showdown(knocker: str, defender: str) -> tuple[list[int], list[int]]:
    """Both hands of a showdown, the jokers numbered across them, the knocker's first (R62)."""
    knocker_ids = parse_hand(knocker)
    return knocker_ids, parse_hand(defender, FIRST_JOKER + knocker.split().count(cards.JOKER))


def parse_arrangement(text: str) -> tuple[list[tuple[list[int], tuple, dict[int, int]]], list[int]]:
    """An arrangement written as in the tables: each meld as (its card ids, its declaration, each run joker's
    identity), and the deadwood's card ids; jokers are numbered in the order written.

    A meld with a bare ``JK`` or with naturals of one rank is a set; one with ``JK=`` identities or naturals of
    one suit is a run, declared by its lowest rank, natural or identity (R73)."""
    melds_text, _, deadwood_text = text.partition("|")
    next_joker = FIRST_JOKER
    melds = []
    for meld_text in re.findall(r"\{([^}]*)\}", melds_text):
        ids, identities, bare = [], {}, False
        for token in meld_text.split():
            if token.startswith(cards.JOKER):
                ids.append(next_joker)
                if token == cards.JOKER:
                    bare = True
                else:
                    identities[next_joker] = cards.card(token.partition("=")[2])
                next_joker += 1
            else:
                ids.append(cards.card(token))
        named = [c for c in ids if c not in identities and c < FIRST_JOKER] + list(identities.values())
        if bare or len({cards.rank(c) for c in named}) == 1:
            declaration = (SET, cards.rank(named[0]))
        else:
            declaration = (RUN, cards.suit(named[0]), min(cards.rank(c) for c in named))
        melds.append((ids, declaration, identities))
    return melds, parse_hand(deadwood_text, next_joker)
