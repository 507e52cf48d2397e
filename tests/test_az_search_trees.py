"""The learner's own Gumbel search (:mod:`tris_envs.alphazero.search`, batched backups over
mctx's public pieces) against ``mctx.gumbel_muzero_policy``: the same trees node for node,
the same actions and weights, on a random model whose trees grow deep and uneven."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
mctx = pytest.importorskip("mctx")

import jax.numpy as jnp  # noqa: E402

from tris_envs.alphazero.search import gumbel_policy  # noqa: E402

TREE_FIELDS = ("node_visits", "raw_values", "node_values", "parents", "action_from_parent",
               "children_index", "children_prior_logits", "children_visits",
               "children_values", "children_rewards", "children_discounts")


def random_model(actions: int, batch: int):
    """A root and an mctx ``recurrent_fn`` of random priors, values, rewards and discounts
    (a node's are drawn from its embedding, a counter), so that trees grow deep and uneven."""

    def draws(embedding, salt):
        keys = jax.vmap(lambda e: jax.random.fold_in(jax.random.PRNGKey(salt), e))(embedding)
        return jax.vmap(lambda k: jax.random.normal(k, (actions + 3,)))(keys)

    def recurrent(params, key, action, embedding):
        child = embedding * actions + action + 1
        x = draws(child, 1)
        return mctx.RecurrentFnOutput(
            reward=jnp.tanh(x[:, 0]), discount=jnp.where(x[:, 1] > 1.5, 0.0, -0.9),
            prior_logits=2 * x[:, 3:], value=jnp.tanh(x[:, 2])), child

    x = draws(jnp.arange(batch), 2)
    root = mctx.RootFnOutput(prior_logits=x[:, 3:], value=jnp.tanh(x[:, 2]),
                             embedding=jnp.arange(batch))
    return root, recurrent


def depths(parents: np.ndarray) -> np.ndarray:
    """Each node's depth in its tree (``parents``: ``[B, N]``, -1 for the root and unused)."""
    depth = np.zeros(parents.shape, int)
    rows = np.arange(parents.shape[0])
    for node in range(1, parents.shape[1]):
        depth[:, node] = np.where(parents[:, node] >= 0,
                                  depth[rows, np.maximum(parents[:, node], 0)] + 1, 0)
    return depth


@pytest.mark.parametrize("considered, seed, masked", [(4, 3, True), (16, 0, False),
                                                      (2, 7, True)])
def test_the_search_grows_the_trees_of_mctxs_gumbel_policy(considered, seed, masked):
    root, recurrent = random_model(actions=5, batch=6)
    mask = np.zeros((6, 5), bool)
    if masked:
        mask[0, 3:] = True                      # two invalid actions at one root
        mask[1, :4] = True                      # a root with one legal action
    invalid = mask if masked else None
    key = jax.random.PRNGKey(seed)
    theirs = mctx.gumbel_muzero_policy(None, key, root, recurrent, 48, invalid_actions=invalid,
                                       max_num_considered_actions=considered)
    ours = gumbel_policy(None, key, root, recurrent, 48, invalid, considered)
    assert depths(np.asarray(theirs.search_tree.parents)).max() >= 4   # long backups
    for name in TREE_FIELDS:
        np.testing.assert_array_equal(getattr(ours.search_tree, name),
                                      getattr(theirs.search_tree, name), name)
    np.testing.assert_array_equal(ours.action, theirs.action)
    np.testing.assert_array_equal(ours.action_weights, theirs.action_weights)
    if masked:
        assert int(ours.action[1]) == 4 and not mask[np.arange(6), np.asarray(ours.action)].any()


def test_the_search_agrees_with_mctxs_under_jit():
    root, recurrent = random_model(actions=5, batch=3)
    search = jax.jit(lambda key: gumbel_policy(None, key, root, recurrent, 16, None, 4).action)
    theirs = jax.jit(lambda key: mctx.gumbel_muzero_policy(
        None, key, root, recurrent, 16, max_num_considered_actions=4).action)
    for seed in range(3):
        key = jax.random.PRNGKey(seed)
        np.testing.assert_array_equal(search(key), theirs(key))
