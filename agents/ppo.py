"""The PPO agent: a MaskablePPO policy (trained by ``train.py``) acting on the encoded view, and model loading.

This module owns turning a saved sb3-contrib ``MaskablePPO`` model into an agent (:func:`load_model`) and writing one
for shipping (:func:`export_model`). sb3-contrib and torch are imported only when a model is loaded, so importing
``gin_env.agents`` stays light. The shipped model (:data:`SHIPPED_MODEL`) is played by ``agents.load("ppo")`` through
its actor's weights in numpy (``agents.numpy_policy``), which needs neither; the ``.zip`` is what training resumes
from and what those weights are exported from.

The agent picks from the policy's masked logits itself rather than through ``model.predict``: greedily by default,
or by sampling with the caller's numpy generator, so a stochastic policy is as reproducible as any other agent.
"""

from __future__ import annotations

import os

import numpy as np

from gin_env.batch.observation import BatchView, encode_batch
from gin_env.files import atomic_write
from gin_env.game.observation import PRIVILEGED_SIZE, PlayerView, encode, obs_size, observation_parts
from gin_env.game.rule_options import label
from gin_env.game.rules import Rules
from gin_env.optional import require

from . import model_archive
from .params import check_flag

#: The model shipped with the package: ``agents.load("ppo")`` plays its actor, exported to ``ppo_gin_policy.npz``.
SHIPPED_MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models", "ppo_gin.zip")


class PolicyAgent:
    """An agent that acts from a policy's action logits over the encoded view, restricted to legal actions: greedy
    when ``deterministic``, else sampled with the caller's generator (:func:`pick_actions`). ``act`` serves one view
    (the scalar env, duels, ``evaluate.py``), ``act_batch`` a ``BatchView`` (the vector env's opponent, e.g.
    self-play snapshots during training). A subclass gives ``logits(obs, masks)`` and sets ``deterministic``,
    ``match_record`` when its network reads the observation with the match record (``RECORD_OBS_SIZE`` entries),
    ``reads`` (the entries its network reads) and ``n_actions`` (the logits it gives): a game whose observation or
    actions differ (one with jokers for a network of the standard game, or the reverse) is refused in one line."""

    deterministic: bool
    match_record: bool = False
    reads: int
    n_actions: int
    _checked = None

    def check_rules(self, rules: Rules) -> None:
        """``ValueError`` naming both sizes unless the network reads the observation of a game under ``rules`` and
        gives its actions."""
        if rules is self._checked:
            return
        width = obs_size(self.match_record, rules=rules)
        if (width, rules.n_actions) != (self.reads, self.n_actions):
            raise ValueError(f"{self!r} reads observations of {self.reads} entries and gives {self.n_actions} "
                             f"actions, and a game under rules {label(rules)!r} has {width} and {rules.n_actions}: a "
                             "network plays the game it was trained for")
        self._checked = rules

    def logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def choose(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One legal action per row of encoded observations ``obs`` with legal-action ``masks``."""
        return pick_actions(self.logits(obs, masks), masks, rng, self.deterministic)

    def act(self, view: PlayerView, rng: np.random.Generator) -> int:
        self.check_rules(view.rules)
        if not view.legal_mask.any():
            raise ValueError("no legal action: it is not this player's turn or the hand is over")
        return int(self.choose(encode(view, self.match_record)[None], view.legal_mask[None], rng)[0])

    def act_batch(self, view: BatchView, rng: np.random.Generator) -> np.ndarray:
        """One action per game of a batched view (every game in it must have a legal action)."""
        self.check_rules(view.rules)
        return self.choose(encode_batch(view, match_record=self.match_record), view.legal_mask, rng)


class PPOAgent(PolicyAgent):
    """A MaskablePPO policy restricted to legal actions: greedy when ``deterministic`` (the default), else sampled."""

    def __init__(self, policy, path: str | None = None, deterministic: bool = True) -> None:
        check_flag("PPO agent", "deterministic", deterministic)
        self.policy = policy
        self.path = path
        self.deterministic = deterministic
        # A privileged critic's model reads what no player sees after the view; its actor never does, so the agent
        # fills those entries with zeros.
        self.n_actions = int(policy.action_space.n)
        self.match_record, privileged = observation_parts(policy.observation_space.shape[0],
                                                          model_archive.layout_rules(self.n_actions))
        self.privileged = PRIVILEGED_SIZE if privileged else 0
        self.reads = policy.observation_space.shape[0] - self.privileged

    def logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's masked action logits for encoded observations ``(N, OBS_SIZE)`` (``RECORD_OBS_SIZE`` with
        the match record)."""
        torch = require("torch", "a PPO agent")

        if self.privileged:
            obs = np.concatenate([obs, np.zeros((len(obs), self.privileged), dtype=obs.dtype)], axis=1)
        with torch.no_grad():
            tensor, _ = self.policy.obs_to_tensor(obs)
            return self.policy.get_distribution(tensor, action_masks=masks).distribution.logits.cpu().numpy()

    def __repr__(self) -> str:
        return f"PPOAgent({self.path!r}, deterministic={self.deterministic})"


#: Legal actions whose logits lie within this of the best one tie (a probability ratio of 1.0001), and the greedy
#: choice is the lowest action id among them. Two actions a network values alike (two cards of one rank in the same
#: position) get logits that differ in their last bits by the order of the sums, which is not the same in numpy as in
#: torch (nor in torch's normalized log-probabilities as in its raw logits): so the shipped actor picks in numpy what
#: the torch model picks. The smallest real preference of the shipped network over 8,000 views was 1.2e-3; its float
#: noise is a few units in the last place of logits up to about 80, under 1e-5.
TIE_TOLERANCE = 1e-4


def pick_actions(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator, deterministic: bool) -> np.ndarray:
    """One legal action per row of ``logits``: the best one (the lowest id among ties, :data:`TIE_TOLERANCE`), or a
    draw from their softmax over the legal actions with ``rng`` (Gumbel-max: argmax(logits + Gumbel noise) is such a
    draw)."""
    # Whatever a policy gives an illegal action (a huge negative logit, or any number), the mask decides.
    if not deterministic:
        return np.where(masks, logits + rng.gumbel(size=logits.shape), -np.inf).argmax(axis=1)
    masked = np.where(masks, logits, -np.inf)
    with np.errstate(invalid="ignore"):  # inf - inf where the best logit is infinite
        ties = masked >= masked.max(axis=1, keepdims=True) - TIE_TOLERANCE
    # An infinite or NaN best logit makes no tie band: the plain argmax (still a legal action) then.
    return np.where(ties.any(axis=1), ties.argmax(axis=1), masked.argmax(axis=1))


def load_model(path: str, deterministic: bool = True) -> PPOAgent:
    """The agent of the MaskablePPO model saved at ``path`` (on the CPU).

    Raises ``FileNotFoundError`` for a missing file, ``ValueError`` for a file that is not a MaskablePPO model of
    this env, and ``ImportError`` when sb3-contrib is not installed."""
    model = read_model(path, "loading a PPO model")
    model.policy.set_training_mode(False)
    return PPOAgent(model.policy, path, deterministic)


def read_model(path: str, purpose: str):
    """The MaskablePPO model of this env saved at ``path``, on the CPU, loaded without running anything in the file
    (:func:`.model_archive.load`), with the errors :func:`load_model` names; ``purpose`` completes the message when
    sb3-contrib is missing."""
    return model_archive.load(path, purpose, device="cpu")


def declared_spaces(path: str) -> tuple[int, int]:
    """The observation entries the model at ``path`` reads (``OBS_SIZE``, or ``RECORD_OBS_SIZE`` with the match
    record, ``PRIVILEGED_SIZE`` more with a privileged critic; with jokers their layout's) and its actions, from the
    archive's plain JSON, checked to be GinRummy-v0's; ``ValueError`` naming the file otherwise."""
    spaces = model_archive.declared_spaces(model_archive.read(path))
    model_archive.check_spaces(path, spaces)
    return spaces[0][0], spaces[1]


#: What a saved model holds that acting never reads: the last rollout's observations (half a megabyte for 512 games).
_ROLLOUT_LEFTOVERS = ["_last_obs", "_last_original_obs", "_last_episode_starts"]


def export_model(sources: str | list[str], target: str,
                 actors: dict[str, dict[str, np.ndarray]] | None = None) -> None:
    """Write the MaskablePPO model at ``sources`` (a path) to ``target`` for shipping: the same policy and settings,
    without the Adam moments and the last rollout's observations, which make up two thirds of a checkpoint. The copy
    loads and acts exactly as the original (``load_model``) and can be trained further, with a fresh optimizer state.

    Given several paths, the policy written is their average, weight by weight (a "model soup"), with the first
    model's settings and step count. That suits policies fine-tuned from one ancestor, which sit in one basin of the
    loss: docs/training.md measures it. ``actors`` adds actor weights without a model around them, by a name for
    errors (numpy arrays by torch name, as ``agents.numpy_policy.read_weights`` gives them): each joins the average
    of the parameters it holds, and those it lacks (the critic's own layers) are averaged over the models alone.
    Raises what :func:`load_model` raises for a bad file, and ``ValueError`` for no model or for networks that
    differ in shape."""
    paths = [sources] if isinstance(sources, str) else list(sources)
    if not paths:
        raise ValueError("export_model needs at least one model to export")
    require("torch", "exporting a PPO model")
    models = [read_model(path, "exporting a PPO model") for path in paths]
    model, policy = models[0], models[0].policy
    weights = [m.policy.state_dict() for m in models]
    shapes = {key: tuple(value.shape) for key, value in weights[0].items()}
    for path, other in zip(paths[1:], weights[1:]):
        if {key: tuple(value.shape) for key, value in other.items()} != shapes:
            raise ValueError(f"cannot average {paths[0]!r} with {path!r}: their networks differ in shape")
    weights += [_actor_state(weights[0], actor, paths[0], name) for name, actor in (actors or {}).items()]
    if len(weights) > 1:
        average = {}
        for key, value in weights[0].items():
            if value.is_floating_point():
                terms = [w[key].to(value.dtype) for w in weights if key in w]
                value = sum(terms) / len(terms)
            average[key] = value
        policy.load_state_dict(average)
    _save_fresh(model, target)


def model_with_actor(source: str, actor: dict[str, np.ndarray], target: str, name: str = "the actor") -> None:
    """Write ``source``'s model to ``target`` with its actor replaced by ``actor`` (numpy arrays by torch name, as
    ``agents.numpy_policy.read_weights`` reads a ``gin-env export --numpy`` file; ``name`` for errors): the
    critic's own layers stay the model's. It turns a shipped actor (``ppo-expert``) back into a model that trains.
    Raises what :func:`export_model` raises for a bad model or shapes that differ."""
    model = read_model(source, "exporting a PPO model")
    state = model.policy.state_dict()
    replaced = _actor_state(state, actor, source, name)
    model.policy.load_state_dict({key: replaced.get(key, value) for key, value in state.items()})
    _save_fresh(model, target)


def _actor_state(state: dict, actor: dict[str, np.ndarray], source: str, name: str) -> dict:
    """``actor``'s weights (numpy arrays by torch name) as tensors under every name they have in the model's
    ``state``; ``ValueError`` naming ``source`` and ``name`` for a parameter the model lacks or shapes otherwise."""
    torch = require("torch", "exporting a PPO model")
    for key, value in actor.items():
        if key not in state or tuple(state[key].shape) != value.shape:
            in_model = (f"the model's is {tuple(state[key].shape)}" if key in state
                        else "the model has no such parameter")
            raise ValueError(f"cannot combine {source!r} with {name!r}: its {key!r} has shape {value.shape}, "
                             f"{in_model}")
    # SB3 names one shared feature extractor three times (features_extractor, pi_ and vf_features_extractor): an
    # actor's weight stands for every name of its tensor.
    return {alias: torch.as_tensor(value) for key, value in actor.items() for alias in state
            if state[alias].data_ptr() == state[key].data_ptr()}


def _save_fresh(model, target: str) -> None:
    """Save ``model`` to ``target`` whole, without the rollout and with a fresh optimizer."""
    policy = model.policy
    # A fresh optimizer of the same kind keeps the archive's layout (SB3 checks it on load) but holds no moments.
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.lr_schedule(1), **policy.optimizer_kwargs)
    # Saved through an open file: SB3 given a path would add ".zip" to one without it.
    with atomic_write(target, "wb") as out:
        model.save(out, exclude=_ROLLOUT_LEFTOVERS)

