"""The learner's Gumbel MuZero search: mctx's public pieces in a loop of our own whose backup
is batched.

mctx's ``gumbel_muzero_policy`` runs ``mctx.search``, which backs each simulation up with one
``while_loop`` per tree under ``vmap``; a batched ``while_loop`` rewrites its whole carry, the
trees' arrays, at every step, so each backup costs time in proportion to the tree's size and a
search of ``n`` simulations in proportion to ``n`` squared. :func:`backward` carries the batch
instead and writes only the nodes it updates (one per tree and step). The walk down each
tree (:func:`descend`) takes the root's step before its loop and splits no key, because
Gumbel MuZero's selections draw nothing: under ``vmap``, mctx's ``cond`` on the depth runs
both selections at every step, and each step splits a key per tree.

Everything else is mctx's algorithm ("Policy improvement by planning with Gumbel", Danihelka
et al., 2022) step for step, built on the public names of ``mctx/__init__.py`` only (its
``Tree``, ``RootFnOutput``, ``PolicyOutput``, ``GumbelMuZeroExtraData``, the root and interior
action selections and the completed Q-values): each expansion's step gets the key mctx's
would, so :func:`gumbel_policy` grows node for node the trees of ``mctx.gumbel_muzero_policy``
and returns its action and weights (``tests/test_az_search_trees.py``).

Shapes: ``B`` the batch of roots, ``N`` the nodes of a tree (simulations + 1), ``A`` the actions.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import mctx

from tris_envs.jax.base import Array, PRNGKey

Recurrent = Callable[[Any, PRNGKey, Array, Any], tuple[mctx.RecurrentFnOutput, Any]]
"""mctx's ``recurrent_fn``: ``(params, key, action [B], embedding [B, ...])`` to the
children's ``RecurrentFnOutput`` (``[B, A]`` logits, ``[B]`` reward, discount, value) and
embeddings ``[B, ...]``."""

ROOT = mctx.Tree.ROOT_INDEX
UNVISITED = mctx.Tree.UNVISITED
NO_PARENT = mctx.Tree.NO_PARENT


def gumbel_policy(params: Any, key: PRNGKey, root: mctx.RootFnOutput, recurrent: Recurrent,
                  simulations: int, invalid: Array | None = None, considered: int = 16,
                  qtransform: Callable[..., Array] = mctx.qtransform_completed_by_mix_value,
                  gumbel_scale: float = 1.0) -> mctx.PolicyOutput:
    """``mctx.gumbel_muzero_policy`` with batched backups: the same arguments (``invalid``:
    ``[B, A]``, true for an illegal action; ``considered``: the actions Sequential Halving
    starts from at the root) and the same ``PolicyOutput`` (action ``[B]``, action_weights
    ``[B, A]``, search_tree)."""
    root = root.replace(prior_logits=masked_logits(root.prior_logits, invalid))
    key, gumbel_key = jax.random.split(key)
    gumbel = gumbel_scale * jax.random.gumbel(gumbel_key, root.prior_logits.shape,
                                              root.prior_logits.dtype)      # [B, A]
    # Gumbel MuZero's selections draw nothing (its noise is the root's gumbel): they get
    # one fixed key, and the walk down the tree splits none
    select_root = functools.partial(mctx.gumbel_muzero_root_action_selection, gumbel_key,
                                    num_simulations=simulations,
                                    max_num_considered_actions=considered,
                                    qtransform=qtransform)
    select_interior = functools.partial(mctx.gumbel_muzero_interior_action_selection,
                                        gumbel_key, qtransform=qtransform)
    tree = search(params, key, root, recurrent, select_root, select_interior, simulations,
                  invalid if invalid is not None else jnp.zeros_like(root.prior_logits),
                  mctx.GumbelMuZeroExtraData(root_gumbel=gumbel))
    visits = tree.summary().visit_counts                                    # [B, A]
    completed = jax.vmap(qtransform, in_axes=[0, None])(tree, ROOT)         # [B, A]
    # the most visited actions, and among them the highest gumbel + logits + q
    logits = root.prior_logits - root.prior_logits.max(-1, keepdims=True)
    score = (jnp.maximum(-1e9, gumbel + logits + completed)
             + jnp.where(visits == visits.max(-1, keepdims=True), 0.0, -jnp.inf))
    if invalid is not None:
        score = jnp.where(invalid, -jnp.inf, score)
    weights = jax.nn.softmax(masked_logits(root.prior_logits + completed, invalid))
    return mctx.PolicyOutput(action=jnp.argmax(score, -1).astype(jnp.int32),
                             action_weights=weights, search_tree=tree)


def masked_logits(logits: Array, invalid: Array | None) -> Array:
    """``logits`` ``[B, A]`` less their maximum, the invalid actions' set to the dtype's
    lowest finite value (no mass, and no NaN where every action is invalid)."""
    if invalid is None:
        return logits
    logits = logits - logits.max(-1, keepdims=True)
    return jnp.where(invalid, jnp.finfo(logits.dtype).min, logits)


def search(params: Any, key: PRNGKey, root: mctx.RootFnOutput, recurrent: Recurrent,
           select_root: Callable[[mctx.Tree, Array], Array],
           select_interior: Callable[[mctx.Tree, Array, Array], Array],
           simulations: int, invalid: Array, extra: Any) -> mctx.Tree:
    """``simulations`` rounds of select (down the tree to an unexpanded action), expand (the
    model's step there) and :func:`backward`, for a batch of roots (``invalid`` ``[B, A]``);
    ``select_root(tree, node [])`` picks the root's action ``[]`` in one (unbatched) tree,
    ``select_interior(tree, node [], depth [])`` another node's. The keys are split as
    mctx's ``search`` splits them, so that each expansion's step gets the same key."""
    batch = root.value.shape[0]
    rows = jnp.arange(batch)

    def simulation(index: Array, carry: tuple[Array, mctx.Tree]) -> tuple[Array, mctx.Tree]:
        key, tree = carry
        key, _, expand_key = jax.random.split(key, 3)       # the middle one: mctx's walk's
        parent, action = jax.vmap(descend, in_axes=[0, None, None, None])(
            tree, select_root, select_interior, simulations)                # [B], [B]
        child = tree.children_index[rows, parent, action]
        child = jnp.where(child == UNVISITED, index + 1, child)             # node i: sim i
        tree = expand(params, expand_key, tree, recurrent, parent, action, child)
        return key, backward(tree, child)

    tree = new_tree(root, simulations, invalid, extra)
    return jax.lax.fori_loop(0, simulations, simulation, (key, tree))[1]


def descend(tree: mctx.Tree, select_root: Callable[..., Array],
            select_interior: Callable[..., Array], max_depth: int) -> tuple[Array, Array]:
    """In one tree: from the root, the actions ``select_root`` then ``select_interior``
    pick, down to the first action not yet expanded (or ``max_depth`` edges); the node it
    leaves and that action (both ``[]``). The root's step is taken before the loop: under
    ``vmap`` a ``cond`` on the depth inside it would run both selections at every step."""

    # the walk's carry, all []: node, action, child, depth, whether it goes on
    Walk = tuple[Array, Array, Array, Array, Array]

    def walk(node: Array, action: Array, depth: Array) -> Walk:
        child = tree.children_index[node, action]
        depth = depth + 1
        return node, action, child, depth, (child != UNVISITED) & (depth < max_depth)

    def step(carry: Walk) -> Walk:
        _, _, node, depth, _ = carry
        return walk(node, select_interior(tree, node, depth), depth)

    root = jnp.array(ROOT, jnp.int32)
    start = walk(root, select_root(tree, root), jnp.zeros((), tree.children_prior_logits.dtype))
    node, action, _, _, _ = jax.lax.while_loop(lambda carry: carry[-1], step, start)
    return node, action


def expand(params: Any, key: PRNGKey, tree: mctx.Tree, recurrent: Recurrent, parent: Array,
           action: Array, child: Array) -> mctx.Tree:
    """The model's step from each ``parent`` node by ``action`` (all ``[B]``), written into
    node ``child`` and the edge to it."""
    rows = jnp.arange(parent.shape[0])
    embedding = jax.tree.map(lambda x: x[rows, parent], tree.embeddings)
    out, embedding = recurrent(params, key, action, embedding)
    tree = set_nodes(tree, child, out.prior_logits, out.value, embedding)
    return tree.replace(
        children_index=tree.children_index.at[rows, parent, action].set(child),
        children_rewards=tree.children_rewards.at[rows, parent, action].set(out.reward),
        children_discounts=tree.children_discounts.at[rows, parent, action].set(
            out.discount),
        parents=tree.parents.at[rows, child].set(parent),
        action_from_parent=tree.action_from_parent.at[rows, child].set(action))


def backward(tree: mctx.Tree, leaf: Array) -> mctx.Tree:
    """The backup of a batch of leaves (``leaf`` ``[B]``, a node index per tree): every
    node on the path from each leaf to its root gains the visit and the leaf's value, with
    the arithmetic of mctx's own backup, in one ``while_loop`` over the batch that writes
    only the nodes it updates."""
    rows = jnp.arange(leaf.shape[0])

    def step(carry: tuple[mctx.Tree, Array, Array]) -> tuple[mctx.Tree, Array, Array]:
        tree, value, index = carry
        going = index != ROOT
        parent = jnp.where(going, tree.parents[rows, index], ROOT)
        action = jnp.where(going, tree.action_from_parent[rows, index], 0)
        count = tree.node_visits[rows, parent]
        value = (tree.children_rewards[rows, parent, action]
                 + tree.children_discounts[rows, parent, action] * value)
        parent_value = (tree.node_values[rows, parent] * count + value) / (count + 1.0)

        def put(x: Array, new: Array, *at: Array) -> Array:
            return x.at[(rows, parent) + at].set(jnp.where(going, new, x[(rows, parent) + at]))

        tree = tree.replace(
            node_values=put(tree.node_values, parent_value),
            node_visits=put(tree.node_visits, count + 1),
            children_values=put(tree.children_values, tree.node_values[rows, index], action),
            children_visits=put(tree.children_visits,
                                tree.children_visits[rows, parent, action] + 1, action))
        return tree, value, jnp.where(going, parent, index)

    leaf = leaf.astype(jnp.int32)
    tree, _, _ = jax.lax.while_loop(lambda carry: (carry[2] != ROOT).any(), step,
                                    (tree, tree.node_values[rows, leaf], leaf))
    return tree


def set_nodes(tree: mctx.Tree, node: Array, logits: Array, value: Array,
              embedding: Any) -> mctx.Tree:
    """Node ``node`` ``[B]`` of each tree newly evaluated: its children's priors ``[B, A]``,
    its value ``[B]`` (raw and backed up), its embedding, and one visit more."""
    rows = jnp.arange(node.shape[0])
    return tree.replace(
        children_prior_logits=tree.children_prior_logits.at[rows, node].set(logits),
        raw_values=tree.raw_values.at[rows, node].set(value),
        node_values=tree.node_values.at[rows, node].set(value),
        node_visits=tree.node_visits.at[rows, node].set(tree.node_visits[rows, node] + 1),
        embeddings=jax.tree.map(lambda x, e: x.at[rows, node].set(e), tree.embeddings,
                                embedding))


def new_tree(root: mctx.RootFnOutput, simulations: int, invalid: Array,
             extra: Any) -> mctx.Tree:
    """Trees of ``simulations + 1`` nodes for a batch of roots (``invalid`` ``[B, A]``), the
    roots evaluated."""
    batch, actions = root.prior_logits.shape
    nodes = (batch, simulations + 1)
    edges = nodes + (actions,)
    dtype = root.value.dtype
    tree = mctx.Tree(
        node_visits=jnp.zeros(nodes, jnp.int32),
        raw_values=jnp.zeros(nodes, dtype),
        node_values=jnp.zeros(nodes, dtype),
        parents=jnp.full(nodes, NO_PARENT, jnp.int32),
        action_from_parent=jnp.full(nodes, NO_PARENT, jnp.int32),
        children_index=jnp.full(edges, UNVISITED, jnp.int32),
        children_prior_logits=jnp.zeros(edges, root.prior_logits.dtype),
        children_values=jnp.zeros(edges, dtype),
        children_visits=jnp.zeros(edges, jnp.int32),
        children_rewards=jnp.zeros(edges, dtype),
        children_discounts=jnp.zeros(edges, dtype),
        embeddings=jax.tree.map(lambda x: jnp.zeros(nodes + x.shape[1:], x.dtype),
                                root.embedding),
        root_invalid_actions=invalid,
        extra_data=extra)
    return set_nodes(tree, jnp.full(batch, ROOT), root.prior_logits, root.value,
                     root.embedding)
