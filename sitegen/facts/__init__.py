"""Stage 4, facts: the numbers the prose quotes, gathered into one context (results, analyses,
exercises, the #beyond deep dives, show-me links, sources)."""
