"""Benchmarks: ``python -m bench`` (``make bench``) runs each module here; see ``bench/__main__.py``."""
