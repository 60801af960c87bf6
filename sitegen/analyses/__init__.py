"""Stage 3, analyses: the uncertainty analyses on the sub-grid (bootstrap, noise floor, bin sweep,
smooth ECE, the spread of T) and the other calibrators' fits, through calib."""
