"""The curl samples of the README and ``docs/`` show the service's real answers (``samples.py``; ``python -m
tests.docs.samples`` records them again)."""

from __future__ import annotations

from tests.docs.samples import PAGES, abbreviated, answer_lines, recorded, samples


def test_every_sample_shows_what_the_service_answers():
    found = {(page, sample.start): sample for page in PAGES for sample in samples(page)}
    assert len(found) >= 3  # the README's rules call and review, the clients guide's analysis
    now = recorded()
    stale = [f"{page.name}:{start + 1}" for (page, start), sample in found.items() if sample.answer != now[page, start]]
    assert stale == [], f"stale samples at {stale}: run python -m tests.docs.samples"


def test_an_answer_is_abbreviated_to_its_keys_and_a_long_stream_to_its_ends():
    assert (
        abbreviated({"a": 1, "b": [{"a": 2, "c": 3}], "c": 4}, frozenset({"a", "b"})) == '{"a":1,"b":[{"a":2,...}],...}'
    )
    lines = answer_lines("\n".join(f'{{"n": {n}}}' for n in range(6)), frozenset({"n"}))
    assert lines == ['# {"n":0}', '# {"n":1}', "# ...", '# {"n":5}']
