"""The SB3 wrappers of the policy networks (agents/networks/): MaskablePPO's policy classes, and the weights
and policy file a snapshot or checkpoint keeps.

`mlp` trains with sb3-contrib's own MLP policy; every structured kind trains with `NetworkPolicy`, which puts
the kind's network into SB3's `mlp_extractor` slot. Either way the weights carry `ActorCritic`'s names, so the
policy file written beside each checkpoint loads without SB3 (`tabletop.agents.networks`). Both can leave
forced moves out of the actor's passes (`ChoicesOnlyActor`, `sb3.skip_forced`); the MLP always does, and reads
sparse observations and scores few legal actions alone (`MlpPolicy`).
"""

from __future__ import annotations

from typing import Any

import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from tabletop.agents.networks.actor_critic import DEFAULTS, build_extractor, network_spec
from tabletop.agents.networks.common import ACTIVATIONS
from tabletop.agents.networks.mlp import MlpExtractor
from tabletop.agents.networks.roles import ROLE_WEIGHTS
from tabletop.agents.networks.saved import SavedPolicy, saved_policy
from tabletop.agents.networks.sparse import BagLinear, SparseRows, bag_pays, most_active, sparse_rows
from tabletop.envs import EnvSpec
from tabletop.train.selfplay.lazy_adam import LazyBagAdam


def config_spec(network, env: EnvSpec) -> dict[str, Any]:
    """The `network_spec` of a config's `network:` section (a NetworkConfig) on the game `env`."""
    sizes = {k: getattr(network, k) for k in DEFAULTS}
    return network_spec(env, network.kind, **sizes)


class ChoicesOnlyActor:
    """An SB3 policy mixin: with `skip_forced` set, the learner runs its actor only on the decisions that have a
    choice, in the rollout's forward pass and in PPO's update. A forced move (one legal action) is played
    whatever the logits, with log-probability 0 and entropy 0, so it adds nothing to the policy loss or its
    gradient; only the critic needs it. Same actions, losses and gradients up to float rounding (the sums run
    over fewer rows), so a config that turns it on is retrained, not resumed. In Chromino two decisions in
    three are forced (draw, pass), and the actor is most of the update."""

    skip_forced = False  # set by the trainer from `sb3.skip_forced`

    def _skipping(self, action_masks) -> bool:
        return self.skip_forced and action_masks is not None and self.share_features_extractor

    def choice_latents(self, obs: torch.Tensor, action_masks) -> tuple[torch.Tensor, ...]:
        """(the masks as a tensor, the rows with a choice, the actor's latent on those rows, the critic's on all).
        If no row has a choice, row 0 stands in (its logits are masked away), so that every network kind sees
        at least one row; a network that can share its inputs between the two heads (the `board` kind's window)
        computes both in one `forward_split`."""
        features = self.extract_features(obs)
        masks = torch.as_tensor(action_masks, device=features.device)
        choices = (masks.sum(dim=1) > 1).nonzero().squeeze(1)
        if not len(choices):
            choices = choices.new_zeros(1)
        split = getattr(self.mlp_extractor, "forward_split", None)
        if split is not None:
            return masks, choices, *split(features, choices)
        actor, critic = self.mlp_extractor.forward_actor(features[choices]), self.mlp_extractor.forward_critic(features)
        return masks, choices, actor, critic

    def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks=None):
        if not self._skipping(action_masks):
            return super().forward(obs, deterministic, action_masks)
        masks, choices, chosen, latent_vf = self.choice_latents(obs, action_masks)
        latent_pi = chosen.new_zeros(len(masks), chosen.shape[1])
        latent_pi[choices] = chosen  # a forced move's logits: any, masked down to its one action
        distribution = self._get_action_dist_from_latent(latent_pi)
        distribution.apply_masking(masks)
        actions = distribution.get_actions(deterministic=deterministic)
        values = self.value_net(latent_vf)
        return actions.reshape((-1, *self.action_space.shape)), values, distribution.log_prob(actions)

    def evaluate_actions(self, obs: torch.Tensor, actions: torch.Tensor, action_masks=None):
        """The masked distribution too is built over the rows with a choice only: a forced move's log-probability
        and entropy are 0."""
        if not self._skipping(action_masks):
            return super().evaluate_actions(obs, actions, action_masks)
        masks, choices, chosen, latent_vf = self.choice_latents(obs, action_masks)
        distribution = self._get_action_dist_from_latent(chosen)
        distribution.apply_masking(masks[choices])
        log_prob, entropy = latent_vf.new_zeros(len(masks)), latent_vf.new_zeros(len(masks))
        log_prob[choices] = distribution.log_prob(actions[choices])
        entropy[choices] = distribution.entropy()
        return self.value_net(latent_vf), log_prob, entropy


class MlpPolicy(ChoicesOnlyActor, MaskableActorCriticPolicy):
    """sb3-contrib's MLP policy (the same weights, names and initialisation) reading only what is there.

    - Observations reach the network as `SparseRows`, the first layers as embedding bags (`BagLinear`).
    - The actor runs only on decisions with a choice: a forced move is played whatever the logits, with
      log-probability 0 and entropy 0, so it adds nothing to the policy loss or its gradient.
    - The action head scores the legal actions only where they are few (`head_reads_legal_only`).
    The same function and gradients as the dense policy, up to float rounding; Adam is lazy in the bags'
    tables (`LazyBagAdam`)."""

    def _build_mlp_extractor(self) -> None:
        arch = self.net_arch
        if not isinstance(arch, dict) or list(arch.get("pi", [])) != list(arch.get("vf", [])):
            raise ValueError(f"an MLP policy has policy and value nets of one shape (net_arch pi = vf), not {arch}")
        self.mlp_extractor = MlpExtractor(self.features_dim, list(arch["pi"]), self.activation_fn, sparse=True)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        if self.optimizer_class is torch.optim.Adam:  # lazy in the bags' tables (lazy_adam.py)
            bags = [m for m in self.mlp_extractor.modules() if isinstance(m, BagLinear)]
            self.optimizer = LazyBagAdam(self.parameters(), bags, lr=lr_schedule(1), **self.optimizer_kwargs)

    dense_rows = False  # set once a batch had rows too dense for the bag: the game's rows stay dense (Cromlet's)

    def extract_features(self, obs, features_extractor=None):
        """The batch as `SparseRows`, or dense where too many inputs are active for the bag to pay (Cromlet)."""
        if not isinstance(obs, SparseRows):
            obs = super().extract_features(obs, features_extractor)
            if not self.dense_rows and bag_pays(most_active(obs), self.features_dim):
                return sparse_rows(obs)
            self.store_dense()
            return obs
        return obs if bag_pays(obs.indices.shape[1], self.features_dim) else obs.dense(self.features_dim)

    def store_dense(self) -> None:
        """The first layers' weights as nn.Linear keeps them: this game's rows are too dense for the bag. Later
        batches skip the count of their active inputs."""
        if not self.dense_rows:
            self.dense_rows = True
            for layer in self.mlp_extractor.modules():
                if isinstance(layer, BagLinear):
                    layer.store_dense()

    def _skipping(self, action_masks) -> bool:
        return action_masks is not None and self.share_features_extractor

    def forward(self, obs: torch.Tensor, deterministic: bool = False, action_masks=None):
        """SB3's (actions, values, log-probabilities), the actor on the decisions with a choice only, its head on
        their legal actions only (a forced move: its one action, log-probability 0)."""
        features = self.extract_features(obs)
        if not self._skipping(action_masks) or not isinstance(features, SparseRows):  # dense rows: the full head
            return super().forward(obs, deterministic, action_masks)
        masks = torch.as_tensor(action_masks, device=self.device) > 0.5
        values = self.value_net(self.mlp_extractor.forward_critic(features))  # type: ignore[arg-type]  # BagLinear reads SparseRows
        actions, log_prob = masks.to(torch.int8).argmax(dim=1), values.new_zeros(len(masks))
        choices = (masks.sum(dim=1) > 1).nonzero().squeeze(1)
        if len(choices):
            latent = self.mlp_extractor.forward_actor(features[choices])
            actions[choices], log_prob[choices] = legal_sample(latent, self.action_net, masks[choices], deterministic)
        return actions, values, log_prob

    def get_distribution(self, obs, action_masks=None):
        distribution = self._get_action_dist_from_latent(self.mlp_extractor.forward_actor(self.extract_features(obs)))
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        return distribution

    def predict_values(self, obs) -> torch.Tensor:
        return self.value_net(self.mlp_extractor.forward_critic(self.extract_features(obs)))

    def evaluate_actions(self, obs, actions: torch.Tensor, action_masks=None):
        if not self._skipping(action_masks):
            return super().evaluate_actions(obs, actions, action_masks)
        features = self.extract_features(obs)
        masks = torch.as_tensor(action_masks, device=self.device) > 0.5
        values = self.value_net(self.mlp_extractor.forward_critic(features))
        log_prob, entropy = values.new_zeros(len(masks)), values.new_zeros(len(masks))
        choices = (masks.sum(dim=1) > 1).nonzero().squeeze(1)
        if len(choices):
            latent = self.mlp_extractor.forward_actor(features[choices])
            log_prob[choices], entropy[choices] = legal_scores(
                latent, self.action_net, masks[choices], actions[choices]
            )
        return values, log_prob, entropy


def head_reads_legal_only(masks: torch.Tensor) -> bool:
    """Whether the head pays to run on the legal actions only: where they are under one in 64 of the rows'
    actions (Kings Cribbage's tiles, 43 of 5,098). With more (KRZ GRTN's 5 of 54, Cromlet's 30 of 530, Chromino's
    60 of 2,347) the whole head and a masked softmax cost a third to four fifths as much, forward and backward."""
    return masks.numel() > 64 * int(masks.sum())


def masked_log_softmax(latent: torch.Tensor, head: nn.Linear, masks: torch.Tensor) -> torch.Tensor:
    """[rows, actions] log-probabilities of the masked softmax over `head(latent)`; -inf on illegal actions."""
    return torch.log_softmax(head(latent).masked_fill(~masks, -torch.inf), dim=1)


def legal_log_softmax(
    latent: torch.Tensor, head: nn.Linear, masks: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(row, action, log-probability) of every legal action of every row, rows in order: the masked softmax over
    `head(latent)`, the head applied to the legal actions only where that pays (`head_reads_legal_only`)."""
    row, action = masks.nonzero(as_tuple=True)
    if not head_reads_legal_only(masks):
        return row, action, masked_log_softmax(latent, head, masks)[row, action]
    logits = (latent[row] * head.weight[action]).sum(dim=1) + head.bias[action]
    top = torch.full((len(latent),), -torch.inf).scatter_reduce_(0, row, logits.detach(), "amax")
    shifted = logits - top[row]
    return row, action, shifted - torch.zeros_like(top).index_add_(0, row, shifted.exp()).log()[row]


def legal_scores(
    latent: torch.Tensor, head: nn.Linear, masks: torch.Tensor, actions: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(log-probability of `actions`, entropy) of the masked softmax over `head(latent)`: the masked categorical's
    figures (an illegal action has probability 0 there), from the legal actions' logits only where that pays."""
    if not head_reads_legal_only(masks):
        log_p = masked_log_softmax(latent, head, masks)
        entropy = -(log_p.exp() * log_p.masked_fill(~masks, 0.0)).sum(dim=1)
        return log_p.gather(1, actions.long()[:, None]).squeeze(1), entropy
    row, action, log_p = legal_log_softmax(latent, head, masks)
    chosen = action == actions.long()[row]
    log_prob = torch.zeros(len(latent)).index_add_(0, row[chosen], log_p[chosen])
    entropy = -torch.zeros(len(latent)).index_add_(0, row, log_p.exp() * log_p)
    return log_prob, entropy


def legal_sample(
    latent: torch.Tensor, head: nn.Linear, masks: torch.Tensor, deterministic: bool
) -> tuple[torch.Tensor, torch.Tensor]:
    """(action, its log-probability) per row: the most likely legal action, or a sample of the masked softmax
    (Gumbel-max over the legal actions, from torch's generator)."""
    row, action, log_p = legal_log_softmax(latent, head, masks)
    key = log_p if deterministic else log_p - torch.log(-torch.log(torch.rand(len(log_p)).clamp_min(1e-20)))
    best = torch.full((len(latent),), -torch.inf).scatter_reduce_(0, row, key, "amax")
    won = (key == best[row]).nonzero().squeeze(1)
    won = won[torch.cat([torch.ones(1, dtype=torch.bool), row[won[1:]] != row[won[:-1]]])]  # a tie: the first
    return action[won], log_p[won]


def sb3_policy(spec: dict[str, Any], frozen_role: str | None = None) -> tuple[type[MaskableActorCriticPolicy], dict]:
    """(policy class, its SB3 `policy_kwargs`) for a network spec."""
    activation = ACTIVATIONS[spec["activation"]]
    adam = {"optimizer_kwargs": {"eps": 1e-5, "foreach": True}}  # SB3's eps; one pass per step: ~3x less time
    if spec["kind"] == "mlp":
        return MlpPolicy, {
            "net_arch": {"pi": spec["hidden"], "vf": spec["hidden"]},
            "activation_fn": activation,
            **adam,
        }
    return NetworkPolicy, {"network": spec, "frozen_role": frozen_role, "activation_fn": activation, **adam}


def network_policy(network, env: EnvSpec) -> tuple[type[MaskableActorCriticPolicy], dict]:
    """(policy class, its `policy_kwargs`) for a config's `network:` section on the game `env`."""
    return sb3_policy(config_spec(network, env), getattr(network, "frozen_role", None))


def policy_kwargs(hidden: list[int], activation: str) -> dict:
    """SB3 `policy_kwargs` of the `mlp` kind: separate policy and value MLPs of the same shape."""
    return {"net_arch": {"pi": list(hidden), "vf": list(hidden)}, "activation_fn": ACTIVATIONS[activation]}


def build_policy(
    observation_space, action_space, kwargs: dict, policy_class: type[MaskableActorCriticPolicy] | None = None
) -> MaskableActorCriticPolicy:
    """A fresh CPU policy of the learner's architecture (`policy_class`, by default sb3-contrib's MLP
    policy, built with `kwargs`: its SB3 `policy_kwargs`), to load weights into."""
    policy = (policy_class or MaskableActorCriticPolicy)(observation_space, action_space, lambda _: 0.0, **kwargs)
    policy.set_training_mode(False)
    return policy


def actor_weights(policy: nn.Module) -> dict[str, torch.Tensor]:
    """A detached CPU copy of the weights (what a snapshot keeps)."""
    return {k: v.detach().to("cpu", copy=True) for k, v in policy.state_dict().items()}


def policy_file(policy: nn.Module, spec: dict[str, Any], env: EnvSpec) -> SavedPolicy:
    """What `policy.pt` beside an SB3 checkpoint holds: the network spec and the weights, no SB3 class."""
    return saved_policy(spec, actor_weights(policy), env, "sb3")


class NetworkPolicy(ChoicesOnlyActor, MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy with a structured network kind (its `network` spec) in the `mlp_extractor` slot.

    The network already gives one logit per action, so SB3's action head is the identity; its `logit_heads()`
    start near zero, as SB3 starts its own action head: a near-uniform first policy. `frozen_role` (roles)
    keeps one role's weights out of PPO's updates."""

    def __init__(
        self, observation_space, action_space, lr_schedule, network: dict, frozen_role: str | None = None, **kwargs
    ):
        self.network, self.frozen_role = network, frozen_role  # read by _build
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = build_extractor(self.network)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        if self.ortho_init:
            for head in self.mlp_extractor.logit_heads():
                head.apply(lambda m: self.init_weights(m, gain=0.01))
        self.optimizer = self.optimizer_class(self.trained_parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def trained_parameters(self) -> list[nn.Parameter]:
        """The weights PPO's optimiser updates: all of them, but a frozen role's (the warm start's optimiser fits all)."""
        frozen = ROLE_WEIGHTS[self.frozen_role] if self.frozen_role else ()
        return [w for name, w in self.named_parameters() if not (frozen and name.startswith(frozen))]

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "network": self.network, "frozen_role": self.frozen_role}
