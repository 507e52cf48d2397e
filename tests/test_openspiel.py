"""The games inside OpenSpiel (tris_envs.integrations.openspiel, docs/openspiel.md).

OpenSpiel's own ``random_sim_test`` on every game and option set of the registry, lockstep
games against the AEC environments, the setups' chance nodes against the core's draws,
serialization, parameters.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
openspiel = pytest.importorskip("tris_envs.integrations.openspiel")

from open_spiel.python.algorithms import evaluate_bots, minimax  # noqa: E402
from open_spiel.python.bots import uniform_random  # noqa: E402

from tris_envs.agents import make_agent  # noqa: E402
from tris_envs.core.game import CHANCE, TERMINAL, resolve_chance  # noqa: E402
from tris_envs.core.solver import solve  # noqa: E402
from tris_envs.evaluation import play_match  # noqa: E402
from tris_envs.games import GAMES, make_game  # noqa: E402

CASES = [(name, options) for name, spec in GAMES.items() for options in spec.option_sets]
IDS = [" ".join([name, *(f"{k}={v}"[:24] for k, v in options.items())])
       for name, options in CASES]


@pytest.mark.parametrize("name", list(GAMES))
def test_every_option_is_a_parameter_with_the_cores_default(name: str) -> None:
    game_type = openspiel.GAME_TYPES[name]
    core = make_game(name)
    assert game_type.short_name == f"tris_envs_{name}"
    assert set(game_type.parameter_specification) == set(core.OPTIONS)
    loaded = pyspiel.load_game(f"tris_envs_{name}")
    assert loaded.core.options() == core.options()
    assert loaded.num_distinct_actions() == core.info.num_actions
    assert loaded.max_game_length() == core.info.max_moves
    assert loaded.observation_tensor_shape() == list(core.info.observation_shape)


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_openspiel_random_sim_test(name: str, options: dict) -> None:
    game = openspiel.load(name, **options)
    assert game.core.options() == make_game(name, **options).options()
    sims = 1 if name == "tritoc" else 2             # Tritoc's games run to 500 plies
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_parameters_in_the_game_string() -> None:
    game = pyspiel.load_game("tris_envs_tris2(max_side=4)")
    assert game.core.max_side == 4
    assert pyspiel.load_game("tris_envs_tris2").core.max_side is None
    gates = ("4,1,S", "0,2,N", "4,3,S", "0,2,N")
    doppia = pyspiel.load_game("tris_envs_doppia_scelta", {"gates": " ".join(gates)})
    assert doppia.core.gates == gates
    assert openspiel.load("doppia_scelta", gates=gates).core.gates == gates
    numbers = GAMES["tritoc"].option_sets[3]["layout"]
    layout = openspiel.parameters("tritoc", layout=numbers)["layout"]
    assert len(layout) == 81
    assert pyspiel.load_game(f"tris_envs_tritoc(layout={layout})").core.layout == numbers


@pytest.mark.parametrize(("text", "error", "says"), [
    ("tris_envs_tris2(max_side=2)", ValueError, "max_side=2 must be None"),
    ("tris_envs_tris2(setup=placement,fair=True)", ValueError, "needs setup='random'"),
    ("tris_envs_tant_fant(stalemate=win)", ValueError, "'draw', 'loss'"),
    ("tris_envs_tritoc(layout=spiral)", ValueError, "'ordered', 'magic', 'random'"),
    ("tris_envs_tris2(max_sid=4)", pyspiel.SpielError, "Unknown parameter 'max_sid'"),
    ("tris_envs_tris1(max_moves=x)", pyspiel.SpielError, "Wrong type for parameter"),
])
def test_a_bad_parameter_is_a_clear_error(text: str, error: type, says: str) -> None:
    with pytest.raises(error, match=says):
        pyspiel.load_game(text)


def test_the_game_types() -> None:
    tris1 = pyspiel.load_game("tris_envs_tris1").get_type()
    assert tris1.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert tris1.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert tris1.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert tris1.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    for text in ("tris_envs_tris2", "tris_envs_doppia_scelta", "tris_envs_tritoc"):
        assert (pyspiel.load_game(text).get_type().chance_mode
                == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC)
    for text in ("tris_envs_tris2(setup=placement)", "tris_envs_doppia_scelta(setup=coloring)"):
        assert (pyspiel.load_game(text).get_type().chance_mode
                == pyspiel.GameType.ChanceMode.DETERMINISTIC)
    points = pyspiel.load_game("tris_envs_tritoc(reward=points)")
    assert points.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert points.get_type().reward_model == pyspiel.GameType.RewardModel.REWARDS


def sample_setup(state, rng: np.random.Generator) -> None:
    """Play the setup's chance nodes as the core draws them: ``rng.integers(n)``."""
    while state.is_chance_node() and state.game_state is None:
        outcomes = state.chance_outcomes()
        assert [p for _, p in outcomes] == [1 / len(outcomes)] * len(outcomes)
        state.apply_action(int(rng.integers(len(outcomes))))


@pytest.mark.parametrize("options", [{}, {"max_side": 4}, {"fair": True}],
                         ids=["random", "max_side=4", "fair"])
def test_tris2_setup_chance_nodes_are_the_cores_draws(options: dict) -> None:
    game = openspiel.load("tris2", **options)
    for seed in range(4):
        state = game.new_initial_state()
        sample_setup(state, np.random.default_rng(seed))
        assert state.game_state == game.core.initial_state(np.random.default_rng(seed))
        assert state.current_player() == 0


def test_tritoc_random_layout_is_one_uniform_permutation_per_field() -> None:
    game = openspiel.load("tritoc", layout="random")
    state = game.new_initial_state()
    sizes = []
    rng = np.random.default_rng(0)
    while state.game_state is None:
        sizes.append(len(state.chance_outcomes()))
        state.apply_action(int(rng.integers(sizes[-1])))
    assert sizes == list(range(9, 1, -1)) * 9
    core = game.core
    assert core.current_player(state.game_state) == CHANCE          # the dice come next
    assert state.chance_outcomes() == core.chance_outcomes(state.game_state)


def test_doppia_scelta_setup_redraws_boards_with_a_path() -> None:
    game = openspiel.load("doppia_scelta")
    rng = np.random.default_rng(3)
    for _ in range(5):
        state = game.new_initial_state()
        draws = 0
        while state.game_state is None:
            assert len(state.chance_outcomes()) == 3
            state.apply_action(int(rng.integers(3)))
            draws += 1
        assert draws % 25 == 0
        board = game.core.to_notation(state.game_state).split()[0]
        assert game.core.path_owner(board.replace("/", "")) is None


def lockstep(name: str, options: dict, seed: int) -> int:
    """Play one random game on the AEC env and the OpenSpiel game side by side; return
    the plies played. The env starts from the OpenSpiel game's start (after its setup);
    at dice the OpenSpiel game takes the outcome the env rolled."""
    game = openspiel.load(name, **options)
    core = game.core
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    sample_setup(state, rng)
    env = importlib.import_module(GAMES[name].env_module).raw_env(**options)
    env.reset(seed=seed, options={"position": core.to_notation(state.game_state)})

    def follow_dice() -> None:
        """Take the outcomes the env rolled (the outcomes are the core's)."""
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes == core.chance_outcomes(state.game_state)
            match = [o for o, _ in outcomes if core.apply(state.game_state, o) == env.game_state]
            assert len(match) == 1
            state.apply_action(match[0])

    follow_dice()
    totals = np.zeros(2)
    plies = 0
    while True:
        done = all(env.terminations.values()) or all(env.truncations.values())
        assert state.is_terminal() == done
        if done and core.current_player(state.game_state) == CHANCE:
            # cut at max_moves before the dice; the env rolled them, then truncated
            assert env.game_state in [core.apply(state.game_state, o)
                                      for o, _ in core.chance_outcomes(state.game_state)]
            break
        assert env.game_state == state.game_state
        for player, agent in enumerate(env.possible_agents):
            observation = np.reshape(state.observation_tensor(player),
                                     core.info.observation_shape)
            assert np.array_equal(observation, env.observe(agent)["observation"])
        if done:
            break
        player = state.current_player()
        assert env.agent_selection == env.possible_agents[player]
        mask = env.observe(env.agent_selection)["action_mask"]
        legal = state.legal_actions()
        assert legal == list(np.flatnonzero(mask))
        assert state.legal_actions_mask() == list(mask)
        action = legal[int(rng.integers(len(legal)))]
        assert state.action_to_string(player, action) == core.action_name(state.game_state,
                                                                          action)
        env.step(action)
        state.apply_action(action)
        follow_dice()
        paid = np.array(state.rewards())
        totals += paid
        plies += 1
        assert [env.rewards[agent] for agent in env.possible_agents] == pytest.approx(paid)
    assert state.returns() == pytest.approx(totals)
    truncated = core.current_player(state.game_state) != TERMINAL
    assert all(env.truncations.values()) == truncated
    assert plies <= core.info.max_moves
    assert plies == core.info.max_moves or not truncated
    return plies


@pytest.mark.parametrize(("name", "options"), CASES, ids=IDS)
def test_lockstep_with_the_environment(name: str, options: dict) -> None:
    plies = [lockstep(name, options, seed) for seed in range(2)]
    assert min(plies) > 0


@pytest.mark.parametrize("name", ["tris2", "tritoc", "doppia_scelta", "tant_fant"])
def test_lockstep_through_truncation(name: str) -> None:
    plies = [lockstep(name, {"max_moves": 7}, seed) for seed in range(4)]
    assert 7 in plies and max(plies) == 7


def play_randomly(state, plies: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if state.is_terminal():
            return
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probabilities)))
        else:
            legal = state.legal_actions()
            state.apply_action(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize(("text", "plies"), [
    ("tris_envs_tris2", 1), ("tris_envs_tris2", 30), ("tris_envs_tritoc(layout=random)", 40),
    ("tris_envs_tritoc", 150), ("tris_envs_doppia_scelta(setup=coloring)", 30),
    ("tris_envs_tant_fant(repetition_draw=True)", 40)])
def test_serialization_round_trips(text: str, plies: int) -> None:
    game = pyspiel.load_game(text)
    state = game.new_initial_state()
    play_randomly(state, plies, seed=plies)
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert again.game_state == state.game_state
    assert again.plies == state.plies
    assert again.history() == state.history()
    assert again.returns() == state.returns()
    assert again.is_terminal() == state.is_terminal()
    if not state.is_terminal():
        assert again.legal_actions() == state.legal_actions()


@pytest.mark.parametrize("name, options", CASES, ids=IDS)
def test_string_to_action_reads_action_to_string_back(name: str, options: dict) -> None:
    """Every legal move of random positions, and some chance outcomes, by name and back; a
    player's move read loosely as the core's parse_action reads it, as the core names it."""
    game = openspiel.load(name, **options)
    rng = np.random.default_rng(5)
    for _ in range(2):
        state = game.new_initial_state()
        plies = 0
        while not state.is_terminal() and plies < 12:
            if state.is_chance_node():
                outcomes = [o for o, _ in state.chance_outcomes()]
                for outcome in outcomes[:3]:
                    text = state.action_to_string(pyspiel.PlayerId.CHANCE, outcome)
                    assert state.string_to_action(text) == outcome
                state.apply_action(outcomes[int(rng.integers(len(outcomes)))])
                continue
            player = state.current_player()
            legal = state.legal_actions()
            for action in legal:
                text = state.action_to_string(player, action)
                assert text == game.core.action_name(state.game_state, action)
                assert state.string_to_action(text) == action
                assert state.string_to_action(player, f" {text.upper()} ") == action
            state.apply_action(legal[int(rng.integers(len(legal)))])
            plies += 1


def test_string_to_action_refuses_with_the_cores_reason() -> None:
    state = pyspiel.load_game("tris_envs_tant_fant").new_initial_state()
    with pytest.raises(pyspiel.SpielError, match="a1-a3 is illegal: a1 and a3 are not adjacent"):
        state.string_to_action("a1-a3")
    with pytest.raises(pyspiel.SpielError, match="legal moves: a1-a2; a1-b2"):
        state.string_to_action("castle")
    with pytest.raises(pyspiel.SpielError, match="no chance outcome is named 'roll 13'"):
        pyspiel.load_game("tris_envs_tritoc").new_initial_state().string_to_action("roll 13")


def test_state_from_a_position_string() -> None:
    game = pyspiel.load_game("tris_envs_tant_fant")
    state = game.state_from_position("BBB/.W./W.W b")
    assert str(state) == game.core.render_text(game.core.from_notation("BBB/.W./W.W b"))
    assert state.current_player() == 1
    assert state.observation_string(0) == "BBB/.W./W.W b"
    near_the_end = game.state_from_position("BBB/.W./W.W b", plies=99)
    near_the_end.apply_action(near_the_end.legal_actions()[0])
    assert near_the_end.is_terminal() and near_the_end.returns() == [0.0, 0.0]


def test_tritoc_chance_nodes_are_the_cores() -> None:
    game = pyspiel.load_game("tris_envs_tritoc(dice=equal)")
    state = game.new_initial_state()
    assert state.is_chance_node()
    assert state.chance_outcomes() == game.core.chance_outcomes(state.game_state)
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    names = [state.action_to_string(pyspiel.PlayerId.CHANCE, o)
             for o, _ in state.chance_outcomes()]
    assert names == ["roll: no playable sum, pass"] + [f"roll {s}" for s in range(3, 12)]


def test_openspiel_agent_specs() -> None:
    agent = make_agent("openspiel-mcts:50", np.random.default_rng(0))
    assert isinstance(agent, openspiel.OpenSpielAgent) and agent.name == "openspiel-mcts:50"
    assert make_agent("openspiel-minimax:3").name == "openspiel-minimax:3"
    for bad in ("openspiel-mcts", "openspiel-mcts:0", "openspiel-mcts:x", "openspiel-az:5"):
        with pytest.raises(ValueError, match="openspiel-mcts:N, "):
            make_agent(bad)


def test_openspiel_bots_play_in_our_harness() -> None:
    exact = play_match(make_game("tris1"), "openspiel-minimax:9", "solver", 2, seed=0)
    assert exact.by_seat == ((0, 1, 0), (0, 1, 0))
    search = play_match(make_game("tris1"), "openspiel-mcts:200", "random", 4, seed=0)
    assert sum(losses for _, _, losses in search.by_seat) == 0
    rng = np.random.default_rng(1)
    for name, spec in (("tritoc", "openspiel-minimax:1"), ("tris2", "openspiel-mcts:10")):
        core = make_game(name)
        state = resolve_chance(core, core.initial_state(rng), rng)
        assert make_agent(spec, rng).act(core, state) in core.legal_actions(state)


def test_our_agents_play_inside_evaluate_bots() -> None:
    game = pyspiel.load_game("tris_envs_tris1")
    solver = openspiel.AgentBot(make_agent("solver", np.random.default_rng(0)))
    for seed in range(4):
        opponent = uniform_random.UniformRandomBot(1 - seed % 2, np.random.RandomState(seed))
        bots = [solver, opponent] if seed % 2 == 0 else [opponent, solver]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots,
                                              np.random.RandomState(seed))
        assert returns[seed % 2] >= 0
    dice = pyspiel.load_game("tris_envs_tris2(max_moves=30)")
    greedy = openspiel.AgentBot(make_agent("greedy", np.random.default_rng(0)))
    random_bot = uniform_random.UniformRandomBot(1, np.random.RandomState(0))
    returns = evaluate_bots.evaluate_bots(dice.new_initial_state(), [greedy, random_bot],
                                          np.random.RandomState(0))
    assert sum(returns) == 0


def test_openspiel_alpha_beta_agrees_with_our_solver_on_tris1() -> None:
    game = openspiel.load("tris1")
    core = game.core
    solution = solve(core, core.initial_state())
    value, _ = minimax.alpha_beta_search(game)
    assert value == solution.value(core.initial_state()) == 0
    for position in ("XX./OO./...", "XO./.X./..O", "X../.O./..."):
        state = game.state_from_position(position)
        value, _ = minimax.alpha_beta_search(game, state)
        assert value == solution.value(core.from_notation(position))


TANT_FANT = GAMES["tant_fant"].option_sets


@pytest.mark.slow           # 5-15 s each (Tris 1's exact check above runs by default)
@pytest.mark.parametrize("options", TANT_FANT, ids=[str(i) for i in range(len(TANT_FANT))])
def test_openspiel_value_iteration_agrees_with_our_solver_on_tant_fant(options: dict) -> None:
    """Over the position graph (``cyclic_game``): ``max_moves`` above the number of
    positions, so no path OpenSpiel walks reaches the truncation."""
    value_iteration = pytest.importorskip("open_spiel.python.algorithms.value_iteration",
                                          reason="OpenSpiel's value iteration needs cvxpy")
    from open_spiel.python.algorithms import get_all_states

    game = openspiel.load("tant_fant", max_moves=10_000, **options)
    plain, root, _ = game.core.solver_root(game.core.initial_state())
    solution = solve(plain, root)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)           # OpenSpiel walks the graph depth first
    try:
        values = value_iteration.value_iteration(game, -1, 1e-6, cyclic_game=True)
        states = get_all_states.get_all_states(game, -1, True, False, to_string=str,
                                               stop_if_encountered=True)
    finally:
        sys.setrecursionlimit(limit)
    start = game.new_initial_state()
    assert values[str(start)] == solution.value(root) == 0
    if not options["repetition_draw"]:     # else a state's string omits its history
        assert len(states) == len(solution)
        assert all(values[key] == solution.value(state.game_state)
                   for key, state in states.items())
        assert sum(values[key] != 0 for key in states) > len(states) // 4


@pytest.mark.slow           # about 10 s alone, a minute on the loaded 2-core machine
def test_example_openspiel_bots() -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "openspiel_bots.py"
    completed = subprocess.run([sys.executable, str(example), "--games", "2",
                                "--simulations", "20"], capture_output=True, text=True,
                               timeout=600)
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    assert "tris_envs_tris2(fair=False,max_moves=200,max_side=4,setup=random)" in out
    assert "setup draw" in out and "tant_fant: openspiel-mcts:20 vs mcts:20: " in out
    assert "tris1 start: OpenSpiel alpha-beta +0, our solver +0" in out
    assert "agree on 3,080 of 3,080 positions; start +0" in out


def test_bench_mcts_sets_ours_beside_openspiels_bots(capsys: pytest.CaptureFixture) -> None:
    from tris_envs.cli import main

    main(["bench", "--mcts", "--env", "tris1_v0", "--rounds", "1", "--mcts-simulations",
          "100", "--openspiel-simulations", "20"])
    out = capsys.readouterr().out
    assert "| tris1_v0 (tris_envs MCTSAgent) |" in out
    assert "| tic_tac_toe (OpenSpiel C++ MCTSBot, upper anchor) |" in out
    assert "MCTS like for like: the same start positions, 20 simulations" in out
    row = next(line for line in out.splitlines() if line.startswith("| tris1_v0 | "))
    ours, spiel, ratio = (float(cell.strip().rstrip("×").replace(",", ""))
                          for cell in row.split("|")[2:5])
    assert ratio == pytest.approx(ours / spiel, rel=0.05)
    assert "| environment |" not in out          # --mcts: the MCTS section only


SHIMMY_CASES = [case if case[1] == GAMES[case[0]].option_sets[0]       # one per game by default
                else pytest.param(*case, marks=pytest.mark.slow) for case in CASES]


@pytest.mark.parametrize(("name", "options"), SHIMMY_CASES, ids=IDS)
def test_shimmy_openspiel_compatibility_passes_pettingzoo_api_test(name: str,
                                                                  options: dict) -> None:
    """Shimmy's PettingZoo view of OpenSpiel games (chance nodes played inside it)."""
    shimmy = pytest.importorskip("shimmy")
    from pettingzoo.test import api_test

    env = shimmy.OpenSpielCompatibilityV0(env=openspiel.load(name, **options))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=100)
    expected = {"Observation numpy array is all zeros.",  # Tris 1's empty start board
                # Shimmy declares Box(-inf, inf) observation spaces for every OpenSpiel game
                "Agent's minimum observation space value is -infinity. This is probably too low.",
                "Agent's maximum observation space value is infinity. This is probably too high"}
    unexpected = {str(w.message) for w in caught if w.category is UserWarning} - expected
    assert not unexpected
