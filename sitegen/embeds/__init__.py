"""Stage 6, render (embeds): each widget as an embed page with its snippet, heights, theme and
oEmbed file."""
