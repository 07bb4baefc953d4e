"""The request limits every transport enforces and the OpenAPI document states, in one place (``docs/api.md``).

Kept apart from the servicer so that the gateway, which writes them into its document, loads no engine.
"""

MAX_NOTATION = 8192  # characters; the largest real position (Strands side 9) is far below this
DEFAULT_PAGE_SIZE = 100
MAX_PAGE_SIZE = 1000
MAX_MOVES_PER_CALL = 4096
MAX_BATCH = 100
MAX_TOP_N = 64
MAX_SEED_CHARS = 1024
MAX_LEVEL_CHARS = 64  # longer than any level name
MAX_PAGE_TOKEN_CHARS = 64  # longer than any page token
