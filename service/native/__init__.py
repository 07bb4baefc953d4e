"""The native search engine: the C search core (``search.c``) and its game kernels (``<game>.c``, the
interface in ``kernel.h``), and their Python binding (``engine.py``, with one adapter module per game)."""
