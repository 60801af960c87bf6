"""Stage 1, content: each language's Markdown sections and strings tables, TeX to MathML, and the
words and reading time of a section as the contents print them."""
