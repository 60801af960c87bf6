"""Turning the engine's results into a site: content, templates, atomic output, preview server.

Kept apart from :mod:`calib` so that the engine never imports Jinja2 or Markdown.
"""
