"""The main explorer (``#ex1``, the one that keeps its state in the URL) as a reader finds it: controls
by role and by the label the page shows (``content/en/strings.toml`` ``[ui]``), changed the way a
reader changes them, and the ``#state/`` hash it writes, read from the URL itself."""

import re
from urllib.parse import unquote, urlsplit

HASH_PREFIX = "#state/"
# the state hash, at no place or at one (#<id>/state/…: a link followed, or the language switcher carrying
# the section being read; static/js/hash.js)
STATE_HASH = r"#(?:[^/#&=]+/)?state/"


def named(text):
    """A name pattern: ``text`` at the start of an accessible name (a button's text may go on, e.g. "= 1.2298")."""
    return re.compile("^" + re.escape(text))


# Scroll a widget whose markup still waits in its <template> into view, once a frame, until it is built (or 5 s
# pass: hash.js may hold the page at a linked place meanwhile; near() then waits for the slider as usual). One call:
# the page's own frames pace it, instead of a round trip and a fixed sleep per try.
BUILD_NEAR = """async e => {
    const waiting = () => !!e.querySelector(':scope > template[data-widget-markup]');
    const until = performance.now() + 5000;
    while (waiting() && performance.now() < until) {
        e.scrollIntoView();
        await new Promise(done => requestAnimationFrame(done));
    }
}"""

# Wait for ``n`` animation frames: the page has laid out and drawn what a scroll, a click or new data asked for.
AFTER_FRAMES = """n => new Promise(done => {
    const next = () => (n-- > 0 ? requestAnimationFrame(next) : done());
    next();
})"""


def frames(page, n=2):
    """Return once ``page`` has drawn ``n`` more frames (its own pace, not a fixed sleep)."""
    page.evaluate(AFTER_FRAMES, n)


def near(page, root):
    """The widget ``root`` (a selector or locator) with its controls built: its interactive markup waits
    in a <template> until it comes near the viewport (static/js/main.js), so scroll it there if it is
    still waiting, then wait for its slider. Returns the root's locator."""
    root = page.locator(root) if isinstance(root, str) else root
    root.evaluate(BUILD_NEAR)
    root.locator('input[type="range"]').first.wait_for(state="attached")
    return root


class Explorer:
    """Locators and actions for one explorer; ``ui`` is the strings table, ``expect`` Playwright's,
    ``number`` the page language's number filters."""

    def __init__(self, page, ui, expect, root="#ex1", number=None):
        self.page, self.ui, self.expect = page, ui, expect
        self.number = number  # the page language's number filters (sitegen.common.numbers.number_filters)
        self.root = root = page.locator(root)
        self.slider = root.get_by_role("slider", name=ui["temperature"], exact=True)
        self.readout = root.get_by_role("status").and_(root.locator("output"))
        self.status = root.get_by_role("status", include_hidden=True).and_(root.locator("p"))  # empty when all is well
        self.dataset = root.get_by_role("combobox", name=ui["dataset"], exact=True)
        self.bins = root.get_by_role("spinbutton", name=ui["bins"], exact=True)
        self.reset = root.get_by_role("button", name=ui["button_t1"], exact=True)
        self.fit = root.get_by_role("button", name=named(ui["button_fitted_plain"]))
        self.pin = root.get_by_role("button", name=ui["button_pin"], exact=True)
        self.bands = root.get_by_role("checkbox", name=ui["show_bands"], exact=True)
        self.smooth = root.get_by_role("checkbox", name=ui["show_smooth"], exact=True)
        self.bin_table = root.get_by_role("table", name=ui["bin_table_caption"], exact=True)
        self.diagram = root.get_by_role("figure", name=named(ui["reliability_caption"]))
        self.uncertainty = root.locator(".panel").filter(
            has=page.get_by_role("heading", name=ui["uncertainty_title"], exact=True))
        near(page, root)

    def scheme(self, value):
        """The radio of binning scheme ``value`` ("equal-width" or "adaptive")."""
        return self.root.get_by_role("radio", name=self.ui[f"scheme_{value}"], exact=True, include_hidden=True)

    def part(self, value):
        """The radio of part ``value`` ("calibration" or "test"), found even while hidden."""
        return self.root.get_by_role("radio", name=self.ui[f"part_{value}"], exact=True, include_hidden=True)

    def card(self, metric):
        """The value printed on the card of ``metric`` (nll, brier, ece-w, ece-a, mce, accuracy, confidence)."""
        return self.root.locator(f'[data-metric="{metric}"] .value')

    def choose(self, *, dataset=None, scheme=None, bins=None, part=None):
        """Set controls the way a person would."""
        if dataset is not None:
            self.dataset.select_option(dataset)
            self.wait_loaded(dataset)
        if part is not None:
            self.part(part).check()
        if scheme is not None:
            self.scheme(scheme).check()
        if bins is not None:
            self.set_bins(bins)

    def wait_loaded(self, dataset):
        """Wait until ``dataset`` is the one shown, as a reader waits for it to appear: a count typed within
        milliseconds of the choice raced the file's arrival under a loaded CI machine. (The state names the
        dataset only once its file has arrived, so the wait compares with the name chosen.)"""
        self.page.wait_for_function(
            "([root, name]) => { const x = root.explorer; "
            "return !!(x && x.state.model && x.state.model.name === name); }",
            arg=[self.root.element_handle(), dataset])

    def set_bins(self, bins):
        """Type ``bins`` into the bin-count box and press Enter, as a keyboard reader does."""
        self.bins.fill(str(bins))
        self.bins.press("Enter")

    def press(self, key, times=1):
        """Press ``key`` on the temperature slider ``times`` times."""
        self.slider.focus()
        for _ in range(times):
            self.page.keyboard.press(key)

    def index(self):
        """The slider's position: an index into the engine's temperature grid."""
        return int(self.slider.input_value())

    def hash_state(self):
        """The URL's ``#state/`` hash (``#<place>/state/`` at a place) as a dict of its fields (as it is now)."""
        fragment = "#" + urlsplit(self.page.url).fragment
        head = re.match(STATE_HASH, fragment)
        assert head, f"hash {fragment!r} lacks the {HASH_PREFIX} prefix"
        return dict(pair.split("=", 1) for pair in unquote(fragment[head.end():]).split("&") if pair)

    def expect_hash(self, **want):
        """Wait until the URL's hash carries every ``key=value`` of ``want`` (the explorer writes it a
        moment after the controls settle); returns the whole hash as a dict."""
        fields = "".join(f"(?=(?:.*&)?{re.escape(key)}={re.escape(str(value))}(?:&|$))" for key, value in want.items())
        self.expect(self.page).to_have_url(re.compile(STATE_HASH + fields))
        return self.hash_state()
