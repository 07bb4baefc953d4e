"""The games' rules engines: one package per game (state and rules, notation, evaluation features) written
against the contract in ``service/core/contract.py``; each game's rules and notation are in
``docs/games/<game-id>.md``. Engines import only ``service.core``; the registry of the games is
``service/games``.
"""
