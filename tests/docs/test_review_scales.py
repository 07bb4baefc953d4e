"""Each game's page states the review scale its levels judge by (``GameLevels.review_scale``): the thresholds
live in the code, and the page says them, so a change of one is seen in the other."""

from __future__ import annotations

import pytest

from service.games import LEVELS, REGISTRATIONS


@pytest.mark.parametrize("registration", REGISTRATIONS, ids=lambda r: r.id)
def test_the_page_states_the_review_scale(registration) -> None:  # type: ignore[no-untyped-def]
    scale = LEVELS[registration.id].review_scale
    text = " ".join(registration.page.read_text().split())
    assert "### Review scale" in registration.page.read_text()
    for threshold, name in ((scale.excellent, "EXCELLENT"), (scale.good, "GOOD")):
        assert f"up to {threshold:.2f} `{name}`" in text or f"of {threshold:.2f} `{name}`" in text, name
    for threshold, name in ((scale.inaccuracy, "INACCURACY"), (scale.mistake, "MISTAKE")):
        assert f"up to {threshold:.2f} an `{name}`" in text or f"up to {threshold:.2f} a `{name}`" in text, name
