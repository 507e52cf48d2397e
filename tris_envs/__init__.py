"""tris_envs: PettingZoo environments for Tris 2, Tris 1, Tant Fant, Doppia scelta and Tritoc.

Environment modules follow PettingZoo's layout::

    from tris_envs import tant_fant_v0
    env = tant_fant_v0.env(render_mode="ansi", stalemate="loss")

Importing the package registers every environment in PettingZoo's registry as
``tris_envs/<name>`` (e.g. ``pettingzoo.make("aec", "tris_envs/tant_fant-v0")``) and the
single-agent views in Gymnasium's (``gymnasium.make("tris_envs/TantFant-v0",
opponent="greedy")``).
"""

from tris_envs.core.errors import IllegalActionError
from tris_envs.envs.single_agent import register_gymnasium
from tris_envs.registry import ENV_MODULES, make_env, register_pettingzoo

__version__ = "0.1.0"
__all__ = ["ENV_MODULES", "IllegalActionError", "make_env", "__version__"]

register_pettingzoo()
register_gymnasium()
