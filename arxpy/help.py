"""Help in plain words: one short topic per perspective, method, privacy and quality
model, and a glossary (no Qt).

The GUI's "?" buttons and Help menu, ``arxpy glossary`` and ``arxpy methods`` read the
same texts. Methods and models describe themselves (``summary``, ``guidance``, each
parameter's ``help``), so a new method or model has its help where it is declared; only
the perspectives and the glossary are written here.
"""

from __future__ import annotations

from dataclasses import dataclass

from arxpy.errors import ConfigurationError
from arxpy.params import Param


@dataclass(frozen=True)
class Topic:
    """A help page: a title, paragraphs, titled sections and glossary terms to look up."""

    key: str
    title: str
    paragraphs: tuple[str, ...]
    sections: tuple[tuple[str, str], ...] = ()
    terms: tuple[str, ...] = ()
    #: A heading over the sections ("Settings" for methods and models).
    sections_heading: str = ""

    def to_text(self) -> str:
        """The topic as plain text (the command line)."""
        parts = [self.title, "=" * len(self.title), *self.paragraphs]
        if self.sections and self.sections_heading:
            parts.append(self.sections_heading + ":")
        parts += [f"{heading}\n  {text}" for heading, text in self.sections]
        if self.terms:
            parts.append("See the glossary: " + ", ".join(self.terms) + ".")
        return "\n\n".join(parts)


GLOSSARY: dict[str, str] = {
    "differential privacy": "A promise about the process, not the table: adding or "
    "removing any one person changes the probability of every possible release by at most "
    "a factor e^ε, except with probability δ. arxpy, as ARX, reaches it by SafePub: a "
    "random sample of the records, a generalization chosen at random with a preference "
    "for good quality, and suppression of every class smaller than a k derived from ε "
    "and δ.",
    "identifying attribute": "An attribute that names a person directly (name, record "
    "number, phone). It is removed from every release.",
    "quasi-identifier": "An attribute an attacker can know from elsewhere and link on "
    "(age, sex, ZIP code, dates). Quasi-identifiers are generalized or otherwise "
    "transformed; privacy models and the attacker's view are computed over them.",
    "sensitive attribute": "An attribute whose value must not be learnt about a person "
    "(diagnosis, income). Models such as l-diversity and t-closeness protect it.",
    "insensitive attribute": "An attribute released as it is.",
    "equivalence class": "The records that share the same values of every "
    "quasi-identifier in a release. An attacker who knows a person's quasi-identifiers "
    "can narrow them down to their class, not further.",
    "hierarchy": "For one attribute, the steps from exact values to coarser ones, e.g. "
    "age 34 -> 30-39 -> 30-59 -> *. Each step is a generalization level.",
    "transformation": "One generalization level per quasi-identifier. A transformation and "
    "the records it suppresses make one candidate release of the lattice search.",
    "lattice": "All transformations, ordered from no generalization (bottom) to full "
    "generalization (top). The search checks transformations in it for the privacy "
    "models and the quality model.",
    "suppression": "Removing records (or values) from the release instead of "
    "generalizing further. The suppression limit caps the share of records that may be "
    "removed.",
    "candidate": "A release the workbench offers for comparison: a transformation of a "
    "lattice search, or the output of another method's run.",
    "run": "One execution of a method on the project's data with given parameters. Runs "
    "are kept in Explore's list, saved with the project and can be compared.",
    "pin": "Marking a candidate to keep it in Compare beside others, from any run.",
    "release": "The table (or document) a run produces for publication, together with "
    "the claims its method makes about it.",
    "claim": "What a method promises about its release (e.g. every class holds at least 5 "
    "records). Each claim is checked again by a checker written apart from the method.",
    "verdict": "The one judgement of a release shown everywhere: whether its claims hold "
    "when checked independently, and what an attacker holding the declared "
    "quasi-identifiers sees.",
    "attacker's view": "The release as an attacker who knows the declared "
    "quasi-identifiers sees it: the sizes of the classes they can narrow a person down to, "
    "and the risks that follow. It can differ from a method's claims when the method "
    "covered fewer attributes.",
    "k-anonymity": "Every record shares its quasi-identifier values with at least k - 1 "
    "others, so re-identification by linking succeeds with probability at most 1/k.",
    "l-diversity": "Every class holds at least l well-represented values of a sensitive "
    "attribute (distinct, by entropy, or recursive (c,l)), so knowing a person's class "
    "does not reveal their sensitive value.",
    "t-closeness": "The distribution of a sensitive attribute in every class is within "
    "distance t (earth mover's distance) of its distribution in the whole table.",
    "δ-disclosure privacy": "No class changes the frequency of a sensitive value by a "
    "factor of 2^δ or more compared with the whole table.",
    "β-likeness": "No sensitive value becomes more than (1 + β) times as frequent in a class "
    "as in the whole table.",
    "k^m-anonymity": "For sets of codes per record: an attacker who knows any m codes of a "
    "person finds at least k records that contain them.",
    "prosecutor risk": "The re-identification risk when the attacker knows the person is "
    "in the data: 1 / the size of their class.",
    "journalist risk": "The risk when the attacker does not know whether the person is in "
    "the data and links against a larger population table.",
    "marketer risk": "The share of records an attacker who tries to re-identify everyone "
    "would get right on average.",
    "population uniqueness": "The estimated share of the population that is unique on the "
    "quasi-identifiers, from the sample (Pitman, Zayatz, SNB, or Dankar et al.'s choice).",
    "information loss": "How much a release differs from the original. The lattice search "
    "minimises one quality model; Compare also shows measures that apply to every method "
    "(entropy loss, errors of means and standard deviations, change of correlations).",
    "quality model": "The measure of information loss the lattice search minimises (Loss, "
    "Precision, Discernibility, Non-uniform entropy, KL divergence, ...).",
    "optimum": "The anonymous transformation with the least information loss under the "
    "configured quality model.",
    "ZeroR baseline": "A classifier that always predicts the most frequent class; a model "
    "trained on a release is only useful if it beats it.",
    "relative accuracy": "The share of the original data's gain over ZeroR that a "
    "classifier trained on the release keeps. It means little when the original "
    "classifier is itself hardly better than ZeroR.",
    "synthetic records": "Rows made up from statistics of groups of real records "
    "(condensation). They stand for no single person, so class sizes and re-identification "
    "risks do not apply to them.",
    "microaggregation": "Grouping at least k similar records and replacing their values by "
    "the group's mean (MDAV, TFRP).",
    "condensation": "Grouping at least k records and releasing synthetic records drawn "
    "from each group's mean and covariance.",
    "disassociation": "Publishing sets of codes per record so that rare combinations are "
    "split into separate chunks, without generalizing or suppressing any code.",
    "interval generalisation": "Replacing numeric values by intervals (boxes) shared by at "
    "least k records; statistics computed over the intervals contain the true ones.",
    "pattern-based suppression": "kPB-MS: selecting the features that predict the class and "
    "removing records whose pattern of values is rarer than k.",
    "seed": "The number that fixes a method's random choices and the output's row order; "
    "the same seed on the same data gives the same release.",
    "output order": "Released rows are shuffled by default, so nobody can join them to "
    "another copy of the data by row number. The seed of the shuffle is in the report.",
}

_PERSPECTIVES: dict[str, tuple[str, tuple[str, ...], tuple[tuple[str, str], ...],
                               tuple[str, ...]]] = {
    "Start": (
        "Getting started",
        ("Open the bundled example to look around, import a table (CSV, Excel or SQLite), "
         "or open a saved project. Then work through the perspectives from left to right: "
         "Configure what the data are and how to protect them, Explore the candidate "
         "releases, check their Utility and Risk, and export the one you choose.",),
        (("Your data stay here", "arxpy works on your machine and sends nothing anywhere. "
          "It writes the project, exports and reports where you choose, and while a "
          "project has unsaved changes a recovery copy in the application's data folder, "
          "removed when you save or close."),),
        ("quasi-identifier", "release", "verdict"),
    ),
    "Configure": (
        "Configure: say what the data are and how to protect them",
        ("Give every attribute a role, a hierarchy where it is generalized, and choose the "
         "method with its settings. Nothing is released from here: Run starts the chosen "
         "method and its result appears in Explore.",),
        (("Attribute roles", "Identifying attributes are removed. Quasi-identifiers are "
          "transformed and define what an attacker can link on. Sensitive attributes are "
          "protected by models such as l-diversity. Insensitive attributes are released as "
          "they are."),
         ("Hierarchies", "The lattice search needs a hierarchy for each quasi-identifier: "
          "build one with the wizard (intervals, masking, ordering) or import it."),
         ("Privacy models", "What every release must satisfy: k-anonymity against "
          "linking, l-diversity, t-closeness, δ-disclosure or β-likeness for a sensitive "
          "attribute, or a limit on re-identification risk."),
         ("Method", "The lattice search (ARX's method) is the default; other methods suit "
          "numeric data for regression (condensation, microaggregation), intervals, sets "
          "of diagnosis codes (disassociation) or classification (kPB-MS). The \"?\" "
          "beside the method explains the chosen one.")),
        ("quasi-identifier", "sensitive attribute", "hierarchy", "k-anonymity",
         "suppression"),
    ),
    "Explore": (
        "Explore: look at the candidates and choose one",
        ("Every run is kept in the list of runs. A lattice search offers many candidate "
         "transformations; other methods offer their release. Pin candidates from any "
         "runs and compare them side by side, then apply one and export it.",),
        (("Lattice", "Each node is a transformation (one level per quasi-identifier), "
          "one row per total level. Circles are anonymous (coloured by score), squares are "
          "not anonymous, small rings were not checked because the search could decide "
          "without them. The optimum has the least information loss. Double-click a node "
          "to apply it."),
         ("Compare", "The pinned candidates with their verdicts, risks, information loss "
          "and, for a chosen target, classifier accuracy. The best value of each row among "
          "the anonymous releases is starred; \"Which to publish?\" sums it up."),
         ("Verdict", "The badge of a run says whether its claims hold when checked "
          "independently and what an attacker holding the declared quasi-identifiers "
          "sees.")),
        ("candidate", "run", "pin", "verdict", "attacker's view", "optimum"),
    ),
    "Utility": (
        "Utility: what the release keeps of the data",
        ("The input and the chosen release side by side: summary statistics, "
         "distributions, contingency tables, class sizes and the quality models' scores, "
         "and how well classifiers trained on the release predict a target.",),
        (("Classification performance", "Logistic regression or a random forest is trained "
          "on the release and tested on held-out records (cross-validation). The ZeroR "
          "baseline and the original data frame the result; relative accuracy is the share "
          "of the original's gain over ZeroR that the release keeps."),
         ("Quality models vs. accuracy", "For a lattice search, how each quality model's "
          "score relates to classifier accuracy across the candidates.")),
        ("information loss", "ZeroR baseline", "relative accuracy", "quality model"),
    ),
    "Risk": (
        "Risk: how likely re-identification is",
        ("Re-identification risks of the input and of the chosen release, for the attacker "
         "models of ARX: the prosecutor knows the person is in the data, the journalist "
         "does not, the marketer tries to re-identify everyone.",),
        (("Record risks", "The distribution of each record's risk (1 / its class size) and "
          "the shares of records above chosen thresholds."),
         ("Population uniqueness", "Estimates of how many people in the population are "
          "unique on the quasi-identifiers, for a population you set."),
         ("Quasi-identifiers", "How strongly each combination of attributes separates the "
          "records: strong quasi-identifiers deserve coarser hierarchies."),
         ("HIPAA identifiers", "Attributes that look like one of HIPAA Safe Harbor's 18 "
          "identifiers.")),
        ("prosecutor risk", "journalist risk", "marketer risk", "population uniqueness"),
    ),
}

PERSPECTIVES = tuple(_PERSPECTIVES)


def perspective_topic(name: str) -> Topic:
    """The help of the perspective ``name`` (Configure, Explore, Utility, Risk)."""
    if name not in _PERSPECTIVES:
        raise ConfigurationError(f"No help on '{name}'. Known: {', '.join(PERSPECTIVES)}.")
    title, paragraphs, sections, terms = _PERSPECTIVES[name]
    return Topic(f"perspective:{name}", title, paragraphs, sections, terms)


def settings_section(params: tuple[Param, ...]) -> tuple[tuple[str, str], ...]:
    """One section per declared parameter: its label and what it does."""
    return tuple((_capitalized(param.label or param.name.replace("_", " ")),
                  _sentence(param.help) + _range(param)) for param in params)


def method_topic(method: type) -> Topic:
    """The help of a method class, from its declaration."""
    paragraphs = [method.description]
    if method.guidance:
        paragraphs.append(method.guidance)
    if method.reference:
        paragraphs.append(f"Reference: {method.reference}.")
    return Topic(f"method:{method.name}", method.label, tuple(paragraphs),
                 settings_section(method.params), ("release", "claim", "verdict", "seed"),
                 "Settings")


def model_topic(model: type, family: str) -> Topic:
    """The help of a privacy or quality model class (``family``: "privacy", "quality")."""
    key = getattr(model, "kind", None) or model.name
    return Topic(f"{family}:{key}", model.label, (model.description,),
                 settings_section(model.params), sections_heading="Settings")


def glossary(term: str | None = None) -> list[tuple[str, str]]:
    """Every (term, definition), alphabetically; or the terms containing ``term``."""
    entries = sorted(GLOSSARY.items(), key=lambda item: item[0].casefold())
    if term is None:
        return entries
    wanted = term.casefold()
    found = [entry for entry in entries if wanted in entry[0].casefold()]
    if not found:
        raise ConfigurationError(f"No glossary entry for '{term}'. Try: "
                                 f"{', '.join(t for t, _ in entries[:8])}, ...")
    return found


def _capitalized(text: str) -> str:
    return text[:1].upper() + text[1:]


def _sentence(text: str) -> str:
    text = _capitalized(text.strip())
    return text if not text or text.endswith(".") else text + "."


def _range(param: Param) -> str:
    if param.choices:
        return " Choices: " + ", ".join(map(str, param.choices)) + "."
    allowed = param.range_text()
    return f" Allowed: {allowed}{f' ({param.unit})' if param.unit else ''}." if allowed else ""
