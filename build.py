#!/usr/bin/env python3
"""Build the calibration tutorial: a static, self-contained site in one folder.

The recipe, top to bottom:
load content → compute every metric over the temperature grid → draw the
static figures → bake the payloads → render the page → write the site
atomically (a failed build leaves the previous folder untouched).

    python build.py                 # writes site/: every language of sitegen.common.settings.LANGUAGES
                                    # (site/index.html, site/es/index.html, one set of data files)
    python build.py --lang es       # only content/es/, as a complete one-language site in site/
    python build.py --out DIR       # writes DIR/
    python build.py --serve         # builds, then previews on http://127.0.0.1:8000/, rebuilding when a
                                    # source changes (open pages reload)
    python build.py --no-cache      # computes everything: neither reads nor writes the build cache
    python build.py --base-url https://USER.github.io/REPO
                                    # absolute embed snippets, and an oEmbed file per embed page
    python build.py --single-file OUT.html [--lang es]
                                    # the whole tutorial in one language as one self-contained file
    python build.py --one-file-editions
                                    # the site, plus in one-file/ each language's one-file edition and each
                                    # widget alone as one file (under 200 KB gzip), linked from the downloads
    python build.py --data FILE [--name NAME] [--description TEXT] [--split file|random|even-odd|none]
                    [--seed N] [--input logits|probabilities] [--no-examples]
                                    # the tutorial built around your own model's validation logits
                                    # (.npz or .csv, see calib/io.py): a "Your model" report after the intro

The engine's results (precomputation, analyses, facts), the figures, the data files and the
reproduction's output are cached in .cache/build/ (or $CALIB_BUILD_CACHE), keyed by everything they
depend on (sitegen/common/cache.py): an edit of the prose or the strings rebuilds in seconds. The folder is
safe to delete, and a cached build is byte-identical to an uncached one.
"""

import argparse
import contextlib
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

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
    """The command line: --out, --lang, --serve, --port, --base-url, --single-file (a usage error exits with
    status 2, as argparse does). ``--base-url`` comes back without its trailing slash (actions/configure-pages
    gives none, a reader may type one)."""

    def port(text):
        number = int(text)
        if not 1 <= number <= 65535:
            raise argparse.ArgumentTypeError(f"{text} is not a port number (1-65535)")
        return number

    def base_url(text):
        parts = urlsplit(text.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
            raise argparse.ArgumentTypeError(f"{text!r} is not an http(s) address without ?query or #fragment")
        return text.strip().rstrip("/")

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "site"), help="output folder (default: site/)")
    parser.add_argument("--lang", default=None,
                        help="build only this language, content/<lang>/, at the root of --out (default: every "
                             "language of sitegen.common.settings.LANGUAGES, each in its folder)")
    parser.add_argument("--serve", action="store_true", help="after building, preview on 127.0.0.1")
    parser.add_argument("--port", type=port, default=8000, help="preview port (default: 8000)")
    parser.add_argument("--base-url", metavar="URL", type=base_url, default=None,
                        help="absolute URL the site is published at (enables oEmbed files and absolute embed snippets)")
    parser.add_argument("--one-file-editions", action="store_true",
                        help="also write one-file/: each language's one-file edition and each widget alone as one "
                             "file where that is under 200 KB gzip, linked from the page's downloads (the Pages "
                             "workflow passes it)")
    parser.add_argument("--single-file", metavar="OUT.html", default=None,
                        help="write the whole tutorial in one language (--lang, default the reference language) as "
                             "one self-contained HTML file instead of the site (--out is not used)")
    def seed(text):
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not 0 <= number < 2 ** 63:
            raise argparse.ArgumentTypeError(f"{text} is not in [0, 2**63)")
        return number

    parser.add_argument("--no-cache", action="store_true",
                        help="compute every step: neither read nor write the build cache (.cache/build/)")
    mine = parser.add_argument_group("your own model")
    mine.add_argument("--data", metavar="FILE", default=None,
                      help="build the tutorial around your model: a .npz or .csv of validation logits (or "
                           "probabilities) and labels (formats: README, 'Your own model')")
    mine.add_argument("--name", default=None, help="the model's display name (default: the file's name)")
    mine.add_argument("--description", default="", help="one sentence about the rows (the population)")
    mine.add_argument("--split", choices=("file", "random", "even-odd", "none"), default=None,
                      help="calibration/test rows: 'file' (default when the file has a split), 'random' (default "
                           "otherwise), 'even-odd', or 'none' (fit and measure on all rows: optimistic)")
    mine.add_argument("--seed", type=seed, default=None, help="seed of the random split (default 0)")
    mine.add_argument("--input", choices=("logits", "probabilities"), default=None,
                      help="what the file's numbers are, whatever it names them (default: the .npz array's name; "
                           "CSV class columns named prob_<class> or p_<class> are probabilities, others logits)")
    mine.add_argument("--no-examples", action="store_true",
                      help="leave out the six example rows: no row of the file is then in the site")
    args = parser.parse_args(argv)
    if args.data is None:
        used = [flag for flag, value in (("--name", args.name), ("--description", args.description),
                                         ("--split", args.split), ("--seed", args.seed), ("--input", args.input),
                                         ("--no-examples", args.no_examples)) if value]
        if used or args.seed is not None:
            parser.error(f"{(used or ['--seed'])[0]} needs --data FILE")
    if args.seed is not None and args.split not in (None, "random"):
        parser.error(f"--seed applies to --split random only, not --split {args.split}")
    if args.single_file is not None and args.one_file_editions:
        parser.error("--one-file-editions adds files to the site; --single-file writes one file only")
    if args.single_file is not None and args.serve:
        parser.error("--single-file writes one file; it cannot be combined with --serve")
    return args


def serve(folder, port, rebuild=None, watcher=None):
    """Serve ``folder`` on http://127.0.0.1:``port``/ until interrupted (loopback only). With ``watcher``
    (a :class:`sitegen.write.serve.Watcher`), a thread polls the sources and calls ``rebuild(changed)`` when one
    changes; when it succeeds (returns True), the open pages reload (a script the preview adds to the pages
    it sends; the site's files never hold it)."""
    import threading

    from sitegen.write.serve import Builds, make_server, watch

    builds = Builds() if watcher is not None else None

    def rebuild_and_reload(changed):
        if rebuild(changed):
            builds.version += 1

    with make_server(folder, port, log=True, reload=builds) as server:
        print(f"previewing {folder} on http://127.0.0.1:{port}/ (Ctrl-C stops)", file=sys.stderr)
        stop = threading.Event()
        if watcher is not None:
            print("watching content/, templates/, static/, sitegen/ and calib/: a change rebuilds the site "
                  "and reloads the open pages", file=sys.stderr)
            threading.Thread(target=watch, args=(watcher, rebuild_and_reload, stop), name="rebuild-on-change",
                             daemon=True).start()
        try:
            with contextlib.suppress(KeyboardInterrupt):
                server.serve_forever()
        finally:
            stop.set()


def rebuilder(argv):
    """The preview's rebuild: ``build.py`` run again with the same options but ``--serve``, in a fresh
    interpreter (so edited page or engine code is the code that runs; the cache keeps it quick). Prints
    one line: the time it took, or the build's own error line; a failed build leaves the site as it was,
    so the preview keeps serving the last good one."""
    import subprocess

    options = [arg for arg in argv if not (arg.startswith("--ser") and "--serve".startswith(arg))]

    def rebuild(changed):
        names = ", ".join(os.path.relpath(path, ROOT) for path in changed[:3]) + (", …" if len(changed) > 3 else "")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, str(ROOT / "build.py"), *options], capture_output=True, text=True,
                              check=False)
        if done.returncode == 0:
            print(f"rebuilt after a change to {names} in {time.perf_counter() - start:.1f} s",
                  file=sys.stderr, flush=True)
            return True
        lines = done.stderr.rstrip("\n").splitlines()
        message = done.stderr.rstrip("\n") if done.returncode == 1 else (lines[-1] if lines else "no message")
        print(f"{message}\n(after a change to {names}; still serving the last good site)", file=sys.stderr,
              flush=True)
        return False

    return rebuild


def open_cache(args):
    """The build cache of this checkout (``$CALIB_BUILD_CACHE`` or ``.cache/build/``), keyed by the sources
    and the environment; ``--no-cache`` gives one that computes everything and reads and writes nothing."""
    from sitegen.common.cache import BuildCache, environment_digest, source_digest

    folder = os.environ.get("CALIB_BUILD_CACHE") or ROOT / ".cache" / "build"
    if args.no_cache:
        return BuildCache(folder, "", enabled=False)
    return BuildCache(folder, source_digest(ROOT) + environment_digest())


def build(args):
    """Run the pipeline and write the site; returns the output folder."""
    from sitegen.common.cache import using
    from sitegen.render.jinja_cache import compiled_templates

    cache = open_cache(args)
    with using(cache), compiled_templates(cache):
        return _pipeline(args, cache)


def _pipeline(args, cache):
    """:func:`build`'s stages; the slow, pure ones go through ``cache`` (sitegen/common/cache.py)."""
    from sitegen.analyses.uncertainty import analyses_with, precompute_analyses
    from sitegen.assemble.page import Edition, assemble_files, assemble_single_file
    from sitegen.common.settings import LANGUAGES, REFERENCE_LANGUAGE
    from sitegen.compute.precompute import precompute_all
    from sitegen.content.sections import load_sections, load_strings, require_same_keys, require_same_sections
    from sitegen.facts.beyond_dives import build_beyond_facts
    from sitegen.facts.evidence import build_evidence_facts
    from sitegen.facts.page_facts import page_facts
    from sitegen.figures.charts import chart_figures
    from sitegen.figures.static_svg import render_evidence_figures, render_figures
    from sitegen.write.atomic import write_file, write_site
    from sitegen.yours import model as user_model

    user, threaded = None, False
    if args.data is not None:
        with stage("your data"):
            options = (args.name, args.description, args.split, args.seed, not args.no_examples)
            user = cache.get_or_compute("user", (Path(args.data), *options, args.input),
                                        lambda: user_model.load_user_model(args.data, *options, kind=args.input))
        seed = f", seed {user.seed}" if user.seed is not None else ""
        read_as = " of probabilities (T divides their logarithms)" if user.predictions.kind == "probabilities" else ""
        what = "one score column (a binary model)" if user.predictions.binary else \
            f"{user.predictions.logits.shape[1]} classes"  # as python -m calib fit says it
        print(f"  your data: {args.data}: {user.predictions.labels.size} rows, {what}{read_as}; "
              f"split {user.rule}{seed} "
              f"({', '.join(f'{int(m.sum())} {p}' for p, m in user.parts.items())})", file=sys.stderr)
        for note in user.predictions.notes:  # what the reader read in a way the file did not spell out
            print(f"build.py: note: {note}", file=sys.stderr)
        if user.rule == "none":
            from calib import SPLIT_NONE_NOTE
            print(f"build.py: warning: {SPLIT_NONE_NOTE}", file=sys.stderr)
        from sitegen.common.settings import USER_THREADED_VALUES
        threaded = user.predictions.logits.size >= USER_THREADED_VALUES
        if threaded:  # the calibrator comparison needs only the file: it runs beside the next stages
            from sitegen.yours.decision import start_comparison
            start_comparison(user)

    if args.single_file is not None:
        languages = {args.lang or REFERENCE_LANGUAGE: ""}
    else:
        languages = {args.lang: ""} if args.lang is not None else dict(LANGUAGES)
    target = args.single_file if args.single_file is not None else args.out
    print(f"building the tutorial ({', '.join(languages)}) into {target}", file=sys.stderr)
    total = time.perf_counter()
    with stage("content"):
        reference_dir = ROOT / "content" / REFERENCE_LANGUAGE
        reference = load_strings(reference_dir), load_sections(reference_dir)
        content = {}
        for lang in languages:
            folder = ROOT / "content" / lang
            strings, sections = load_strings(folder), load_sections(folder)
            require_same_keys(reference[0], strings)
            require_same_sections(reference[1], sections, folder)
            if user is not None:  # the report follows the intro, which holds the page's title
                sections = sections[:1] + user_model.load_user_section(folder) + sections[1:]
            content[lang] = strings, sections
    # A reader's model reuses the built-in datasets' results of a plain build (the same cache entries): its
    # fitted T is spliced into their grid, and only its own dataset is computed in full.
    with stage("compute"):
        plain = cache.get_or_compute("precompute", (None,), precompute_all)
        precomputed = plain if user is None else cache.get_or_compute(
            "precompute", (user, plain), lambda: user_model.precompute_with_user(user, plain))
    for warning in user_model.user_fit_warnings(precomputed, user) if user is not None else ():
        print(f"build.py: warning: {warning.message}", file=sys.stderr)
    with stage("analyses"):
        known = cache.get_or_compute("analyses", (plain,), lambda: precompute_analyses(plain))
        # a large model of a reader's: its calibration and test parts are the long jobs, one per core
        analyses = known if user is None else cache.get_or_compute(
            "analyses", (precomputed, known), lambda: analyses_with(precomputed, known, workers=2 if threaded else 1))
    # the bibliography is read by the facts, so it is in the facts' key
    sources = ROOT / "content" / "sources.toml"

    def all_facts():
        facts = page_facts(precomputed, analyses, sources, beyond, evidence)
        if user is not None:
            user_model.add_user_facts(facts, precomputed)
        return facts

    with stage("facts"):
        # the deep dives read only the built-in datasets: their own entry, shared by builds with and without --data
        beyond = cache.get_or_compute("beyond", (), build_beyond_facts)
        evidence = cache.get_or_compute("evidence", (), build_evidence_facts)
        facts = cache.get_or_compute("facts", (precomputed, analyses, user, sources, beyond, evidence),
                                     all_facts)
    with stage("figures"):  # drawn in each language: keyed by the tables of its strings that the figures read
        def figures_of(lang):
            return {**cache.get_or_compute_reading("figures", (precomputed, lang), content[lang][0],
                                                   lambda strings: render_figures(precomputed, strings)),
                    **cache.get_or_compute_reading("charts", (facts, lang), content[lang][0],
                                                   lambda strings: chart_figures(facts, strings)),
                    **cache.get_or_compute_reading("evidence-figures", (evidence, lang), content[lang][0],
                                                   lambda strings: render_evidence_figures(evidence["ev"], strings))}

        editions = [Edition(lang, folder, *content[lang], figures_of(lang)) for lang, folder in languages.items()]
    if args.single_file is not None:
        with stage("render"):
            page = assemble_single_file(ROOT, precomputed, analyses, facts, editions[0], base_url=args.base_url,
                                        published_folder=LANGUAGES.get(editions[0].lang, ""), user=user)
        with stage("write"):
            write_file(args.single_file, page)
        print(f"  {'total':<10} {time.perf_counter() - total:6.2f} s, one file ({cache.summary()})", file=sys.stderr)
        _print_decision(user, precomputed, analyses)
        return Path(args.single_file)
    with stage("render"):
        files = assemble_files(ROOT, precomputed, analyses, facts, editions, base_url=args.base_url, user=user,
                               one_file_editions=args.one_file_editions)
    with stage("write"):
        write_site(args.out, files)
    print(f"  {'total':<10} {time.perf_counter() - total:6.2f} s, {len(files)} files ({cache.summary()})",
          file=sys.stderr)
    _print_decision(user, precomputed, analyses)
    return Path(args.out)


def _print_decision(user, precomputed, analyses):
    """With --data, the last lines on stderr: the fitted T to deploy and the verdict on the test rows."""
    if user is None:
        return
    import json

    from sitegen.common.settings import USER_SLUG
    from sitegen.yours.decision import decision, verdict_line
    print(f"your model: fitted T = {json.dumps(precomputed.datasets[USER_SLUG].fitted_t)}", file=sys.stderr)
    print(f"your model: {verdict_line(decision(user, precomputed, analyses))}", file=sys.stderr)


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
    from sitegen.common.errors import BuildError
    from sitegen.content.sections import content_folder

    try:
        from sitegen.common.settings import LANGUAGES
        for lang in [args.lang] if args.lang is not None else LANGUAGES:
            content_folder(ROOT / "content", lang)
        if args.single_file is not None:
            from sitegen.write.atomic import check_file_target
            check_file_target(args.single_file)  # before the long build: a bad path fails at once
        else:
            from sitegen.write.atomic import check_site_target
            check_site_target(args.out)  # likewise for the site's folder
        if args.serve:  # the sources as this build reads them: a change made while it runs rebuilds again
            from sitegen.write.serve import Watcher
            watcher = Watcher(ROOT, extra=[args.data] if args.data else ())
        out = build(args)
        if args.serve:
            try:
                serve(out, args.port, rebuilder(sys.argv[1:] if argv is None else list(argv)), watcher)
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
