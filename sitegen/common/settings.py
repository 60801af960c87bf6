"""Every choice the page makes, in one place.

The engine (:mod:`calib`) makes no page choices: the site's pipeline reads
them here and passes them to the engine as arguments. Where the page simply
adopts one of the engine's statistical defaults (the fit's search interval and
tolerance, bootstrap resamples, noise-floor draws), the name below refers to
that default rather than typing the number again.
"""

from calib import (
    DATASET_NAMES,
    DEFAULT_BOUNDS,
    DEFAULT_DRAWS,
    DEFAULT_RESAMPLES,
    DEFAULT_SWEEP_DRAWS,
    DEFAULT_TOLERANCE,
)
from calib import datasets as _recipes

# The payload's display units (the scripts read them from the core payload's "units"): rates (ECE,
# accuracy, confidence) in 1e-3, scores (NLL in nats, Brier) in 1e-5.
SCORE_SCALE = 100_000
RATE_SCALE = 1_000
# The grid's temperatures go to the scripts with eight significant digits (not the engine's ten): the page
# prints a T with three and a #state/ link with five, and every grid point reads the same either way
# (tests/test_sitegen_payload.py checks it); it is the first view's largest number list.
GRID_DIGITS = 8

__all__ = [
    "DATASETS", "WORKED_EXAMPLE", "DEFAULT_DATASET",
    "FIT_BOUNDS", "FIT_TOLERANCE", "GRID_POINTS", "GRID_BOUNDS", "SIGNIFICANT_DIGITS",
    "OFFERED_BIN_COUNTS", "SELECTABLE_BIN_COUNTS", "MAX_SWEEP_BINS", "TABLE_BINS", "PROSE_FEW_BINS",
    "SUBGROUP_BIN_COUNTS",
    "SHOWCASE_SIZE", "EXAMPLE_LIST_MAX_ROWS", "WORKED_EXAMPLE_BINS", "SOFTMAX_SHARP_T", "SOFTMAX_SOFT_T",
    "ANALYSIS_SEED", "RESAMPLES", "DRAWS", "SWEEP_DRAWS", "SUBGRID_STEP", "SUBGRID_ROWS", "CURVE_POINTS",
    "QUOTED_RESAMPLES", "MONTE_CARLO_LEVEL", "FIT_SPREAD_TRUTH", "FIT_RESAMPLES", "TRUTH_DRAWS", "FIT_SPREAD_QUANTILES",
    "REFIT_TOLERANCE", "LARGE_PART_ROWS", "QUOTED_ROW_BUDGET",
]

# --- datasets -----------------------------------------------------------------------------------
DATASETS = DATASET_NAMES        # the datasets the page shows, in this order
WORKED_EXAMPLE = "six"          # the dataset the prose works through by hand (figures, softmax walk-through)
DEFAULT_DATASET = WORKED_EXAMPLE  # the explorer opens on it; its payload is inlined in the page

# --- the temperature fit and the slider's grid --------------------------------------------------
FIT_BOUNDS = DEFAULT_BOUNDS     # bounded search interval of every fitted T
FIT_TOLERANCE = DEFAULT_TOLERANCE  # final bracket width of that search
GRID_POINTS = 534               # geometric grid points (relative step ≈ 0.99%)
GRID_BOUNDS = FIT_BOUNDS        # the grid spans the fit's interval, so every fitted T lies on the slider
SIGNIFICANT_DIGITS = 10         # grid temperatures and fitted T are rounded to this many digits

# --- your own model (build.py --data) ------------------------------------------------------------
USER_SLUG = "yours"             # the reader's dataset in file names, payload keys and the #state/ hash
                                # (never their name)
USER_MAX_NAME_CHARS = 120       # --name: longest display name
USER_MAX_DESCRIPTION_CHARS = 600  # --description: longest description
USER_MAX_LABEL_CHARS = 80       # longest class or group name in the file
USER_MAX_GROUPS = 20            # most distinct groups (each gets its own views and payload section)
USER_BAR_CLASSES = 10           # with more classes, an example's bars show the top USER_BAR_CLASSES - 1
                                # and "all others"
USER_SWEEP_ROWS = (1, 5, 10, 15, 20, 30, 50)  # bin counts of the report's "ECE against the number of bins" table

# --- bins ---------------------------------------------------------------------------------------
OFFERED_BIN_COUNTS = (4, 5, 10, 15, 20)  # bin counts with every view on the full grid: per-bin diagrams in
                                # the dataset file, bootstrap spreads and noise-floor bands, group diagrams
MAX_SWEEP_BINS = 50             # the bin-count sweep runs over 1..50 bins
SELECTABLE_BIN_COUNTS = tuple(range(1, MAX_SWEEP_BINS + 1))  # the bin counts a reader can choose: ECE on the
                                # full grid in the dataset file; the others' diagrams and MCE in
                                # data/<name>-<part>-bins.js
TABLE_BINS = 15                 # the tables' ECE and the subgroups' reliability bins (as Guo et al. report)
PROSE_FEW_BINS = 5              # the small bin count the prose sets against TABLE_BINS and MAX_SWEEP_BINS
SUBGROUP_BIN_COUNTS = (5, 10, 15, 20)  # bin counts of the subgroup table's ECEs

# --- examples and illustrations -----------------------------------------------------------------
SHOWCASE_SIZE = 6               # examples whose probability bars the explorer shows
EXAMPLE_LIST_MAX_ROWS = 12      # a dataset this small lists every example (six and twelve)
WORKED_EXAMPLE_BINS = 4         # equal-width bins of the worked example's figures, bins and bin jumps
# The hero (sitegen/render/hero.py): the worked example over the grid's temperatures in this range, its T axis
# labelled at these temperatures
HERO_T_RANGE = (0.5, 3.0)
HERO_T_TICKS = (0.5, 1.0, 2.0, 3.0)
CHART_TABLE_BINS = (1, 2, 3, 4, 5, 10, 15, 20, 30, 40, 50)  # rows of the ECE-against-bins chart's table
__all__ += ["HERO_T_RANGE", "HERO_T_TICKS", "CHART_TABLE_BINS"]
SOFTMAX_SHARP_T = 0.5           # the softmax walk-through's sharpening temperature
SOFTMAX_SOFT_T = 2.0            # … and its softening one

# --- uncertainty analyses -----------------------------------------------------------------------
ANALYSIS_SEED = 20230922        # root seed of every random draw of the analyses
RESAMPLES = DEFAULT_RESAMPLES   # bootstrap resamples
DRAWS = DEFAULT_DRAWS           # simulated outcome sets behind the noise floor and its bands
SWEEP_DRAWS = DEFAULT_SWEEP_DRAWS              # simulated outcome sets behind the floor of the 1..50-bin sweep
SUBGRID_STEP = 10               # the analyses run on every 10th grid point (plus T = 1 and the fitted T)
SUBGRID_ROWS = 50_000           # ... for parts of up to this many rows; a dataset whose largest part has n rows
                                # uses every (10 · ⌈n / SUBGRID_ROWS⌉)-th point, so the analyses' cost
                                # (temperatures × rows) stops growing with n (a reader's model of 10^6 rows)
CURVE_POINTS = 51               # the smoothed reliability curve is sampled at 0, 0.02, …, 1

# --- the uncertainty the prose quotes (only at T = 1 and the fitted T) --------------------------
# Each purpose draws from its own stream of ANALYSIS_SEED (sitegen.analyses.uncertainty.part_generator: "quoted",
# "refit", "truth"), independent of the explorer's "bootstrap" and "floor" streams, which stay as they were.
QUOTED_RESAMPLES = 2000         # bootstrap resamples behind the spreads and paired changes the prose quotes
MONTE_CARLO_LEVEL = 0.95        # coverage of the order-statistic interval stated for each quoted quantile
FIT_SPREAD_TRUTH = {"sim-600": _recipes.SIM_LABEL_TEMPERATURE}  # datasets whose fitted T gets a spread: their label T
FIT_RESAMPLES = 2000            # bootstrap refits of that T on its fitting rows
TRUTH_DRAWS = 2000              # label sets redrawn from softmax(z / label T) on the same logits, each refitted
FIT_SPREAD_QUANTILES = (0.025, 0.5, 0.975)  # the fitted T's median and 95% range
REFIT_TOLERANCE = 1e-5          # bracket width of those refits (the page prints T to 3 decimals)
# Large parts (a reader's own model, up to 10^6 rows): the quoted bootstrap costs resamples × rows, so above
# LARGE_PART_ROWS rows it draws QUOTED_ROW_BUDGET / n resamples (never fewer than RESAMPLES); the Monte Carlo
# interval stated with every quoted quantile widens accordingly (sitegen.analyses.uncertainty.quoted_resamples_for).
LARGE_PART_ROWS = 20_000
QUOTED_ROW_BUDGET = QUOTED_RESAMPLES * LARGE_PART_ROWS

# --- tests of calibration (sitegen.facts.evidence: the p-values beside the ranges) --------------------
TEST_LEVEL = 0.05               # the level the prose reads the p-values at
TEST_DRAWS = 999                # outcome sets redrawn by the ECE consistency test ((999 + 1) × 5% is whole)
SKCE_TEST_DRAWS = 199           # label sets redrawn by the SKCE test
SKCE_TEST_ROWS = 1000           # … on at most this many rows (a random subsample above; O(n² K) per draw)
SIZE_SETS = 400                 # calibrated outcome sets behind the build's own check of the ECE test's size
SIZE_DRAWS = 199                # … each tested with this many draws
CLASSWISE_DATASETS = ("overconfident", "digits-mlp")  # datasets whose class-wise reliability diagrams the page draws
CLASSWISE_BINS = 10             # … with this many equal-width bins per class
CORP_RESAMPLES = 1000           # bootstrap resamples (and calibrated outcome sets) behind CORP's decomposition ranges
P_DIGITS = 3                    # a p-value is printed with three decimals; below 10⁻³ as "< 0.001"
__all__ += ["TEST_LEVEL", "TEST_DRAWS", "SKCE_TEST_DRAWS", "SKCE_TEST_ROWS", "SIZE_SETS", "SIZE_DRAWS", "P_DIGITS",
            "CORP_RESAMPLES", "CLASSWISE_DATASETS", "CLASSWISE_BINS"]

# --- prose --------------------------------------------------------------------------------------
VERDICT_MAX_BINS = 12           # the paradox lists the bin counts 1..12 at which the fit lowers or raises
                                # the six-row ECE

# --- languages ----------------------------------------------------------------------------------
# Every edition the default build writes: language tag → its folder in the site ("" is the root, whose
# page is also x-default). Its prose and interface strings are content/<tag>/. The first is the
# reference: every other language must have the same section files and the same strings keys.
LANGUAGES = {
    "en": "",
    "es": "es",
}
REFERENCE_LANGUAGE = next(iter(LANGUAGES))

# --- embeds -------------------------------------------------------------------------------------
# Each embed page's height is measured (tools/embed_heights.py) at these widths, CSS pixels: 320, the
# narrowest common course column (a 360 px phone less 16 px page padding each side leaves 328 px; 320 is
# the round width below it), and 720, a wide one. The results are the [widgets] table of
# templates/panels/manifest.toml; a widget's iframe snippet starts at its height at the first width.
EMBED_MEASURED_WIDTHS = (320, 720)
EMBED_DEFAULT_HEIGHT = 800      # CSS pixels, a widget not measured yet
ONE_FILE_WIDGET_MAX_GZIP = 200_000  # bytes gzip: a widget alone is published as one file only below this
EMBED_WIDTH = EMBED_MEASURED_WIDTHS[0]  # the width an oEmbed response states (the snippet itself is 100% wide)
# The slimmer versions of a widget its Embed box offers: {widget: (a #state/panels= value, …)}, each measured
# like a whole widget (manifest key "<widget>#panels=<value>"). "reliability": the diagram and its slider only.
EMBED_PANEL_CHOICES = {"explorer": ("reliability",)}

__all__ += ["USER_SLUG", "USER_MAX_NAME_CHARS", "USER_MAX_DESCRIPTION_CHARS", "USER_MAX_LABEL_CHARS",
            "USER_MAX_GROUPS", "USER_BAR_CLASSES", "USER_SWEEP_ROWS"]
__all__ += ["VERDICT_MAX_BINS", "LANGUAGES", "REFERENCE_LANGUAGE", "EMBED_DEFAULT_HEIGHT", "EMBED_WIDTH",
            "SCORE_SCALE", "RATE_SCALE", "GRID_DIGITS", "EMBED_MEASURED_WIDTHS", "EMBED_PANEL_CHOICES",
            "ONE_FILE_WIDGET_MAX_GZIP"]

# --- your own model: the decision part of the report (sitegen.yours.decision) ------------------------
# the report's second MCE leaves out bins of fewer rows (a bin of 1–2 rows shows any gap)
USER_MCE_MIN_ROWS = 10
USER_CLASS_ROWS = 20            # the per-class table: every class when K ≤ 20, else the 20 most frequent
USER_SPREAD_BUDGET = 8_000_000  # (row, class) values per search step of the fitted T's bootstrap refits
USER_SPREAD_MIN_RESAMPLES = 100  # … never fewer refits: past the budget they resample a subsample (m-out-of-n)
# a model of at least this many logits (rows × classes) has its calibrator comparison and its analyses' parts run
# on threads beside the rest of the build; below it, two threads on two cores cost more than they save (the
# 719-row digits model: 58.6 s of CPU threaded, 42.5 s not)
USER_THREADED_VALUES = 500_000
__all__ += ["USER_MCE_MIN_ROWS", "USER_CLASS_ROWS", "USER_SPREAD_BUDGET", "USER_SPREAD_MIN_RESAMPLES",
            "USER_THREADED_VALUES"]

# --- reading time and the core path (sitegen.content.reading_time) -------------------------------------------
# The contents time each section as its words at this pace, plus an allowance for each figure and each exercise
# outside the closed deep dives, rounded to whole minutes; a part's and the page's times are the sums of those.
# The pace is a student's on technical prose: first-year readers of issue 26 read about 6,600 words of this page
# in about 45 minutes (about 147 words a minute) with its figures.
WORDS_PER_MINUTE = 160
FIGURE_MINUTES = 1.0            # looking at one figure: a widget or a static chart
EXERCISE_MINUTES = 2.0          # trying one exercise and reading its answer
CORE_WORD_BUDGET = 3500         # English words of the core part by the counting rule (tests/browser/test_core_words.py)
__all__ += ["WORDS_PER_MINUTE", "FIGURE_MINUTES", "EXERCISE_MINUTES", "CORE_WORD_BUDGET"]
# The page's parts, in order, each one element marked data-part around its sections (by slug, the name of
# content/<lang>/NN-name.md): the core a student reads first, then measuring honestly, beyond one temperature, and
# the reference. "yours" (the reader's model, only with --data) follows the introduction.
PARTS = (
    ("core", ("intro", "yours", "promise", "temperature", "fitting", "reliability", "paradox", "held-out")),
    ("measuring", ("explorer", "chance", "bins", "smooth")),
    ("beyond", ("groups", "beyond", "contract")),
    ("reference", ("reproduce", "equations", "data", "sources", "terms")),
)
__all__ += ["PARTS"]
# Sections of look-up tables: on a phone their wide tables scroll in their region (with a shadow at the hidden
# edge); every other table of four or more columns stacks into label–value rows (sitegen/content/article.py).
SCROLLING_TABLE_SECTIONS = ("reproduce", "equations", "data", "sources", "terms")
__all__ += ["SCROLLING_TABLE_SECTIONS"]
