"""Stage 5, figures: the static SVG figures drawn with matplotlib from precomputed arrays, for
readers without JavaScript."""
