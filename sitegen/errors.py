"""The one exception the build reports as a clean one-line error."""


class BuildError(Exception):
    """A problem with the build's input or output, with a message fit for one line on stderr."""
