"""Offline learning: the pipelines that fit the evaluations the levels ship as data (``reversi.py``: Reversi's
pattern weights, ``make train-reversi``).

A top layer beside the transport, because a pipeline drives everything below it: the engines play the
self-play games, the levels' endgame solver and search label the positions, the native kernels speed both.
Nothing below imports it, so the service never trains at run time; only its output, a data file in the
engine's package, is read at start-up. It may use numpy (a development dependency: the fit needs it, the
service does not).
"""
