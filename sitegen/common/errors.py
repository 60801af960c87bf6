"""The one exception the build reports as a clean one-line error, and where in a template it happened."""

__all__ = ["BuildError", "template_lines"]


class BuildError(Exception):
    """A problem with the build's input or output, with a message fit for one line on stderr.

    A message that spans lines (some parsers' do) is joined into one.
    """

    def __init__(self, message):
        super().__init__(" ".join(line.strip() for line in str(message).splitlines() if line.strip()))


def template_lines(error):
    """``[(file name, line)]`` of the Jinja templates an exception passed through, outermost first.

    Jinja rewrites the traceback of an error raised while rendering so that
    each template frame carries the template's file name and line; those are
    the frames whose globals hold ``__jinja_exception__``.
    """
    places = []
    frame = error.__traceback__
    while frame is not None:
        if "__jinja_exception__" in frame.tb_frame.f_globals:
            places.append((frame.tb_frame.f_code.co_filename, frame.tb_lineno))
        frame = frame.tb_next
    return places
