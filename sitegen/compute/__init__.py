"""Stage 2, compute: every dataset's scores, bins, ECE and MCE over the temperature grid and its
fitted T, as plain arrays, through calib."""
