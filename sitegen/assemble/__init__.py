"""Stage 6, render (assembly): every page and data file of the site, and the one-file editions,
put together from render and embeds."""
