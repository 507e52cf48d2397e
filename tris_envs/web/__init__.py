"""The browser app of ``tris-envs serve``: play and watch every game against every agent.

:mod:`tris_envs.web.server` answers the page's requests (standard library only),
:mod:`tris_envs.web.session` holds one game per page, :mod:`tris_envs.web.svg` draws
each game's own picture (``Game.draw``) as SVG with the click targets of
:mod:`tris_envs.web.board` on it, :mod:`tris_envs.web.analysis` evaluates a position and
:mod:`tris_envs.web.catalogue` lists the games' options and the agents for the setup. The
page (``static/``) is plain HTML, JavaScript and CSS served by the package; it knows no
rules: the server sends the legal moves in each game's notation and where each is clicked.
See docs/play.md.
"""

from tris_envs.web.server import make_server, serve
from tris_envs.web.session import Session
from tris_envs.web.svg import SvgCanvas, draw_svg

__all__ = ["Session", "SvgCanvas", "draw_svg", "make_server", "serve"]
