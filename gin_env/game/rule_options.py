"""The rules as a command gives them: a preset (``--rules PRESET``) and any number of changes to it (``--rule
KEY=VALUE``), made into one :class:`Rules` before any work (:func:`rules_from`), each mistake a one-line
``ValueError`` that names it. :func:`add_options` adds the two options to a command's parser, so that every command
explains them alike; :func:`as_data` and :func:`from_data` carry the rules where only plain data travels (a JSON
file, an env spec), and :func:`label` names them in a report.

A value is read as the type of the key it sets (docs/rules.md section 10): an integer (``knock_limit=5``), ``true``
or ``false`` (``undercut_on_tie=false``), ``none`` or ``null`` for a key that may be off (``big_gin_bonus=none``),
or the text of a choice (``deal_mode=eleven``). Nothing else is read as a value: ``5.0``, ``True`` or ``0x5`` is
refused, not converted."""

from __future__ import annotations

import dataclasses
import re

from gin_env.arguments import did_you_mean
from gin_env.game.rules import PRESETS, Rules, unknown_preset

#: The preset of a command that names none.
DEFAULT_PRESET = "standard"
#: The key that names the rules rather than setting one: ``Rules.preset`` names changed rules ``PRESET+custom``.
NAME_KEY = "name"
#: The key of the format (R49), which a command sets by its own ``--players`` where it plays more than two, so that
#: the two options never disagree.
PLAYERS_KEY = "players"
#: The keys ``--rule`` may set, in ``Rules``' order.
RULE_KEYS = tuple(f.name for f in dataclasses.fields(Rules) if f.name not in (NAME_KEY, PLAYERS_KEY))
#: Each key's type, as ``Rules`` declares it: ``"int"``, ``"bool"``, ``"str"`` or ``"int | None"``.
KEY_TYPES = {f.name: f.type for f in dataclasses.fields(Rules)}
#: The spellings of the values that are not integers or choices.
TRUE, FALSE, NONE = "true", "false", ("none", "null")
#: An integer as a person writes one: ASCII digits, a minus sign at most (``int`` would also take ``+5``, ``5_0`` and
#: other scripts' digits).
INTEGER = re.compile(r"-?[0-9]+")
#: How ``--rule``'s value is shown in every command's help.
RULE_METAVAR = "KEY=VALUE"
#: What ``--rule`` says in every command's help.
RULE_HELP = ("change one key of the preset, e.g. knock_limit=5, undercut_on_tie=false, big_gin_bonus=none, "
             "deal_mode=eleven (repeat for more keys; the keys: docs/rules.md sections 10 and 17)")


def add_options(parser, default: str = DEFAULT_PRESET) -> None:
    """Add ``--rules PRESET`` (``default`` when not given) and the repeatable ``--rule KEY=VALUE`` to an argparse
    ``parser``; :func:`parsed_rules` reads them back."""
    parser.add_argument("--rules", default=default, choices=sorted(PRESETS), metavar="PRESET",
                        help=f"rules preset: {', '.join(sorted(PRESETS))} (default {default})")
    parser.add_argument("--rule", action="append", default=[], metavar=RULE_METAVAR, help=RULE_HELP)


def parsed_rules(parser, args) -> Rules:
    """The rules of ``args.rules`` and ``args.rule`` (:func:`add_options`), or ``parser.error`` (one line, exit code
    2) naming the mistake."""
    try:
        return rules_from(args.rules, args.rule)
    except ValueError as err:
        parser.error(str(err))


def rules_from(preset: str, texts: list[str] | None) -> Rules:
    """The ``preset`` with the changes of ``texts`` (``"KEY=VALUE"`` each; none: the preset as it is), named
    ``PRESET+custom`` when there are changes. ``ValueError`` naming the first mistake: an unknown preset or key, text
    without ``=``, ``name``, a key given twice, a value not of its key's type, or one that ``Rules`` refuses."""
    if preset not in PRESETS:
        raise ValueError(f"--rules: {unknown_preset(preset)}")
    changes = overrides(texts or [])
    try:
        return Rules.preset(preset, **changes)
    except ValueError as err:
        raise ValueError(f"--rule: {err}") from None


def overrides(texts: list[str]) -> dict:
    """``["knock_limit=5", "deal_mode=eleven"]`` -> ``{"knock_limit": 5, "deal_mode": "eleven"}``, each value typed
    by its key; ``ValueError`` naming the first text that is not a change of one key, or a key given twice."""
    out: dict = {}
    for text in texts:
        key, value = override(text)
        if key in out:
            raise ValueError(f"--rule {text!r}: {key} is given twice ({key}={_shown(out[key])} before); give each "
                             f"key once")
        out[key] = value
    return out


def override(text: str) -> tuple[str, object]:
    """One ``KEY=VALUE`` as the key and its typed value; ``ValueError`` naming what is wrong with ``text``."""
    key, equals, value = text.partition("=")
    if not equals:
        raise ValueError(f"--rule {text!r}: give KEY=VALUE, e.g. knock_limit=5")
    if key == NAME_KEY:
        raise ValueError(f"--rule {text!r}: the name is not a rule; rules that --rule changes are named "
                         f"PRESET+custom")
    if key == PLAYERS_KEY:
        raise ValueError(f"--rule {text!r}: the number of players is the command's --players option, where it plays "
                         f"more than two")
    if key not in RULE_KEYS:
        raise ValueError(f"--rule {text!r}: unknown rules key {key!r}{did_you_mean(key, RULE_KEYS)}; the keys: "
                         f"{', '.join(RULE_KEYS)}")
    return key, _typed(key, value, text)


def _typed(key: str, value: str, text: str):
    """``value`` as the type of ``key``; ``ValueError`` naming the type wanted."""
    kind = KEY_TYPES[key]
    optional = kind.endswith("| None")
    if optional and value in NONE:
        return None
    if kind == "bool":
        if value in (TRUE, FALSE):
            return value == TRUE
        wanted = f"{TRUE} or {FALSE}"
    elif kind.startswith("int"):
        if INTEGER.fullmatch(value):
            return int(value)
        wanted = "an integer" + (f" or {NONE[0]}" if optional else "")
    else:
        return value  # a choice: Rules names the choices of a value it does not know
    raise ValueError(f"--rule {text!r}: {key} takes {wanted}, got {value!r}")


def _shown(value) -> str:
    """A typed value as ``--rule`` spells it."""
    if isinstance(value, bool):
        return TRUE if value else FALSE
    return NONE[0] if value is None else str(value)


def as_data(rules: Rules) -> str | dict:
    """The rules as plain data (JSON, an env spec): a preset's name when they are that preset as it is, else every
    key (``Rules.as_dict``); :func:`from_data` reads either back."""
    return rules.name if PRESETS.get(rules.name) == rules else rules.as_dict()


def from_data(data) -> Rules:
    """The rules of :func:`as_data`'s ``data``, a preset's name or an object of keys; ``ValueError`` naming the
    problem otherwise."""
    if isinstance(data, str):
        if data not in PRESETS:
            raise ValueError(unknown_preset(data))
        return PRESETS[data]
    if isinstance(data, dict):
        unknown = next((key for key in data if key not in KEY_TYPES), None)
        if unknown is not None:
            hint = did_you_mean(unknown, KEY_TYPES) if isinstance(unknown, str) else ""
            raise ValueError(f"unknown rules key {unknown!r}{hint}")
        return Rules(**data)
    raise ValueError(f"rules must be a preset's name or an object of rules keys, got {type(data).__name__}")


def same_game(a: Rules, b: Rules) -> bool:
    """Whether ``a`` and ``b`` play the same game: every key alike, whatever each is named."""
    return a.replace(name=NAME_KEY) == b.replace(name=NAME_KEY)


def label(rules: Rules) -> str:
    """The rules as a report names them: a preset's name when they are that preset (in any format, which a report
    names apart), else the name and each key that differs from ``standard``'s (``Rules.describe``), e.g.
    ``standard+custom (knock_limit=0)``."""
    preset = PRESETS.get(rules.name)
    if preset is not None and preset.replace(players=rules.players) == rules:
        return rules.name
    return rules.name + rules.describe().removeprefix(f"rules {rules.name!r}")
