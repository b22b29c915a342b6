"""The PPO agent's network: convolutions over the suit x rank grid of the card planes, and per-card action logits.

It lives in the package, not in ``train.py``, because a saved model refers to its policy class by import path: any
process that loads the shipped model (``agents.load("ppo")``) must be able to import it. Importing this module
imports torch and sb3-contrib.
"""

from __future__ import annotations

import gymnasium as gym

from gin_env.game import cards
from gin_env.game.actions import DISCARD_BASE, JOKER_ACTIONS, KNOCK_BASE, N_ACTIONS
from gin_env.game.observation import PLANES, PRIVILEGED_PLANES, PRIVILEGED_SIZE
from gin_env.optional import require

from .numpy_policy import HEAD_HIDDEN

torch = require("torch", "a PPO policy")
nn = torch.nn
MaskableActorCriticPolicy = require("sb3_contrib.common.maskable.policies", "a PPO policy").MaskableActorCriticPolicy
BaseFeaturesExtractor = require("stable_baselines3.common.torch_layers", "a PPO policy").BaseFeaturesExtractor

#: The card planes come first in the observation (``OBS_LAYOUT``), then the scalars (and the match record, when the
#: observation space has it: ``RECORD_OBS_LAYOUT``).
N_PLANE_ENTRIES = len(PLANES) * cards.N_CARDS
# CardActionHead lays its logits out as the action ids are: card-free actions, then a discard and a knock per card.
assert KNOCK_BASE == DISCARD_BASE + cards.N_CARDS and N_ACTIONS == KNOCK_BASE + cards.N_CARDS


class CardFeatures(BaseFeaturesExtractor):
    """Features of one observation for :class:`CardPolicy`: per card, ``channels`` numbers read from the suit x rank
    grid by run-shaped (1 x 3) and set-shaped (4 x 1) kernels and a second run-shaped layer; and ``global_dim``
    numbers for the whole position (a linear layer over the card maps and the scalar entries). Output: the card
    maps (``channels`` x 52, in card-id order) followed by the global numbers. The scalar entries are those the
    observation space has after the planes: the observation's, and the match record's when it is there.

    With ``privileged`` the observation ends in what no player sees (``PRIVILEGED_PLANES``: the opponent's hand
    and the stock's order; a privileged critic's training env, ``gin-env train --privileged-critic``). An actor's
    extractor never reads them, so the actor plays from the view alone; a critic's (``reads_privileged``) reads them
    as more card planes."""

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 16, global_dim: int = 128,
                 privileged: bool = False, reads_privileged: bool = False) -> None:
        super().__init__(observation_space, channels * cards.N_CARDS + global_dim)
        self.privileged = PRIVILEGED_SIZE if privileged else 0
        self.reads_privileged = bool(privileged and reads_privileged)
        planes = len(PLANES) + (len(PRIVILEGED_PLANES) if self.reads_privileged else 0)
        self.channels, self.global_dim = channels, global_dim
        self.runs = nn.Conv2d(planes, channels, kernel_size=(1, 3), padding=(0, 1))
        self.sets = nn.Conv2d(planes, channels, kernel_size=(cards.N_SUITS, 1))
        self.mix = nn.Conv2d(2 * channels, channels, kernel_size=(1, 3), padding=(0, 1))
        scalars = observation_space.shape[0] - N_PLANE_ENTRIES - self.privileged
        self.summary = nn.Sequential(nn.Linear(channels * cards.N_CARDS + scalars, global_dim), nn.ReLU())

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        view = obs[:, :obs.shape[1] - self.privileged]
        grid = view[:, :N_PLANE_ENTRIES].reshape(-1, len(PLANES), cards.N_SUITS, cards.N_RANKS)
        if self.reads_privileged:
            hidden = obs[:, view.shape[1]:].reshape(-1, len(PRIVILEGED_PLANES), cards.N_SUITS, cards.N_RANKS)
            grid = torch.cat([grid, hidden], dim=1)
        runs = torch.relu(self.runs(grid))
        # A set feature belongs to every card of its rank: broadcast the (1 x 13) map back over the four suits.
        sets = torch.relu(self.sets(grid)).expand(-1, -1, cards.N_SUITS, -1)
        # (suit, rank) flattened is the card id, suit * 13 + rank.
        per_card = torch.relu(self.mix(torch.cat([runs, sets], dim=1))).flatten(1)
        return torch.cat([per_card, self.summary(torch.cat([per_card, view[:, N_PLANE_ENTRIES:]], dim=1))], dim=1)


class CardActionHead(nn.Module):
    """Logits of the 108 actions from :class:`CardFeatures`: the four card-free actions from the global numbers;
    ``DISCARD(c)`` and ``KNOCK(c)`` from card c's own features plus the global numbers, with weights shared by all
    52 cards, so what is learnt about discarding one card holds for every card. With ``jokers`` the two joker actions
    follow (R72: ``DISCARD(JK)``, ``KNOCK(JK)``), from the global numbers, which read the joker counts."""

    def __init__(self, channels: int, global_dim: int, hidden: int = HEAD_HIDDEN, jokers: bool = False) -> None:
        super().__init__()
        self.channels = channels
        self.card = nn.Conv1d(channels, hidden, kernel_size=1)
        self.context = nn.Linear(global_dim, hidden)
        self.card_out = nn.Conv1d(hidden, 2, kernel_size=1)
        self.free_out = nn.Linear(global_dim, DISCARD_BASE)
        self.joker_out = nn.Linear(global_dim, JOKER_ACTIONS) if jokers else None

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        per_card = features[:, :self.channels * cards.N_CARDS].reshape(-1, self.channels, cards.N_CARDS)
        context = features[:, self.channels * cards.N_CARDS:]
        hidden = torch.relu(self.card(per_card) + self.context(context)[:, :, None])
        discard, knock = self.card_out(hidden).unbind(dim=1)
        # Action ids: the card-free actions, then DISCARD_BASE + c, then KNOCK_BASE + c, then the joker actions.
        logits = [self.free_out(context), discard, knock]
        if self.joker_out is not None:
            logits.append(self.joker_out(context))
        return torch.cat(logits, dim=1)


class CardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's actor-critic with :class:`CardFeatures` (one for the actor and one for the critic, unless
    ``share_features_extractor``), and :class:`CardActionHead` as the actor's output layer. Needs
    ``net_arch={"pi": [], "vf": [...]}``: the head reads the features themselves. With
    ``features_extractor_kwargs={"privileged": True, ...}`` the critic's extractor also reads what no player sees."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("features_extractor_class", CardFeatures)
        if kwargs.get("features_extractor_kwargs", {}).get("privileged"):
            # The actor must not read what its player cannot see: a privileged critic has an extractor of its own.
            kwargs["share_features_extractor"] = False
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        if self.features_extractor_kwargs.get("privileged"):
            # Replaced before the base class builds the layers, so the critic's extractor is initialised with them.
            self.vf_features_extractor = self.features_extractor_class(
                self.observation_space, **self.features_extractor_kwargs, reads_privileged=True)
        super()._build(lr_schedule)
        extractor = self.features_extractor
        if self.mlp_extractor.latent_dim_pi != extractor.features_dim:
            raise ValueError("CardPolicy needs net_arch with pi=[]: its action head reads the card features")
        self.action_net = CardActionHead(extractor.channels, extractor.global_dim,
                                         jokers=self.action_space.n > N_ACTIONS)
        # Small final weights, as SB3 gives its own action layer, so the first policy is near uniform.
        for layer in (self.action_net.card_out, self.action_net.free_out, self.action_net.joker_out):
            if layer is None:
                continue
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)
        # The base class built its optimizer over the replaced layer; build it again over the actual parameters.
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
