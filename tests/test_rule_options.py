"""``--rules PRESET --rule KEY=VALUE`` (gin_env.game.rule_options): the text of a command made into one ``Rules``,
each mistake refused in one line before any work, and every command playing, recording and naming the rules it was
given, a resumed training run keeping its own."""

from __future__ import annotations

import json
import os
import sys

import pytest

from gin_env import cli
from gin_env.arguments import ArgumentParser
from gin_env.game import engine, rule_options
from gin_env.game.rules import PRESETS, Rules
from gin_env.replay import replay_file
from tests.refusals import assert_refused, refused_command, snapshot

#: The type of every key as Rules declares it: the only ones the parser reads.
KNOWN_TYPES = {"int", "bool", "str", "int | None"}


def test_values_are_typed_by_the_key_they_set():
    rules = rule_options.rules_from("oklahoma", ["knock_limit=5", "undercut_on_tie=false", "big_gin_bonus=none",
                                                 "max_turns=null", "gin_bonus=30", "oklahoma_ace=one", "jokers=2"])
    assert rules == PRESETS["oklahoma"].replace(knock_limit=5, undercut_on_tie=False, big_gin_bonus=None,
                                                max_turns=None, gin_bonus=30, oklahoma_ace="one", jokers=2,
                                                name="oklahoma+custom")
    assert rule_options.rules_from("standard", ["deal_mode=eleven", "layoffs=true"]).deal_mode == "eleven"


def test_without_changes_the_rules_are_the_preset_itself():
    for name, preset in PRESETS.items():
        assert rule_options.rules_from(name, []) == preset and rule_options.rules_from(name, None) == preset


def test_every_key_but_the_name_and_the_format_is_read_back_from_how_it_is_written():
    assert set(rule_options.KEY_TYPES.values()) <= KNOWN_TYPES
    assert set(rule_options.RULE_KEYS) == {f for f in rule_options.KEY_TYPES} - {"name", "players"}
    for preset in PRESETS.values():
        for key in rule_options.RULE_KEYS:
            value = getattr(preset, key)
            written = {True: "true", False: "false", None: "none"}.get(value, str(value)) \
                if isinstance(value, bool) or value is None else str(value)
            assert rule_options.override(f"{key}={written}") == (key, value)


@pytest.mark.parametrize("texts, message", [
    (["knock_limit"], "--rule 'knock_limit': give KEY=VALUE"),
    (["knock_limt=5"], "unknown rules key 'knock_limt' (did you mean 'knock_limit'?)"),
    (["Knock_Limit=5"], "unknown rules key 'Knock_Limit'"),
    (["name=mine"], "the name is not a rule"),
    (["players=3"], "--players"),
    (["knock_limit=5", "knock_limit=6"], "knock_limit is given twice (knock_limit=5 before)"),
    (["big_gin_bonus=none", "big_gin_bonus=31"], "big_gin_bonus is given twice (big_gin_bonus=none before)"),
    (["knock_limit=five"], "knock_limit takes an integer, got 'five'"),
    (["knock_limit=5.0"], "knock_limit takes an integer, got '5.0'"),
    (["knock_limit=+5"], "knock_limit takes an integer, got '+5'"),
    (["knock_limit="], "knock_limit takes an integer, got ''"),
    (["knock_limit=none"], "knock_limit takes an integer, got 'none'"),
    (["big_gin_bonus=lots"], "big_gin_bonus takes an integer or none, got 'lots'"),
    (["undercut_on_tie=False"], "undercut_on_tie takes true or false, got 'False'"),
    (["undercut_on_tie=1"], "undercut_on_tie takes true or false, got '1'"),
    (["knock_limit=100"], "--rule: rules key 'knock_limit' must be an integer 0..99"),
    (["deal_mode=elevn"], "--rule: rules key 'deal_mode' must be one of upcard, eleven"),
    (["oklahoma=true", "deal_mode=eleven"], "--rule: rules key 'oklahoma' needs deal_mode='upcard'"),
])
def test_each_mistake_is_one_line_that_names_it(texts, message):
    with pytest.raises(ValueError) as caught:
        rule_options.rules_from("standard", texts)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_an_unknown_preset_is_named_with_the_closest_one():
    with pytest.raises(ValueError, match=r"--rules: unknown rules preset 'eaia' \(did you mean 'eaai'\?\)"):
        rule_options.rules_from("eaia", ["knock_limit=5"])


def test_the_options_of_a_parser_give_the_rules_or_exit_2_in_one_line(capsys):
    parser = ArgumentParser(prog="job")
    rule_options.add_options(parser, default="eaai")
    args = parser.parse_args(["--rule", "knock_limit=3", "--rule", "target=none"])
    assert rule_options.parsed_rules(parser, args) == PRESETS["eaai"].replace(knock_limit=3, target=None,
                                                                              name="eaai+custom")
    assert rule_options.parsed_rules(parser, parser.parse_args([])) == PRESETS["eaai"]
    with pytest.raises(SystemExit) as stopped:
        rule_options.parsed_rules(parser, parser.parse_args(["--rule", "wall=x"]))
    assert stopped.value.code == 2
    assert capsys.readouterr().err == "job: error: --rule 'wall=x': wall takes an integer, got 'x'\n"


def test_plain_data_names_a_preset_and_spells_out_other_rules():
    custom = rule_options.rules_from("foony", ["knock_limit=7"])
    assert rule_options.as_data(PRESETS["foony"]) == "foony"
    assert rule_options.as_data(custom) == custom.as_dict()
    assert rule_options.as_data(PRESETS["foony"].replace(knock_limit=7)) == custom.as_dict() | {"name": "foony"}
    for rules in (PRESETS["foony"], custom, custom.replace(jokers=2)):
        assert rule_options.from_data(json.loads(json.dumps(rule_options.as_data(rules)))) == rules
    for bad, message in (({"knock_limt": 5}, "unknown rules key 'knock_limt' (did you mean 'knock_limit'?)"),
                         ("eaia", "did you mean 'eaai'"), (["standard"], "got list"),
                         ({"knock_limit": "5"}, "rules key 'knock_limit' must be an integer")):
        with pytest.raises(ValueError) as caught:
            rule_options.from_data(bad)
        assert message in str(caught.value)


def test_a_report_names_a_preset_by_its_name_and_other_rules_in_full():
    assert rule_options.label(PRESETS["eaai"]) == "eaai"
    assert rule_options.label(PRESETS["eaai"].replace(players=3)) == "eaai"
    assert rule_options.label(rule_options.rules_from("standard", ["knock_limit=0"])) == \
        "standard+custom (knock_limit=0)"
    # Rules that kept a preset's name but changed a key are not credited to the preset.
    assert rule_options.label(PRESETS["standard"].replace(knock_limit=0)) == "standard (knock_limit=0)"
    assert rule_options.same_game(PRESETS["eaai"], PRESETS["eaai"].replace(name="mine"))
    assert not rule_options.same_game(PRESETS["eaai"], PRESETS["eaai"].replace(knock_limit=9))


# The commands: each explains --rule alike, refuses a bad one before any work, and plays under the rules given.

@pytest.mark.parametrize("job", ["play", "evaluate", "dataset", "train", "train-belief"])
def test_every_command_explains_rule_alike(job, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.main([job, "--help"])
    assert stopped.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--rule KEY=VALUE" in text and " ".join(rule_options.RULE_HELP.split()) in text


def test_train_rllib_explains_rule_alike(capsys):
    from gin_env.training import rllib_loop

    with pytest.raises(SystemExit):
        rllib_loop.main(["--help"], "train_rllib.py")
    assert " ".join(rule_options.RULE_HELP.split()) in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("argv", [
    ["play", "--opponent", "random", "--save-replays", "{tmp}/replays"],
    ["evaluate", "random", "simple", "--deals", "2", "--json", "{tmp}/report.json", "--replays", "{tmp}/replays"],
    ["dataset", "random", "random", "--hands", "1", "--root", "{tmp}/datasets"],
    ["train", "--run-dir", "{tmp}/run"],
    ["train-belief", "--out", "{tmp}/belief.npz", "--games", "2"],
])
def test_every_command_refuses_a_bad_rule_in_one_line_before_any_work(argv, tmp_path, capsys):
    refused_command([part.format(tmp=tmp_path) for part in argv] + ["--rule", "knock_limt=5"],
                    "did you mean 'knock_limit'?", tmp_path, capsys)


def test_train_rllib_refuses_a_bad_rule_in_one_line(tmp_path, capsys):
    from gin_env.training import rllib_loop

    code = rllib_loop.main(["--run-dir", str(tmp_path / "run"), "--rule", "undercut_on_tie=no"], "train_rllib.py")
    assert_refused(code, capsys.readouterr().err, "train_rllib.py", "undercut_on_tie takes true or false")
    assert not os.listdir(tmp_path)


def _eleven_card_deal(state: engine.HandState) -> bool:
    """Whether ``state``'s hand was dealt as ``deal_mode=eleven`` deals: no upcard (R10 turns one up)."""
    return state.initial_upcard == engine.NO_CARD


def test_play_deals_under_the_rules_given(monkeypatch):
    pytest.importorskip("rich")
    import io

    from gin_env.ui import play

    games = []

    class Watched(play.TerminalGame):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            games.append(self)

    monkeypatch.setattr(play, "TerminalGame", Watched)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert play.main(["--opponent", "random", "--seed", "3", "--rules", "eaai", "--rule", "deal_mode=eleven"]) == 0
    (game,) = games
    assert game.rules == rule_options.rules_from("eaai", ["deal_mode=eleven"])
    assert game.table.state.rules == game.rules and _eleven_card_deal(game.table.state)


def test_evaluate_plays_records_and_reports_the_rules_given(tmp_path, capsys):
    replays, report = tmp_path / "replays", tmp_path / "report.json"
    assert cli.main(["evaluate", "random", "simple", "--deals", "2", "--rule", "deal_mode=eleven", "--workers", "1",
                     "--no-progress", "--replays", str(replays), "--json", str(report)]) == 0
    assert "standard+custom (deal_mode='eleven') rules" in capsys.readouterr().out
    assert json.loads(report.read_text())["rules"] == "standard+custom (deal_mode='eleven')"
    expected = rule_options.rules_from("standard", ["deal_mode=eleven"]).replace(target=None)
    names = sorted(os.listdir(replays))
    assert len(names) == 4 and all(name.startswith("standard_custom-seed0-") for name in names)
    for name in names:
        replay = replay_file.load(str(replays / name))
        start = replay.states()[0]
        assert replay.rules == expected and _eleven_card_deal(start)
        assert bin(start.hands[start.current]).count("1") == 11


def test_evaluate_refuses_matches_under_changed_rules_without_a_target(tmp_path, capsys):
    refused_command(["evaluate", "random", "simple", "--matches", "2", "--rule", "target=none"],
                    "rules 'standard+custom' (target=None) have no target score", tmp_path, capsys)


def test_dataset_records_the_rules_in_full_and_its_env_spec_plays_them(tmp_path):
    minari = pytest.importorskip("minari")
    from gin_env.datasets import minari_files

    argv = ["dataset", "random", "simple", "--hands", "2", "--rule", "deal_mode=eleven", "--rule", "knock_limit=5",
            "--root", str(tmp_path), "--workers", "1", "--no-progress"]
    assert cli.main(argv) == 0
    dataset_id = "gin-rummy/random-vs-simple-standard-custom-v0"
    dataset = minari.MinariDataset(os.path.join(minari_files.dataset_folder(str(tmp_path), dataset_id), "data"))
    expected = rule_options.rules_from("standard", ["deal_mode=eleven", "knock_limit=5"])
    assert dataset.storage.metadata["gin_env"]["rules"] == expected.as_dict()
    env = dataset.recover_environment()
    assert env.spec.kwargs["rules"] == expected.as_dict() and env.unwrapped.rules == expected
    first = dataset[0]
    obs, _ = env.reset(seed=next(dataset.storage.get_episode_metadata([0]))["seed"])
    assert (obs == first.observations[0]).all()
    assert env.unwrapped.table.state.initial_upcard == engine.NO_CARD


def test_training_plays_records_and_keeps_the_rules_given(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from gin_env.training import checks, config, pool_env

    run = tmp_path / "run"
    tiny = ["--num-envs", "64", "--slots", "2", "--n-steps", "16", "--batch-size", "256", "--n-epochs", "1",
            "--channels", "4", "--features", "32", "--hidden", "16", "--eval-deals", "0", "--imitate-steps", "0",
            "--checkpoint-every", "1000", "--no-progress", "--opponents", "0:simple", "--seed", "2"]
    changes = ["--rules", "eaai", "--rule", "deal_mode=eleven", "--rule", "gin_bonus=40"]
    args = config.parse_args(["--run-dir", str(run), "--total-timesteps", "1024", *tiny, *changes])
    expected = rule_options.rules_from("eaai", ["deal_mode=eleven", "gin_bonus=40"])
    env = pool_env.PoolVecEnv(args)
    assert all(part.rules == expected for part in env.venv.parts)
    env.reset()
    assert all((part.batch.initial_upcard == engine.NO_CARD).all() for part in env.venv.parts)
    env.close()
    assert cli.main(["train", "--run-dir", str(run), "--total-timesteps", "1024", *tiny, *changes]) == 0
    recorded = json.loads((run / "history.json").read_text())["args"][-1]
    assert recorded["rules"] == "eaai" and recorded["rule"] == ["deal_mode=eleven", "gin_bonus=40"]
    capsys.readouterr()
    resume = ["train", "--run-dir", str(run), "--resume", str(run / "last.zip"), "--total-timesteps", "2048", *tiny]
    for other in (["--rules", "eaai", "--rule", "deal_mode=eleven"], ["--rules", "standard", *changes[2:]], []):
        before = snapshot(run, times=True)
        assert_refused(cli.main([*resume, *other]), capsys.readouterr().err, "gin-env train",
                       "--rules, --rule: the run in")
        assert snapshot(run, times=True) == before
    # The same rules, the changes in another order, pass every check of a resume.
    same = config.parse_args([*resume[1:], "--rules", "eaai", "--rule", "gin_bonus=40", "--rule", "deal_mode=eleven"])
    assert checks.check_args(same)["args"][-1]["rule"] == ["deal_mode=eleven", "gin_bonus=40"]


def test_a_run_recorded_before_rule_resumes_under_its_preset_alone():
    from gin_env.training import config

    options = {"rules": "eaai"}
    config.check_same_rules(options, PRESETS["eaai"], "runs/old", "history.json")
    with pytest.raises(ValueError, match="trains under the rules 'eaai'"):
        config.check_same_rules(options, rule_options.rules_from("eaai", ["knock_limit=5"]), "runs/old",
                                "history.json")
    with pytest.raises(ValueError, match="history.json: the run's recorded rules do not read"):
        config.check_same_rules({"rules": "eaai", "rule": "knock_limit=5"}, PRESETS["eaai"], "runs/old",
                                "history.json")
    config.check_same_rules({"snapshots": 2}, PRESETS["standard"], "runs/old", "league.json")


def test_train_rllib_resumes_only_under_the_rules_of_its_run(tmp_path, capsys):
    from gin_env.training import rllib_loop

    run = tmp_path / "run"
    (run / rllib_loop.CHECKPOINT_DIR).mkdir(parents=True)
    recorded = {"snapshots": 2, "hidden": "256,256", "rules": "standard", "rule": ["knock_limit=0"]}
    (run / rllib_loop.LEAGUE_FILE).write_text(json.dumps({"iteration": 1, "next_slot": 0, "history": [],
                                                          "args": [recorded]}))
    argv = ["--run-dir", str(run), "--resume", "--snapshots", "2", "--no-progress"]
    assert_refused(rllib_loop.main(argv, "train_rllib.py"), capsys.readouterr().err, "train_rllib.py",
                   "trains under the rules 'standard+custom' (knock_limit=0), not the rules 'standard'")
    args = rllib_loop.RLlibArgs(run_dir=str(run), resume=True, snapshots=2, rule=["knock_limit=0"])
    assert rllib_loop.read_league(args)["iteration"] == 1 and args.game_rules().knock_limit == 0


def test_train_belief_plays_its_games_under_the_rules_given(tmp_path, monkeypatch):
    from gin_env.training import belief

    recipe = _belief_recipe(belief, ["--out", str(tmp_path / "belief.npz"), "--players", "random,simple", "--games",
                                     "2", "--held-out", "0.5", "--keep", "1", "--rules", "standard", "--rule",
                                     "deal_mode=eleven"])
    assert recipe.rules == rule_options.rules_from("standard", ["deal_mode=eleven"])
    seen = []
    original = belief.view

    def watched(state, player):
        seen.append(state)
        return original(state, player)

    monkeypatch.setattr(belief, "view", watched)
    x, hidden, of_game = belief.play_games(recipe, 0, 1)
    assert len(seen) == len(x) == len(hidden) == len(of_game) > 0
    assert all(state.rules == recipe.rules and _eleven_card_deal(state) for state in seen)


def _belief_recipe(belief, argv: list[str]):
    """The recipe ``gin-env train-belief ARGV`` would play, from its own parser and checks."""
    captured = {}

    def stop(recipe, games, workers, progress):
        captured["recipe"] = recipe
        raise KeyboardInterrupt

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(belief, "collect", stop)
        with pytest.raises(KeyboardInterrupt):
            belief.main(argv, "gin-env train-belief")
    return captured["recipe"]


def test_a_bad_rules_object_in_an_env_spec_is_refused_by_key():
    from gin_env.table.checks import resolve_rules

    assert resolve_rules(Rules(knock_limit=3).as_dict()) == Rules(knock_limit=3)
    with pytest.raises(ValueError, match="unknown rules key 'knok_limit'"):
        resolve_rules({"knok_limit": 3})
