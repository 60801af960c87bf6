#!/usr/bin/env python3
"""Build the calibration tutorial: a static, self-contained site in one folder.

The recipe, top to bottom:
load content → compute every metric over the temperature grid → draw the
static figures → bake the payloads → render the page → write the site
atomically (a failed build leaves the previous folder untouched).

    python build.py                 # writes site/
    python build.py --out DIR       # writes DIR/
    python build.py --serve         # builds, then previews on http://127.0.0.1:8000/
"""

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
# Keep the build byte-identical and free of user settings, whatever the caller's environment.
os.environ.setdefault("MPLBACKEND", "Agg")
os.environ["MPLCONFIGDIR"] = os.environ.get("MPLCONFIGDIR") or str(Path(os.environ.get("TMPDIR", "/tmp")) / "calib-mpl")


@contextlib.contextmanager
def stage(name):
    """Print a build stage and how long it took (to stderr, so stdout stays clean)."""
    start = time.perf_counter()
    yield
    print(f"  {name:<10} {time.perf_counter() - start:6.2f} s", file=sys.stderr)


def parse_args(argv):
    """The command line: --out, --lang, --serve, --port, --base-url (a usage error exits with status 2, as argparse does)."""

    def port(text):
        number = int(text)
        if not 1 <= number <= 65535:
            raise argparse.ArgumentTypeError(f"{text} is not a port number (1-65535)")
        return number

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "site"), help="output folder (default: site/)")
    parser.add_argument("--lang", default="en", help="content language: content/<lang>/ (default: en)")
    parser.add_argument("--serve", action="store_true", help="after building, preview on 127.0.0.1")
    parser.add_argument("--port", type=port, default=8000, help="preview port (default: 8000)")
    parser.add_argument("--base-url", metavar="URL", default=None,
                        help="absolute URL the site is published at (enables oEmbed files and absolute embed snippets)")
    return parser.parse_args(argv)


def serve(folder, port):
    """Serve ``folder`` on http://127.0.0.1:``port``/ until interrupted (loopback only)."""
    from sitegen.serve import make_server

    with make_server(folder, port, log=True) as server:
        print(f"previewing {folder} on http://127.0.0.1:{port}/ (Ctrl-C stops)", file=sys.stderr)
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()


def build(args):
    """Run the pipeline and write the site; returns the output folder."""
    from sitegen.analysis import precompute_analyses
    from sitegen.analysis_facts import build_analysis_facts
    from sitegen.content import load_sections, load_strings
    from sitegen.facts import build_facts
    from sitegen.figures import render_figures
    from sitegen.page import assemble_files
    from sitegen.precompute import precompute_all
    from sitegen.writer import write_site

    content_dir = ROOT / "content" / args.lang
    print(f"building the tutorial ({args.lang}) into {args.out}", file=sys.stderr)
    total = time.perf_counter()
    with stage("content"):
        strings = load_strings(content_dir)
        sections = load_sections(content_dir)
    with stage("compute"):
        precomputed = precompute_all()
    with stage("analyses"):
        analyses = precompute_analyses(precomputed)
    with stage("facts"):
        facts = build_facts(precomputed)
        facts.update(build_analysis_facts(precomputed, analyses))
    with stage("figures"):
        figures = render_figures(precomputed)
    with stage("render"):
        files = assemble_files(ROOT, precomputed, analyses, facts, figures, sections, strings, args.lang)
    with stage("write"):
        write_site(args.out, files)
    print(f"  {'total':<10} {time.perf_counter() - total:6.2f} s, {len(files)} files", file=sys.stderr)
    return Path(args.out)


def main(argv=None):
    """Entry point: build, then optionally serve. Returns the exit status, one table for the whole command line:

    0  success;
    2  bad input or usage: argparse's usage errors, and every BuildError (bad content, strings,
       templates, --lang, an output folder that cannot be written, a preview port in use),
       reported as one line ``build.py: error: …`` without a traceback;
    1  an internal error, i.e. a bug: its traceback, then one line ``build.py: internal error: …``.

    Whatever fails, the previous output folder is left as it was.
    """
    import traceback

    args = parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from sitegen.content import content_folder
    from sitegen.errors import BuildError

    try:
        content_folder(ROOT / "content", args.lang)
        out = build(args)
        if args.serve:
            try:
                serve(out, args.port)
            except OSError as error:
                raise BuildError(f"cannot preview on 127.0.0.1:{args.port}: {error.strerror or error}") from None
    except BuildError as error:
        print(f"build.py: error: {error}", file=sys.stderr)
        return 2
    except Exception as error:  # a bug, not bad input: show where it happened
        traceback.print_exc()
        print(f"build.py: internal error: {error.__class__.__name__}: {error} (a bug; the traceback above shows where)",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
