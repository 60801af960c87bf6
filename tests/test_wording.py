"""What a calibration researcher corrected in the prose stays corrected, in both languages.

Each pair below is a claim the page used to make and the wording that replaced it (issue 17,
"What the researcher would still correct"): the old claim must not come back, the new one must be there.
"""

from pathlib import Path

import pytest

CONTENT = Path(__file__).resolve().parents[1] / "content"


def prose(lang):
    """The Markdown prose of one language, sections in order, as one string."""
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted((CONTENT / lang).glob("[0-9][0-9]-*.md")))


RETRACTED = {
    "en": [
        "Stronger versions ask every class probability",  # class-wise is neither stronger nor weaker
        "only the confidence does",                      # all K probabilities move
        "Only the confidence attached to each prediction moves",
        "is no evidence of anything",                    # inside a band: not, by itself, significant
        "so whatever a proper score gains or loses is calibration",  # true only for full-vector scores
        "are not short of neighbours",                   # the reference kernel halves a prediction at 1
        "describe them honestly",                        # equal averages are one-bin calibration
        "Top-label calibration",                         # the page's condition is confidence calibration
        "below_se | pct",                                # a Monte Carlo error of a share: percentage points
        "fewer bins hide more",                          # the rise with more bins is mostly upward bias
        "did not carry over to them",                    # Minderer et al.: the trends are much weaker
        "act on each class's logit, so they cannot",     # matrix and Dirichlet mix the logits
        "one over $n$ times the Fisher",                 # 1 / (n I)
        "penalty keeps it finite",                       # some ten-row draws still reach zero
    ],
    "es": [
        "Hay versiones más estrictas que piden",
        "solo cambia la confianza.",
        "Lo único que se mueve es la confianza",
        "no es prueba de nada",
        "así que lo que una puntuación propia gana o pierde es calibración",
        "no les faltan vecinas",
        "las describen con honestidad",
        "Calibración de la clase predicha",
        "lo fija lo deprisa que crece",
        # Sentences that read as translated (issue 17, "What a student and a Spanish reader tripped over")
        "intervalos (<span lang=\"en\">*bins*</span>) de confianza",  # read as confidence intervals
        "frecuencias con las que puedes hacer planes",
        "la costumbre del modelo",
        "Un acierto dicho con seguridad cuesta poco",
        "bajo palabra",
        "pertenece a un contrato de medición",
        "a los que no sabes poner nombre",
        "segunda ración",
        # One name per thing
        "pérdida logarítmica media",                     # NLL is «verosimilitud logarítmica negativa»
        "Barras de consistencia",                        # «bandas de consistencia»
        "malla discreta",                                # the smoothing mesh is «la malla»
        "ancho de banda",                                # the kernel width is «la anchura (del núcleo)»
        "cuantos menos intervalos, más oculta",
        "no se mantuvo en ellos",
        "actúan sobre el logit de cada clase, así que",
        "uno entre $n$ por la información de Fisher",
        "penalización del escalado matricial la mantiene finita",
        "below_se | pct",                                # a Monte Carlo error of a share: percentage points
    ],
}

# The same for the interface strings (content/<lang>/strings.toml).
RETRACTED_STRINGS = {
    "en": ["{n} examples\"",                             # dataset labels say rows, as the tables do
           ],
    # Spanish dataset labels say ejemplos, as the prose does: one term (issue 28; glossary.md)
    "es": ["Quitar todos los fijados", "{n} filas\"", "ancho de la ventana"],
}

REQUIRED = {
    "en": ["### Confidence calibration", "*confidence calibration*", "*Class-wise* calibration",
           "*canonical* calibration", "not, by itself, significant", "squared ($\\ell_2$) calibration error",
           "a heuristic, not the exact reason", "Poisson-binomial", "counts half as much",
           "the finite-sample estimate", "not the frequency of the label", "sandwich variance",
           "temperature scaling itself makes the top-label ECE worse"],
    "es": ["### Calibración de la confianza", "*calibración de la confianza*", "calibración *por clase*",
           "calibración *canónica*", "no es significativa por sí sola", "al cuadrado ($\\ell_2$)",
           "explicación aproximada, no la razón exacta", "Poisson binomial", "pesa la mitad",
           "con una muestra finita", "no la frecuencia de la etiqueta", "varianza «sándwich»",
           "el propio escalado de temperatura empeora el ECE"],
}


@pytest.mark.parametrize("lang", sorted(RETRACTED))
def test_retracted_claims_stay_out(lang):
    text = prose(lang)
    assert [claim for claim in RETRACTED[lang] if claim in text] == []


@pytest.mark.parametrize("lang", sorted(RETRACTED_STRINGS))
def test_retracted_strings_stay_out(lang):
    text = (CONTENT / lang / "strings.toml").read_text(encoding="utf-8")
    assert [phrase for phrase in RETRACTED_STRINGS[lang] if phrase in text] == []


@pytest.mark.parametrize("lang", sorted(REQUIRED))
def test_corrected_wording_is_there(lang):
    text = prose(lang)
    assert [phrase for phrase in REQUIRED[lang] if phrase not in text] == []


# The calques a reader from Spain flagged in the Spanish edition (issue 28), and what replaced them: the old
# phrasing must not come back, in the prose or in the interface strings; the rewrite must be there.
SPANISH_CALQUES = [
    "lo que una métrica de calibración puede decirte y lo que no", "un solo mando", "con honestidad",
    "que se sostienen juntas", "Las ecuaciones, todas juntas", "uno al lado de otro", "Cuánto de esto es ruido",
    "menor es mejor", "está haciendo una afirmación que se puede poner a prueba", "El protocolo honesto",
    "ocultan sus partes", "las más confiadas", "la pérdida logarítmica de más", "lo dan junto a lo que proponen",
    "teléfono", "los doce contrastes", "debe quedar anotad", "sea seguro", "Medida en la temperatura inversa",
    "el veredicto honesto", "Cuánto del ECE", "puede decirte", "pueden decirte",
]
SPANISH_REWRITES = [
    "qué dice (y qué calla) una métrica de calibración", "un único parámetro para todas las predicciones",
    "Cómo leer un diagrama sin engañarse", "Tres afirmaciones ciertas a la vez", "## Todas las ecuaciones",
    "hace una afirmación comprobable", "Lo correcto es ajustar $T$", "esconden lo que pasa en cada grupo",
    "tienen mayor confianza", "lo usan como referencia o lo aplican sobre su método",
    "los doce ejemplos de contraste", "conviene anotar con qué puntuación se ajustó $T$", "sea inocuo",
    "conviene medirlo respecto a la temperatura inversa",
]


def test_the_spanish_calques_stay_out():
    text = prose("es") + (CONTENT / "es" / "strings.toml").read_text(encoding="utf-8")
    assert [calque for calque in SPANISH_CALQUES if calque in text] == []


def test_the_spanish_rewrites_are_there():
    text = prose("es")
    assert [phrase for phrase in SPANISH_REWRITES if phrase not in text] == []
