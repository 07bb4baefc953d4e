"""The headers every answer of the gateway carries, whoever wrote it (the front's own refusals, or any route
of the request path): the release (``Gamerules-Version``) and the request's id
(``X-Request-Id``).

The id is the caller's when it sends a sane one (``REQUEST_ID``: 1 to 128 characters of letters, digits and
``-_.:/+=@``), else one made here; the front puts it in the request before anything reads it, so the
gateway's log line, the gRPC server's (the id travels on as ``x-request-id`` metadata) and the answer name
the same id. A value that is no sane id (too long, spaces, control characters) is replaced, not refused:
the id serves the logs, and a caller's odd one must not cost it its answer.
"""

from __future__ import annotations

import re
import uuid

from service.api.version import RELEASE_HEADER, VERSION

REQUEST_ID_HEADER = "X-Request-Id"
REQUEST_ID = re.compile(r"[A-Za-z0-9._:/+=@-]{1,128}")


def request_id(sent: str | None) -> str:
    """The request's id: ``sent`` when it is a sane one, else a new one (32 hexadecimal digits)."""
    if sent and REQUEST_ID.fullmatch(sent):
        return sent
    return uuid.uuid4().hex


def stamps(request_id: str) -> tuple[tuple[str, str], ...]:
    """The headers an answer to the request of ``request_id`` carries."""
    return ((RELEASE_HEADER, VERSION), (REQUEST_ID_HEADER, request_id))
