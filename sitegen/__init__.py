"""The page: its choices (:mod:`sitegen.common.settings`) and everything that turns the engine's results
into a site — precomputation over the grid, payloads, figures, prose, templates, atomic output.

Kept apart from :mod:`calib` so that the engine never imports Jinja2, Markdown or matplotlib;
dependencies point one way, ``build.py`` → ``sitegen`` → ``calib``.
"""
