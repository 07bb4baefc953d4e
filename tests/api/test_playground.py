"""The playground at ``/``, in a real headless browser (Debian's chromium, driven by Selenium through
chromium-driver): a whole short game of every game played by clicking the board against the service, the DOM
checked against the service's own answers, undo by replay, a pasted position loaded, the service playing
itself, and every game's SVG loaded as an image. Screenshots go to build/playground/."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import tempfile
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.games import BY_ID, REGISTRATIONS
from service.games.checks import Playground
from tests.api.conftest import http

SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "playground"
# Flags that keep chromium offline, quiet and sandbox-free (CI runs as root).
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1000",
)
WAIT_S = 60

GAMES = [game.id for game in REGISTRATIONS]


def settings(game: str) -> Playground:
    """How the page plays the game (its registration's ``checks.playground``: small options, the level the service
    plays, and a think time where the level searches); a game without them skips, saying so."""
    found = BY_ID[game].checks.playground
    if found is None:
        pytest.skip(f"{game} declares no playground settings (its checks.playground)")
    return found


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver_path:
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed: `make install` installs them when run as "
            "root (as CI is); elsewhere: apt-get install chromium chromium-driver"
        )
    os.environ["SE_OFFLINE"] = "true"  # Selenium Manager must not fetch anything: the browser is the system's
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="gamerules-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_script_timeout(WAIT_S)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def wait(driver: Any, condition: Any, what: str) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    def check(_: Any) -> Any:
        error = driver.find_element("id", "error")
        assert not error.is_displayed(), f"the page shows an error while waiting for {what}: {error.text}"
        return condition()

    return WebDriverWait(driver, WAIT_S, poll_frequency=0.05).until(check, f"waited {WAIT_S} s for {what}")


def page(driver: Any, gateway_url: str) -> None:
    driver.get(gateway_url + "/")
    wait(driver, lambda: driver.execute_script("return document.body.dataset.ready === 'true'"), "the page")


def set_up(driver: Any, game: str, seat1: str, seat2: str, think: int | None = None) -> None:
    """Choose the game, its small options, the level, the think time and who plays, then start a new game."""
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element("id", "game")).select_by_value(game)
    wait(driver, lambda: driver.find_elements("css selector", f"#board[data-game='{game}'] svg"), f"the {game} board")
    played = settings(game)
    for name, value in played.options.items():
        field = driver.find_element("id", f"option-{name}")
        if field.tag_name == "select":
            Select(field).select_by_value(str(value))
        else:
            field.clear()
            field.send_keys(str(value))
    Select(driver.find_element("id", "level")).select_by_value(played.level)
    field = driver.find_element("id", "think")
    field.clear()
    think_ms = played.think_ms if think is None else think
    if think_ms:
        field.send_keys(str(think_ms))
    Select(driver.find_element("id", "seat1")).select_by_value(seat1)
    Select(driver.find_element("id", "seat2")).select_by_value(seat2)
    driver.find_element("id", "new-game").click()


def snapshot(driver: Any) -> dict[str, Any]:
    return driver.execute_script(
        """
        const board = document.getElementById('board');
        return {
          ready: board.dataset.ready === undefined ? -1 : Number(board.dataset.ready),
          moves: [...document.querySelectorAll('#moves li')].map((li) => li.textContent),
          toMove: Number(document.getElementById('status').dataset.toMove || -1),
          over: !document.getElementById('result').hidden,
          clickable: board.querySelectorAll('[data-move], g.cell.legal').length,
          thinking: document.getElementById('thinking').textContent,
        };
        """
    )


def human_turn_or_end(driver: Any) -> dict[str, Any] | None:
    state = snapshot(driver)
    settled = state["ready"] == len(state["moves"])
    if settled and (state["over"] or (state["toMove"] == 1 and state["clickable"])):
        return state
    return None


def click_a_move(driver: Any, game: str, turn: int) -> None:
    """Seat 1's move, by clicking the board: a marked move (Strands: cells of one label, then confirm)."""
    board = driver.find_element("id", "board")
    if game == "strands":
        cells = board.find_elements("css selector", "g.cell.legal")
        label = cells[turn % len(cells)].get_attribute("data-label")
        same = [cell for cell in cells if cell.get_attribute("data-label") == label]
        most = int(same[0].get_attribute("data-max"))
        for cell in same[: most + 1]:  # one too many: the page keeps the last `most`
            cell.click()
        chosen = driver.find_element("id", "selection").text.split(", ")
        picked = [cell.get_attribute("data-cell") for cell in same[: most + 1]]
        assert chosen == picked[-most:], (chosen, picked)
        selected = board.find_elements("css selector", "g.cell.selected")
        assert sorted(cell.get_attribute("data-cell") for cell in selected) == sorted(chosen)
        driver.find_element("id", "confirm").click()
        return
    moves = board.find_elements("css selector", "[data-move]")
    moves[turn % len(moves)].click()


def play_to_the_end(driver: Any, game: str) -> dict[str, Any]:
    turn = 0
    while True:
        state = wait(driver, lambda: human_turn_or_end(driver), f"seat 1's turn or the end of {game}")
        if state["over"]:
            return state
        click_a_move(driver, game, turn)
        count = len(state["moves"])
        wait(driver, lambda c=count: len(snapshot(driver)["moves"]) > c, "the move to be played")
        turn += 1


# A whole game per game is some 9 s in the browser: the fast suite plays the games whose playground settings say
# so (``fast``: the board games of two kinds, a grid and pits); ``pytest -m slow`` plays them all.
WHOLE_GAMES = [
    game
    if (found := BY_ID[game].checks.playground) is not None and found.fast
    else pytest.param(game, marks=pytest.mark.slow)
    for game in sorted(GAMES)
]


@pytest.mark.parametrize("game", WHOLE_GAMES)
def test_a_whole_game_against_the_service(browser, gateway_url, game):
    page(browser, gateway_url)
    set_up(browser, game, "human", "service")
    state = play_to_the_end(browser, game)
    browser.save_screenshot(str(SCREENSHOTS / f"{game}.png"))

    # The page's notation is the final position, and the service agrees the game is over, for the reason shown.
    notation = browser.find_element("id", "notation").get_attribute("value")
    status, score, _ = http(gateway_url, f"/v1/games/{game}:score", {"position": {"notation": notation}})
    assert status == 200 and score["gameOver"]
    result = browser.find_element("id", "result")
    assert result.get_attribute("data-reason") == score["reason"] and score["reason"] in result.text
    assert result.get_attribute("data-winner") == str(score.get("winner", 0))
    # Replaying the listed moves from the start gives that position: the list is the game.
    start = browser.find_element("id", "notation").get_attribute("data-start")
    moves = [{"notation": move} for move in state["moves"]]
    status, replay, _ = http(
        gateway_url, f"/v1/games/{game}:applyMoves", {"position": {"notation": start}, "moves": moves}
    )
    assert status == 200 and replay["position"]["notation"] == notation and len(moves) >= 2
    # The board is the image of that position; the last move's events are listed; the engine's analysis ended
    # with the move it played.
    assert browser.find_elements("css selector", "#board svg title")
    assert browser.find_elements("css selector", "#events li[data-type='game_over']")
    finals = browser.find_elements("css selector", "#analysis li.final")
    assert finals and "stopped:" in finals[-1].text


def test_the_analysis_streams_while_the_service_thinks(browser, gateway_url):
    page(browser, gateway_url)
    # The service opens, thinking long enough for several iterations however busy the host: its analysis shows.
    set_up(browser, "kalah", "service", "human", think=500)
    # Read at once when the first answer arrives (a Kalah extra turn starts a new analysis right after it).
    # The analysis, the scored moves' lines and the win bar read in one go: the next analysis clears them.
    script = """
        const items = [...document.querySelectorAll('#analysis li')];
        if (!items.some((item) => item.classList.contains('final'))) return null;
        const bar = document.getElementById('win-bar');
        return [
            items.map((item) => item.textContent),
            [...document.querySelectorAll('#lines li')].map((item) => item.textContent),
            bar.hidden ? null : bar.dataset.chance,
        ];
    """
    lines, scored, chance = wait(browser, lambda: browser.execute_script(script), "the service's first move")
    depths = [int(line.split()[1]) for line in lines]
    assert len(lines) >= 3 and depths[:-1] == sorted(depths[:-1]) and depths[0] == 1  # one line per iteration
    assert lines[-1].endswith(("stopped: time", "stopped: solved", "stopped: depth", "stopped: nodes"))
    assert all(" · win " in line and "%" in line for line in lines)
    # The win bar shows the mover's chance; each scored move is listed with its own line, starting with it.
    assert chance is not None and 0 <= float(chance) <= 1
    assert scored and all(text.split(":")[1].split()[0] == text.split()[0] for text in scored)


def test_undo_replays_one_turn_fewer_and_a_pasted_position_loads(browser, gateway_url):
    page(browser, gateway_url)
    set_up(browser, "reversi", "human", "service")
    for turn in range(2):
        wait(browser, lambda: human_turn_or_end(browser), "seat 1's turn")
        count = len(snapshot(browser)["moves"])
        click_a_move(browser, "reversi", turn)
        wait(browser, lambda c=count: len(snapshot(browser)["moves"]) > c, "the move")
    state = wait(browser, lambda: human_turn_or_end(browser), "seat 1's turn")
    before = state["moves"]
    browser.find_element("id", "undo").click()
    # Back to seat 1's previous turn: its move and the service's answer are gone, replayed from the start.
    state = wait(browser, lambda: (s := human_turn_or_end(browser)) and len(s["moves"]) < len(before) and s, "undo")
    assert state["moves"] == before[: len(state["moves"])] and len(before) - len(state["moves"]) == 2
    notation = browser.find_element("id", "notation").get_attribute("value")
    status, replay, _ = http(
        gateway_url,
        "/v1/games/reversi:applyMoves",
        {"position": {"notation": "..../.WB./.BW./.... 1 black=1"}, "moves": [{"notation": m} for m in state["moves"]]},
    )
    assert status == 200 and replay["position"]["notation"] == notation

    from selenium.webdriver.support.ui import Select, WebDriverWait

    Select(browser.find_element("id", "seat2")).select_by_value("human")  # the loaded position stays put
    wait(browser, lambda: human_turn_or_end(browser), "the page after the change of seats")
    pasted = "..../.BBB/.BW./.... 2 black=1"
    area = browser.find_element("id", "notation")
    area.clear()
    area.send_keys(pasted)
    browser.find_element("id", "load").click()
    wait(browser, lambda: snapshot(browser)["toMove"] == 2 and snapshot(browser)["moves"] == [], "the pasted position")
    # The board is drawn after the state changes (its image is fetched): wait for it, then check it.
    wait(browser, lambda: len(browser.find_elements("css selector", "#board circle.disc")) == 5, "the pasted board")
    discs = browser.find_elements("css selector", "#board circle.disc")
    assert len(discs) == 5 and browser.find_element("id", "notation").get_attribute("value") == pasted

    area.clear()
    area.send_keys("not a position")
    browser.find_element("id", "load").click()
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element("id", "error").is_displayed(), "the error")
    assert "position.notation" in browser.find_element("id", "error").text


def test_the_service_plays_itself(browser, gateway_url):
    page(browser, gateway_url)
    set_up(browser, "dots-and-boxes", "service", "service")
    wait(browser, lambda: snapshot(browser)["over"], "the end of a game the service plays alone")
    assert len(snapshot(browser)["moves"]) == 7  # a 1x2 board has 7 lines, every one drawn
    browser.save_screenshot(str(SCREENSHOTS / "dots-and-boxes-self-play.png"))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_games_svg_loads_as_an_image(browser, gateway_url, game):
    page(browser, gateway_url)
    _, start, _ = http(gateway_url, f"/v1/games/{game}:newGame", {"seed": "3"})
    query = urllib.parse.urlencode({"position.notation": start["position"]["notation"], "showLegalMoves": "true"})
    url = f"/v1/games/{game}:render?{query}"
    size = browser.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const image = new Image();
        image.onload = () => done([image.naturalWidth, image.naturalHeight]);
        image.onerror = () => done(null);
        image.src = arguments[0];
        """,
        url,
    )
    assert size is not None and size[0] == 480 and size[1] > 100
    browser.get(gateway_url + url)  # opened on its own: a document whose root is the svg
    assert browser.execute_script("return document.documentElement.localName") == "svg"
    browser.save_screenshot(str(SCREENSHOTS / f"{game}-image.png"))


@pytest.fixture(scope="module")
def keyed_gateway() -> Iterator[str]:
    """A gateway and a server that both want an API key."""
    from service.api import auth
    from service.api.rpc.server import ServerConfig, create_server
    from tests.api.conftest import QUIET, free_port, gateway_command, wait_http

    running = create_server(ServerConfig(api_keys=auth.ApiKeys(["playground-key"])), address="127.0.0.1:0")
    port = free_port()
    env = {**os.environ, **QUIET, "GAMERULES_API_KEYS": "playground-key"}
    process = subprocess.Popen(gateway_command(port, f"127.0.0.1:{running.port}"), env=env)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=20)
        running.shutdown(1)


def test_a_service_that_wants_an_api_key(browser, keyed_gateway):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(keyed_gateway + "/")  # the page itself is open; its calls are refused until a key is given
    WebDriverWait(browser, WAIT_S).until(lambda d: d.find_element("id", "error").is_displayed(), "the refusal")
    assert "API key" in browser.find_element("id", "error").text
    key = browser.find_element("id", "api-key")
    key.send_keys("playground-key")
    browser.find_element("id", "seed").click()  # leaving the field gives the key to the page
    # (The refusal stays on the page until the games are listed: not the helper's wait, which fails on errors.)
    WebDriverWait(browser, WAIT_S).until(
        lambda d: d.find_elements("css selector", "#board[data-game='reversi'] [data-move]"), "the board"
    )
    assert len(browser.find_elements("css selector", "#board [data-move]")) == 4
    assert not browser.find_element("id", "error").is_displayed()


def test_the_game_just_played_is_reviewed_charted_and_each_ply_shows_its_board(browser, gateway_url):
    from tests.api.test_analyze import post_stream

    page(browser, gateway_url)
    set_up(browser, "reversi", "human", "service")
    state = play_to_the_end(browser, "reversi")
    browser.find_element("id", "think").clear()  # the level's own limits: the same review as the API's below
    browser.find_element("id", "review").click()
    done = "return document.getElementById('review-status').dataset.done === 'true'"
    wait(browser, lambda: browser.execute_script(done), "the review")
    items = browser.find_elements("css selector", "#review-plies li")
    shown = [(item.get_attribute("data-ply"), item.get_attribute("data-judgement")) for item in items]
    # The page shows the service's own review, ply by ply.
    start = browser.find_element("id", "notation").get_attribute("data-start")
    body = {"position": {"notation": start}, "moves": [{"notation": move} for move in state["moves"]]}
    status, _, text = post_stream(gateway_url, "/v1/games/reversi:review", body)
    results = [json.loads(line)["result"] for line in text.splitlines()]
    plies = [result["ply"] for result in results[1:-1]]
    assert status == 200 and shown == [(str(ply.get("ply", 0)), ply["judgement"]) for ply in plies]
    # The chart has a point per ply the service gave a win chance; a click on one shows that ply's board and
    # judgement.
    points = browser.find_elements("css selector", "#review-chart circle.point")
    assert len(points) == sum("winChanceAfter" in ply for ply in plies) > 0
    points[0].click()
    wait(browser, lambda: browser.find_elements("css selector", "#review-board svg"), "the reviewed ply's board")
    detail = browser.find_element("id", "review-text").text
    first = points[0].get_attribute("data-ply")
    assert detail.startswith(f"{int(first) + 1}. ") and plies[int(first)]["judgement"] in detail
    seats = browser.find_elements("css selector", "#review-summary li")
    assert [seat.get_attribute("data-seat") for seat in seats] == ["1", "2"]
    summary = results[-1]["summary"]["seats"]
    assert [seat.get_attribute("data-accuracy") for seat in seats] == [str(s.get("accuracy", "")) for s in summary]
    # Each seat's performance rating with its interval, as the service gave it (none where it gave none).
    for seat, given in zip(seats, summary, strict=True):
        shown = [seat.get_attribute(f"data-{name}") for name in ("rating", "rating-low", "rating-high")]
        assert shown == [str(given.get(key, "")) for key in ("rating", "ratingLow", "ratingHigh")]
        assert ("performance rating about" in seat.text) == ("rating" in given)
    assert "by the judge" in browser.find_element("id", "review-status").text
    browser.save_screenshot(str(SCREENSHOTS / "reversi-review.png"))
    # Moves pasted in are reviewed from the position's start instead.
    area = browser.find_element("id", "review-moves")
    area.send_keys(" ".join(state["moves"][:2]))
    browser.find_element("id", "review").click()
    wait(browser, lambda: browser.execute_script(done), "the review of the pasted moves")
    assert len(browser.find_elements("css selector", "#review-plies li")) == 2


def test_the_bot_is_picked_by_rating(browser, gateway_url):
    """The picker lists the ladder's rungs by rating, weakest first ("about 1350 (ladder-5)"), then the other levels;
    a rung is asked for by its rating, and the service's answer names the rung that played."""
    from selenium.webdriver.support.ui import Select

    from service.games import LEVELS

    game = "kalah"
    levels = LEVELS[game]
    page(browser, gateway_url)
    Select(browser.find_element("id", "game")).select_by_value(game)
    wait(browser, lambda: browser.find_elements("css selector", f"#board[data-game='{game}'] svg"), "the board")
    options = browser.execute_script(
        """
        return [...document.querySelectorAll('#level optgroup')].map((group) => [group.label,
          [...group.querySelectorAll('option')].map((o) => [o.value, o.textContent, o.dataset.rating ?? null])]);
        """
    )
    groups = dict((label, items) for label, items in options)
    rungs = groups["Rated ladder"]
    rated = {name: found for name in levels.ladder if (found := levels.rating(name)) is not None}
    if not rated:  # not measured yet: the rungs in ladder order, said to be unrated, asked for by name
        assert [value for value, _, _ in rungs] == list(levels.ladder)
        assert all(text == f"{value} (not rated yet)" and rating is None for value, text, rating in rungs)
        pytest.skip(f"{game}'s ladder is not measured: nothing is picked by rating")
    assert sorted(value for value, _, _ in rungs) == sorted(levels.ladder)
    assert [rated[value].value for value, _, _ in rungs] == sorted(found.value for found in rated.values())
    for value, text, rating in rungs:
        # Asked by its rating, unless that whole number would choose another rung (then by its name).
        whole = math.floor(rated[value].value + 0.5)  # as the page rounds (Math.round: halves up)
        assert text == f"about {whole} ({value})"
        assert rating == (str(whole) if levels.rated(whole) == value else None)
    # The other levels by name (with their rating where measured), never by rating: it would choose a rung.
    off_ladder = [level.name for level in levels.levels if level.name not in levels.ladder]
    assert [value for value, _, _ in groups["Other levels"]] == off_ladder
    assert all(rating is None for _, _, rating in groups["Other levels"])

    # The weakest rung plays the first move; the page asks by its rating, and shows the rung that answered.
    weakest, _, rating = rungs[0]
    browser.execute_script(
        """
        window.sent = [];
        const original = window.fetch;
        window.fetch = (url, init) => {
          if (String(url).endsWith(':analyze')) window.sent.push(JSON.parse(init.body));
          return original(url, init);
        };
        """
    )
    set_up(browser, game, "service", "human", think=0)
    Select(browser.find_element("id", "level")).select_by_value(weakest)
    browser.find_element("id", "new-game").click()
    played = "return document.getElementById('thinking').dataset.level || null"
    assert wait(browser, lambda: browser.execute_script(played), "the service's move") == weakest
    sent = browser.execute_script("return window.sent")
    assert sent and sent[-1]["rating"] == int(rating) and "level" not in sent[-1]
    assert browser.find_element("id", "thinking").text.endswith(f"({weakest})")
