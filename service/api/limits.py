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
# A best move's ``rating``, on the game's ladder scale (the uniform random mover is 0): wide enough for every
# game's ladder, beyond which a number is a mistake rather than a wish for the weakest or the strongest rung.
MIN_RATING = -1000
MAX_RATING = 4000
# RenderPosition (``service/render`` draws with the same bounds; a test holds them equal). A board image's
# request is a URL: these keep the longest one the document allows well under the HTTP server's 64 KB.
MIN_IMAGE_SIZE = 64  # pixels wide; 0 asks for the default
MAX_IMAGE_SIZE = 2048
MAX_ARROWS = 32
MAX_ARROW_CHARS = 64  # longer than any move of any board
MAX_LAST_MOVE_CHARS = 256
MAX_QUERY_CHARS = 1024  # any one query parameter (position.notation included: a real one is under 700)
