"""Stage 7, write: the site written to a temporary folder and swapped in only on success, and the
preview server of --serve."""
