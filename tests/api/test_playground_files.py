"""The playground's files as the gateway serves them (no browser needed): the page at ``/``, its modules and
stylesheet under ``/playground/`` with their types, one bounded metrics route for them all, and scripts that
call nothing but the public REST API."""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

from tests.api.conftest import http

PLAYGROUND = Path(__file__).resolve().parents[2] / "service" / "api" / "rest" / "playground"


def fetch(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.status, answer.headers["Content-Type"], answer.read().decode()


def test_the_page_and_its_files(gateway_url):
    status, content_type, page = fetch(gateway_url + "/")
    assert status == 200 and content_type.startswith("text/html")
    assert '<script type="module" src="/playground/playground.js">' in page
    files = (("playground.js", "javascript"), ("review.js", "javascript"), ("api.js", "javascript"))
    for name, kind in (*files, ("playground.css", "text/css")):
        status, content_type, text = fetch(f"{gateway_url}/playground/{name}")
        assert status == 200 and kind in content_type and text == (PLAYGROUND / name).read_text()
    status, body, _ = http(gateway_url, "/playground/nothing.js")
    assert status == 404 and body["code"] == 5


def test_a_file_held_by_the_client_is_not_sent_again(gateway_url):
    """Each file has an ETag, a digest of its bytes; a client holding it (or any, ``*``) gets 304 and no body, a
    client holding another gets the file; a name outside the playground is no file of it."""
    with urllib.request.urlopen(gateway_url + "/playground/api.js", timeout=10) as answer:
        etag = answer.headers["ETag"]
        assert answer.headers["Cache-Control"] == "no-cache" and etag.startswith('"')
    for held, status in ((etag, 304), (f'"other", {etag}', 304), ("*", 304), ('"other"', 200)):
        request = urllib.request.Request(gateway_url + "/playground/api.js", headers={"If-None-Match": held})
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                got, body = answer.status, answer.read()
        except urllib.error.HTTPError as error:  # urllib raises on a 304
            got, body = error.code, error.read()
        assert (got, bool(body)) == (status, status == 200), held
    assert http(gateway_url, "/playground/../gateway.py")[0] == 404


def test_the_files_count_under_one_route(gateway_url):
    fetch(f"{gateway_url}/playground/api.js")
    _, _, exposition = fetch(gateway_url + "/metrics")
    assert re.search(r'http_requests_total\{code="200",method="GET",route="/playground/"\} [1-9]', exposition)
    assert 'route="/playground/api.js"' not in exposition


def test_the_scripts_use_only_the_public_rest_api():
    calls = re.findall(r"fetch\(\s*`([^`]*)`|fetch\(\s*\"([^\"]*)\"", (PLAYGROUND / "api.js").read_text())
    urls = [template or plain for template, plain in calls]
    assert urls and all(url.startswith("/v1/games") for url in urls), urls
    for name in ("playground.js", "review.js"):
        assert "fetch(" not in (PLAYGROUND / name).read_text()  # they go through api.js
