"""The stylesheet and the scripts as pages ship them: concatenated in ``order.txt`` order and minified.

The sources in ``static/`` keep their comments and layout; the page (whose first view counts every
byte) gets them without. Each file of the concatenation starts with a ``/* js/<file> */`` header so
that the build's messages can name the file a problem is in (:func:`script_files`); :func:`shipped`
drops the headers from what pages get.
"""

import re
from pathlib import Path

from .errors import BuildError

__all__ = ["APP_SCRIPT", "read_static", "read_script", "shipped", "script_files", "inline_script",
           "compact", "squeeze_css", "squeeze_js"]

APP_SCRIPT = "app.js"  # the site's one script file, shared by every language (sitegen.page.app_script)


_BLOCK_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_LINE_COMMENT = re.compile(r"^[ \t]*//.*\n", re.M)
_TRAILING_COMMENT = re.compile(r"([;{,)])[ \t]+// .*$", re.M)
_INDENT = re.compile(r"^[ \t]+", re.M)
_BLANK_LINES = re.compile(r"\n\s*\n")


def compact(text):
    """A stylesheet or classic script without its comments, indentation and blank lines: the sources
    keep their documentation, the page (inlined, so in the first view's bytes) does not ship it.
    Safe for this project's sources, whose strings hold no comment markers."""
    text = _BLOCK_COMMENT.sub("", text)
    text = _LINE_COMMENT.sub("", text)
    text = _TRAILING_COMMENT.sub(r"\1", text)
    text = _INDENT.sub("", text)
    return _BLANK_LINES.sub("\n", text).strip()


_CSS_STRING = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'""")
_CSS_SPACE = re.compile(r"\s*([{};,>])\s*|(:)\s+")


def squeeze_css(text):
    """A compacted stylesheet without the spaces CSS never needs: around ``{ } ; , >`` and after ``:``,
    and the last ``;`` of a block. Quoted strings are left as they are; other whitespace stays (a
    descendant combinator, ``and (``, the operators of ``calc()``)."""
    parts = _CSS_STRING.split(text)
    strings = _CSS_STRING.findall(text)
    squeezed = [_CSS_SPACE.sub(lambda m: m.group(1) or m.group(2), part).replace(";}", "}") for part in parts]
    return "".join(part + (strings[i] if i < len(strings) else "") for i, part in enumerate(squeezed))


_JS_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_JS_REGEX_AFTER = frozenset("(,=:[!&|?{};+-*%<>~^")
_JS_REGEX_KEYWORDS = frozenset({"return", "typeof", "case", "do", "else", "in", "instanceof", "new", "delete",
                                "void", "throw", "yield"})


def _js_literal_end(text, start):
    """The index after the string, template or regular-expression literal opening at ``text[start]``."""
    quote, i, in_class = text[start], start + 1, False
    while i < len(text):
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if quote == "/" and char == "[":
            in_class = True
        elif quote == "/" and char == "]":
            in_class = False
        elif char == quote and not in_class:
            i += 1
            if quote == "/":
                while i < len(text) and text[i] in _JS_WORD:  # the flags
                    i += 1
            return i
        elif char == "\n" and quote != "`":
            raise BuildError(f"unterminated {quote} literal in a script: {text[start:start + 40]!r}")
        i += 1
    raise BuildError(f"unterminated {quote} literal in a script: {text[start:start + 40]!r}")


def squeeze_js(text):
    """A compacted classic script without the spaces and tabs JavaScript never needs, found by scanning
    its tokens: literals (strings, templates, regular expressions) are copied as they are, comments
    dropped, and a space stays only between two word characters or where removing it would join two
    tokens into one (``a + +b``, ``a / /re/``, ``1 .x``). Line breaks all stay, so automatic semicolon
    insertion reads the script as before."""
    out, i, n = [], 0, len(text)
    last, word = "", ""  # the last character written that is not a space, and the last word written

    def emit(piece):
        nonlocal last, word
        out.append(piece)
        stripped = piece.rstrip(" \t")
        if stripped:
            last = stripped[-1]
            tail = re.search(r"[\w$]+$", stripped)
            word = tail.group(0) if tail else ""

    while i < n:
        char = text[i]
        if char in " \t":
            j = i
            while j < n and text[j] in " \t":
                j += 1
            following = text[j] if j < n else "\n"
            if (out and out[-1] != "\n" and following != "\n" and (
                    (last in _JS_WORD and following in _JS_WORD) or (last in "+-" and following == last)
                    or (last == "/" and following in "/*") or (last.isdigit() and following == ".")
                    or (last + following in ("<!", "->")))):  # never write an HTML-like comment, <!-- or -->
                out.append(" ")
            i = j
        elif char == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                i += 1
        elif char == "/" and i + 1 < n and text[i + 1] == "*":
            end = text.find("*/", i + 2)
            if end < 0:
                raise BuildError(f"unterminated comment in a script: {text[i:i + 40]!r}")
            if "\n" in text[i:end]:
                emit("\n")
            i = end + 2
        elif char in "'\"`" or (char == "/" and (last in _JS_REGEX_AFTER or not last or word in _JS_REGEX_KEYWORDS)
                                 and not (last in _JS_WORD and word not in _JS_REGEX_KEYWORDS) and last not in ")]"):
            end = _js_literal_end(text, i)
            emit(text[i:end])
            i = end
        else:
            emit(char)
            i += 1
    return "".join(out)


def read_static(root):
    """The stylesheet and the script, each concatenated in its ``order.txt`` order and minified, with a
    ``/* css/<file> */`` or ``/* js/<file> */`` header before each file."""
    parts = {}
    for kind in ("css", "js"):
        folder = Path(root) / "static" / kind
        order_file = folder / "order.txt"
        if not order_file.exists():
            raise BuildError(f"{order_file} is missing")
        names = [line.strip() for line in order_file.read_text(encoding="utf-8").splitlines()
                 if line.strip() and not line.startswith("#")]
        chunks = []
        for name in names:
            path = folder / name
            if not path.exists():
                raise BuildError(f"{order_file}: lists {name}, which does not exist")
            text = compact(path.read_text(encoding="utf-8"))
            chunks.append(f"/* {kind}/{name} */\n" + (squeeze_css(text) if kind == "css" else squeeze_js(text)) + "\n")
        parts[kind] = "".join(chunks)
    return parts["css"], parts["js"]


def read_script(root, name):
    """``static/js/<name>``, a script only some pages inline, compacted like the others."""
    path = Path(root) / "static" / "js" / name
    if not path.is_file():
        raise BuildError(f"{path} is missing")
    return compact(path.read_text(encoding="utf-8")) + "\n"


_FILE_HEADERS = re.compile(r"^/\* (?:js|css)/\S+ \*/\n", re.M)
_SCRIPT_HEADER = re.compile(r"^/\* js/(\S+) \*/$", re.M)


def shipped(text):
    """The stylesheet or script as pages get it: without the ``/* js/<file> */`` headers, which only
    serve the build's own messages (a strings key a script reads names its file)."""
    return _FILE_HEADERS.sub("", text)


def script_files(script):
    """The concatenated script of :func:`read_static` back as ``[(file name, text)]``; text before the
    first header (none in a real build) is named ``(script)``."""
    parts = _SCRIPT_HEADER.split(script)
    return list(zip(["(script)", *parts[1::2]], parts[0::2]))


def inline_script(text):
    """A script's text made safe inside an HTML ``<script>`` element (no ``</script`` or ``<!--`` in it)."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.I).replace("<!--", "<\\!--")
