"""Stage 6, render: templates, tables, the payload scripts, CSV downloads, app.js and the strings
the scripts read, from the facts, figures and arrays of the earlier stages."""
