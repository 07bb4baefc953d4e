"""Board images: every game's SVG parsed back and checked against the position it draws (discs, pits and
seed counts, lines and boxes, fields and rocks, cells and stones), the legal moves it marks against
``legal_moves`` over whole random games, self-contained (no script, no reference out), deterministic, and
bad options refused naming the option."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

import pytest

from service import core
from service.games import BY_ID, GAMES
from service.render import MAX_SIZE, MIN_SIZE, THEMES, RenderOptions, render

NS = "{http://www.w3.org/2000/svg}"
REVERSI_START = "......../......../......../...WB.../...BW.../......../......../........ 1 black=1"


def start(game_id: str, **options: Any) -> Any:
    game = GAMES[game_id]
    small = BY_ID[game_id].checks.small_options  # a small board: whole games stay quick
    return game.new_position({**game.default_options(), **small, **options}, "7")


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def elements(root: ET.Element, tag: str, cls: str | None = None) -> list[ET.Element]:
    found = root.iter(NS + tag)
    return [e for e in found if cls is None or cls in (e.get("class") or "").split()]


def marked_moves(root: ET.Element) -> set[str]:
    return {e.get("data-move") for e in root.iter() if e.get("data-move")}  # type: ignore[misc]


def texts(root: ET.Element, cls: str) -> list[str]:
    return [e.text or "" for e in elements(root, "text", cls)]


def assert_self_contained(root: ET.Element) -> None:
    for element in root.iter():
        tag = element.tag.removeprefix(NS)
        assert element.tag.startswith(NS), element.tag  # nothing from another namespace (no xlink)
        assert tag not in {"script", "foreignObject", "image", "use", "a", "iframe", "style"}, tag
        for name, value in element.attrib.items():
            assert not name.lower().startswith("on"), name
            assert "href" not in name.lower(), name
            assert "url(" not in value and "javascript:" not in value.lower(), value


def random_game(game_id: str, seed: int) -> list[Any]:
    """Every position of one random game, start to end."""
    rng = random.Random(seed)
    position = start(game_id)
    positions = [position]
    while position.outcome() is None:
        groups = position.move_space()
        if groups is not None:  # a compact move space (Strands): its move lists can be long, so one cover of a group
            group = rng.choice(groups)
            cells = rng.sample(list(group.cells), group.max_count)
            move = position.parse_move(",".join(cells))
        else:
            move = rng.choice(position.legal_moves())
        position = position.apply(move)[0]
        positions.append(position)
    return positions


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_position_of_a_game_is_drawn_with_exactly_its_legal_moves(game_id):
    game = GAMES[game_id]
    for position in random_game(game_id, 3):
        root = parse(render(BY_ID[game.id].draw, position, RenderOptions(show_legal_moves=True)))
        assert_self_contained(root)
        if position.move_space() is not None:  # a compact move space (Strands): its cells are marked
            playable = {e.get("data-cell") for e in elements(root, "g", "legal")}
            expected = set() if position.outcome() else {c for g in position.move_space() for c in g.cells}
            assert playable == expected
        else:
            expected = {position.move_notation(m) for m in position.legal_moves()}
            assert marked_moves(root) == expected
        status = texts(root, "status")[0]
        assert str(position.scores()[0]) in status and str(position.scores()[1]) in status
        assert ("wins" in status or "draw" in status) == (position.outcome() is not None)


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_drawings_are_deterministic_and_every_option_changes_them(game_id):
    game = GAMES[game_id]
    position = random_game(game_id, 5)[4]
    plain = render(BY_ID[game.id].draw, position)
    assert render(BY_ID[game.id].draw, position) == plain
    move = position.move_notation(position.legal_moves_page(0, 1)[0])
    variants = [
        RenderOptions(size=200),
        RenderOptions(show_legal_moves=True),
        RenderOptions(arrows=(move,)),
        RenderOptions(coordinates=False),
        RenderOptions(flip=True),
        *(RenderOptions(theme=name) for name in THEMES if name != "classic"),
    ]
    drawn = [render(BY_ID[game.id].draw, position, options) for options in variants]
    assert len({plain, *drawn}) == len(variants) + 1
    for svg in drawn:
        assert_self_contained(parse(svg))


def test_size_sets_the_width_in_pixels_and_keeps_the_shape():
    game = GAMES["reversi"]
    position = game.parse_position(REVERSI_START)
    small, large = (parse(render(BY_ID[game.id].draw, position, RenderOptions(size=size))) for size in (200, 800))
    assert small.get("width") == "200" and large.get("width") == "800"
    assert small.get("viewBox") == large.get("viewBox")
    ratio = int(large.get("height")) / int(small.get("height"))  # type: ignore[arg-type]
    assert ratio == pytest.approx(4, rel=0.01)


def test_reversi_start():
    game = GAMES["reversi"]
    root = parse(render(BY_ID[game.id].draw, game.parse_position(REVERSI_START), RenderOptions(show_legal_moves=True)))
    discs = {e.get("data-cell"): e.get("class") for e in elements(root, "circle", "disc")}
    assert discs == {"d4": "disc white", "e4": "disc black", "d5": "disc black", "e5": "disc white"}
    assert marked_moves(root) == {"d3", "c4", "f5", "e6"}
    assert sorted(texts(root, "coordinate")) == sorted(2 * list("abcdefgh") + 2 * [str(i) for i in range(1, 9)])
    assert root.find(NS + "title").text == "Reversi 8x8: Black 2 · White 2 · Black to move"  # type: ignore[union-attr]


def test_reversi_flip_turns_the_board_round():
    game = GAMES["reversi"]
    position = game.parse_position(REVERSI_START)

    def centre(svg: str, cell: str) -> tuple[float, float]:
        disc = next(e for e in elements(parse(svg), "circle", "disc") if e.get("data-cell") == cell)
        return float(disc.get("cx")), float(disc.get("cy"))  # type: ignore[arg-type]

    normal, flipped = (
        render(BY_ID[game.id].draw, position),
        render(BY_ID[game.id].draw, position, RenderOptions(flip=True)),
    )
    # e4 (black) is above and right of d5 (black); turned round, below and left.
    (ex, ey), (dx, dy) = centre(normal, "e4"), centre(normal, "d5")
    assert ex > dx and ey < dy
    (ex, ey), (dx, dy) = centre(flipped, "e4"), centre(flipped, "d5")
    assert ex < dx and ey > dy


def test_reversi_pass_is_a_button():
    game = GAMES["reversi"]
    # White has no move; Black passes... no: the seat to move (White) must pass.
    position = game.parse_position("BBBB/BBBB/BBB./BBW. 2 black=1")
    assert [position.move_notation(m) for m in position.legal_moves()] == ["pass"]
    root = parse(render(BY_ID[game.id].draw, position, RenderOptions(show_legal_moves=True)))
    assert [e.get("data-move") for e in elements(root, "g", "word")] == ["pass"]


def test_kalah_pits_stores_and_seat_perspective():
    game = GAMES["kalah"]
    position = game.parse_position("0,5,5,5,5,4,0/4,4,4,4,4,4,0 2 seeds=4")  # South played 1; North to move
    root = parse(render(BY_ID[game.id].draw, position, RenderOptions(show_legal_moves=True, last_move="S1")))
    pits = {e.get("data-cell"): e for e in elements(root, "circle", "pit")}
    assert len(pits) == 12 and len(elements(root, "rect", "store")) == 2
    assert sorted(texts(root, "count")) == sorted(["0", "5", "5", "5", "5", "4", *["4"] * 6, "0", "0"])
    assert marked_moves(root) == {"1", "2", "3", "4", "5", "6"}  # North's pits
    # North's row is on top, its pit 1 on the right; South's pit 1 on the left below.
    assert float(pits["N1"].get("cy")) < float(pits["S1"].get("cy"))  # type: ignore[arg-type]
    assert float(pits["N1"].get("cx")) > float(pits["N6"].get("cx"))  # type: ignore[arg-type]
    assert float(pits["S1"].get("cx")) < float(pits["S6"].get("cx"))  # type: ignore[arg-type]
    last = elements(root, "circle", "last-move")[0]
    assert (last.get("cx"), last.get("cy")) == (pits["S1"].get("cx"), pits["S1"].get("cy"))
    flipped = {
        e.get("data-cell"): e
        for e in elements(parse(render(BY_ID[game.id].draw, position, RenderOptions(flip=True))), "circle")
    }
    assert float(flipped["N1"].get("cy")) > float(flipped["S1"].get("cy"))  # type: ignore[arg-type]


def test_kalah_arrow_runs_from_the_pit_to_where_the_last_seed_lands():
    game = GAMES["kalah"]
    position = game.parse_position("4,4,4,4,4,4,0/4,4,4,4,4,4,0 1 seeds=4")
    root = parse(
        render(BY_ID[game.id].draw, position, RenderOptions(arrows=("3", "1")))
    )  # 3 ends in the store: South again
    arrows = elements(root, "g", "arrow")
    assert [a.get("data-step") for a in arrows] == ["1", "2"]
    path = next(arrows[0].iter(NS + "path")).get("d")
    store = next(e for e in elements(root, "rect", "store") if e.get("data-cell") == "S-store")
    pit = next(e for e in elements(root, "circle", "pit") if e.get("data-cell") == "S3")
    assert path.startswith(f"M{pit.get('cx')} {pit.get('cy')} ")  # type: ignore[union-attr]
    tip = next(arrows[0].iter(NS + "polygon")).get("points").split()[0].split(",")  # type: ignore[union-attr]
    store_x = float(store.get("x")) + float(store.get("width")) / 2  # type: ignore[arg-type]
    assert float(tip[0]) == pytest.approx(store_x, abs=0.01)


def test_dots_and_boxes_lines_boxes_and_pie_phase():
    game = GAMES["dots-and-boxes"]
    position = start("dots-and-boxes", rows=1, cols=2)
    for move in ("a1-b1", "a1-a2", "a2-b2", "b1-b2"):  # the fourth, B's, completes box a1
        position = position.apply(position.parse_move(move))[0]
    root = parse(render(BY_ID[game.id].draw, position, RenderOptions(show_legal_moves=True, last_move="b1-b2")))
    assert {e.get("data-line") for e in elements(root, "line", "line")} == {"a1-b1", "a1-a2", "a2-b2", "b1-b2"}
    assert [(e.get("data-cell"), e.get("class")) for e in elements(root, "rect", "box")] == [("a1", "box B")]
    assert marked_moves(root) == {"b1-c1", "b2-c2", "c1-c2"}
    assert len(elements(root, "circle", "dot")) == 6 and len(elements(root, "line", "last-move")) == 1

    pie = start("dots-and-boxes", rows=1, cols=1, pie_rule=True, pie_lines=2)
    pie = pie.apply(pie.parse_move("a1-b1"))[0]
    root = parse(render(BY_ID[game.id].draw, pie, RenderOptions(show_legal_moves=True)))
    words = [e.get("data-move") for e in elements(root, "g", "word")]
    assert words == ["stop"] and texts(root, "pie")[0].startswith("Pie rule: setup, 1 of up to 2")
    pie = pie.apply(pie.parse_move("stop"))[0]
    root = parse(render(BY_ID[game.id].draw, pie, RenderOptions(show_legal_moves=True)))
    assert [e.get("data-move") for e in elements(root, "g", "word")] == ["keep", "swap"]
    assert "chooses" in texts(root, "pie")[0]


def test_petak_sawah_fields_rocks_and_cells():
    game = GAMES["petak-sawah"]
    position = game.parse_position("..#../.#.../...#./#...#/..... 1 opener=1")
    position = position.apply(position.parse_move("a1"))[0].apply(position.parse_move("e5"))[0]
    root = parse(render(BY_ID[game.id].draw, position, RenderOptions(show_legal_moves=True)))
    kinds = Counter(e.get("class") for e in elements(root, "rect", "field"))
    assert kinds == {"field empty": 18, "field rock": 5, "field seat1": 1, "field seat2": 1}
    assert len(elements(root, "polygon", "rock")) == 5
    assert marked_moves(root) == {position.move_notation(m) for m in position.legal_moves()}


def test_strands_cells_labels_stones_and_selection_marks():
    game = GAMES["strands"]
    position = start("strands")
    labels = game.new_position({**game.default_options(), "layout": "side4"}, "7").to_fields()["labels"]
    root = parse(render(BY_ID[game.id].draw, position, RenderOptions(show_legal_moves=True)))
    cells = elements(root, "g", "cell")
    assert len(cells) == sum(len(row) for row in labels.split("/")) == 37
    assert "".join(e.get("data-label") for e in cells) == labels.replace("/", "")  # type: ignore[misc]
    # Black opens on a 2: exactly the 2s are playable, each marked with its label.
    assert {e.get("data-label") for e in elements(root, "g", "legal")} == {"2"}
    position = position.apply(position.parse_move("d2"))[0]
    root = parse(render(BY_ID[game.id].draw, position, RenderOptions(last_move="d2", arrows=("c3,c4",))))
    assert len(elements(root, "circle", "stone")) == 1 and len(elements(root, "polygon", "last-move")) == 1
    assert len(elements(root, "g", "arrow")) == 2  # one numbered mark on each covered cell


@pytest.mark.parametrize(
    ("options", "kind", "field"),
    [
        (RenderOptions(size=MIN_SIZE - 1), core.RulesError, "size"),
        (RenderOptions(size=MAX_SIZE + 1), core.RulesError, "size"),
        (RenderOptions(theme="neon"), core.RulesError, "theme"),
        (RenderOptions(last_move="z9"), core.InvalidMove, "last_move"),
        (RenderOptions(arrows=("d3", "d3")), core.IllegalMove, "arrows[1]"),
        (RenderOptions(arrows=("x",)), core.InvalidMove, "arrows[0]"),
        (RenderOptions(arrows=("d3",) * 33), core.RulesError, "arrows"),
    ],
)
def test_bad_options_are_refused_naming_the_option(options, kind, field):
    game = GAMES["reversi"]
    with pytest.raises(kind) as raised:
        render(BY_ID[game.id].draw, game.parse_position(REVERSI_START), options)
    assert raised.value.field == field


def _last_pit(position, last_move: str) -> str:
    root = parse(render(BY_ID["kalah"].draw, position, RenderOptions(last_move=last_move)))
    pits = {(e.get("cx"), e.get("cy")): e.get("data-cell") for e in elements(root, "circle", "pit")}
    (last,) = elements(root, "circle", "last-move")
    return pits[(last.get("cx"), last.get("cy"))]


def test_a_kalah_last_move_is_the_move_s_notation_or_the_pit_with_its_side():
    game = GAMES["kalah"]
    # South sowed pit 3 into its store and moves again: "3" is South's pit 3, the only pit 3 left empty.
    extra_turn = game.parse_position("4,4,0,5,5,5,1/4,4,4,4,4,4,0 1 seeds=4")
    assert _last_pit(extra_turn, "3") == _last_pit(extra_turn, "S3") == "S3"
    assert _last_pit(extra_turn, "N3") == "N3"
    # Every move's own notation, played from the start, names the pit it sowed.
    rng, position, named = random.Random(5), game.new_position({}, ""), 0
    while position.outcome() is None:
        move = rng.choice(position.legal_moves())
        after = position.play(move)
        pits = after.to_fields()["pits"]
        if sum(pits[index] == 0 for index in (move - 1, 6 + move - 1)) == 1:
            assert _last_pit(after, position.move_notation(move)) == f"{'SN'[position.to_move - 1]}{move}"
            named += 1
        position = after
    assert named >= 10
    # Both pits 3 empty: the number could be either seat's, so the side must be said.
    both = game.parse_position("4,4,0,5,5,5,1/4,4,0,5,5,5,1 2 seeds=4")
    with pytest.raises(core.InvalidMove, match="S3 or N3") as raised:
        render(BY_ID[game.id].draw, both, RenderOptions(last_move="3"))
    assert raised.value.field == "last_move"


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_a_last_move_off_the_board_is_refused_in_every_game(game_id):
    text = BY_ID[game_id].checks.move_off_the_board  # a place off the game's small board
    if text is None:
        pytest.skip(f"{game_id} declares no move off its small board (its checks.move_off_the_board)")
    with pytest.raises(core.InvalidMove) as raised:
        render(BY_ID[game_id].draw, start(game_id), RenderOptions(last_move=text))
    assert raised.value.field == "last_move"


@pytest.mark.parametrize("game_id", sorted(GAMES))
@pytest.mark.parametrize("text", ["a²", "S²", "a٣", "²", "a1-b²", "-", ",", "a1,,b1", "S-store-", " ", "a-1", "a0"])
def test_a_last_move_naming_no_place_is_refused_naming_the_field(game_id, text):
    try:
        render(BY_ID[game_id].draw, start(game_id), RenderOptions(last_move=text))
    except core.RulesError as error:
        assert error.field == "last_move"
    else:  # none of these names a place on any board: only the blank one is drawn (with nothing highlighted)
        assert not text.strip()


def test_the_api_states_the_bounds_the_drawing_keeps():
    from service import core
    from service.api import limits
    from service.render import MAX_ARROWS, MAX_LAST_MOVE_CHARS, MAX_MOVE_CHARS

    assert (limits.MIN_IMAGE_SIZE, limits.MAX_IMAGE_SIZE) == (MIN_SIZE, MAX_SIZE)
    assert (limits.MAX_ARROWS, limits.MAX_ARROW_CHARS, limits.MAX_LAST_MOVE_CHARS) == (
        MAX_ARROWS,
        MAX_MOVE_CHARS,
        MAX_LAST_MOVE_CHARS,
    )
    assert tuple(THEMES) == core.RENDER_THEMES
