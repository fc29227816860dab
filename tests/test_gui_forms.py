"""Forms a custodian can fill (issue 30) and parameters never rewritten silently (issue
28, defect 3): required attribute choices start unchosen or with a suggestion the form
explains, only attributes of a fitting type are offered, and a project's invalid value
is shown as given, marked with the reason, and refused by Run."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.gui.param_form import INVALID
from arxpy.gui.state import default_settings
from arxpy.hierarchy.model import Hierarchy
from arxpy.project import Project
from arxpy.workflows.method_choice import METHOD_KEY, PARAMETERS_KEY

RECORDS = 120


def _project(columns: dict[str, tuple[np.ndarray, DataKind]], method: str | None = None,
             parameters: dict | None = None, name: str = "Forms") -> Project:
    data = pd.DataFrame({name: values for name, (values, _kind) in columns.items()})
    definition = DataDefinition.for_columns(data.columns)
    for column, (_values, kind) in columns.items():
        definition = definition.with_attribute(column, data_type=DataType(kind))
    first = next(iter(columns))
    definition = definition.with_attribute(first, type=AttributeType.QUASI_IDENTIFYING)
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data[first]))])
    settings = {**default_settings(), "privacy_models": [{"kind": "k-anonymity", "k": 2}]}
    if method is not None:
        settings[METHOD_KEY] = method
        settings[PARAMETERS_KEY] = {method: dict(parameters or {})}
    return Project(data, definition, {first: hierarchy}, settings, name=name)


def survival(with_time_names: bool = True) -> dict[str, tuple[np.ndarray, DataKind]]:
    """sex first (text), then numbers; with ``with_time_names`` columns named time and
    status, otherwise the same numbers under other names."""
    rng = np.random.default_rng(7)
    time, status = ("time", "status") if with_time_names else ("days_a", "flag")
    return {
        "sex": (rng.choice(["F", "M"], RECORDS), DataKind.STRING),
        "age": (rng.integers(20, 90, RECORDS).astype(str), DataKind.INTEGER),
        "bmi": (np.round(rng.normal(26, 4, RECORDS), 1).astype(str), DataKind.DECIMAL),
        time: (rng.integers(1, 3000, RECORDS).astype(str), DataKind.INTEGER),
        status: (rng.choice(["0", "1"], RECORDS), DataKind.STRING),
    }


def wine() -> dict[str, tuple[np.ndarray, DataKind]]:
    """kPB-MS's setting: 'alcohol' (a decimal) first, the class last."""
    rng = np.random.default_rng(8)
    return {
        "region": (rng.choice(["north", "south", "east"], RECORDS), DataKind.STRING),
        "alcohol": (np.round(rng.normal(12, 1, RECORDS), 2).astype(str), DataKind.DECIMAL),
        "acidity": (rng.integers(1, 9, RECORDS).astype(str), DataKind.INTEGER),
        "class": (rng.choice(["a", "b", "c"], RECORDS), DataKind.STRING),
    }


@pytest.fixture
def errors(window, monkeypatch):
    """Messages the window would show in a dialog (instead of blocking the test)."""
    shown: list[str] = []
    monkeypatch.setattr(window, "error", lambda title, message: shown.append(message))
    return shown


def _open(window, project: Project):
    window.show()
    window.set_project(project)
    return window.configure.method_panel


def _offered(combo) -> list[str]:
    options = combo.property("options") or []
    return [o for o in options if o is not None]


# --- required attributes: unchosen, or suggested with a note -----------------------------


def test_survival_time_is_suggested_by_its_name_and_said_so(window):
    panel = _open(window, _project(survival(), "improved-condensation"))
    form = panel.form
    assert form.values()["time"] == "time"
    assert "named like the survival time" in form.notes["time"].text()
    assert "status" not in form.values()  # optional: left "not given", never guessed
    assert _offered(form.widgets["time"]) == ["age", "bmi", "time"]  # numbers only
    assert panel.check() == ""


def test_survival_time_starts_unchosen_without_a_column_named_like_it(window, errors):
    panel = _open(window, _project(survival(with_time_names=False), "improved-condensation"))
    form = panel.form
    time = form.widgets["time"]
    assert time.currentText() == "Choose the survival time…" and form.values()["time"] == ""
    assert "sex" not in _offered(time)  # text is never a survival time
    assert "time" not in form.notes
    assert "survival time" in panel.check() and panel.error.isVisibleTo(panel)
    assert window.anonymize() is None and "survival time" in errors[-1]
    assert window.state.runs == []
    time.setCurrentIndex(time.findText("days_a"))
    assert panel.check() == ""


def test_kpbms_class_is_the_column_named_class_not_the_first_one(window):
    panel = _open(window, _project(wine(), "kpbms"))
    form = panel.form
    assert form.values()["class_attribute"] == "class"
    assert "named like the class attribute" in form.notes["class_attribute"].text()
    offered = _offered(form.widgets["class_attribute"])
    assert "alcohol" not in offered  # a decimal is not a class
    assert set(offered) == {"region", "acidity", "class"}
    # Its continuous attributes are numbers.
    widget = form.widgets["continuous"]
    assert [widget.item(i).text() for i in range(widget.count())] == ["alcohol", "acidity"]


def test_interval_generalisation_lists_numeric_attributes_only(window):
    panel = _open(window, _project(survival(), "intervals"))
    widget = panel.form.widgets["attributes"]
    assert [widget.item(i).text() for i in range(widget.count())] == ["age", "bmi", "time"]
    assert "numeric" in widget.toolTip()


def test_classification_quality_model_class_starts_unchosen_or_suggested(window):
    panel = window.configure.settings_panel
    _open(window, _project(survival()))
    panel.quality.setCurrentIndex(panel.quality.findData("classification"))
    assert panel.class_attribute.currentData() is None
    assert panel.class_attribute.currentText().startswith("Choose")
    assert "bmi" not in [panel.class_attribute.itemText(i)
                         for i in range(panel.class_attribute.count())]
    panel.commit()
    assert window.state.settings["quality_model"]["class_attribute"] == ""
    with pytest.raises(Exception, match="class_attribute|attribute to predict"):
        window.state.config()
    _open(window, _project(wine()))
    panel.quality.setCurrentIndex(panel.quality.findData("classification"))
    assert panel.class_attribute.currentData() == "class"
    assert "named like a class" in panel.class_note.text()


def test_quality_model_keeps_a_class_the_data_lack_and_marks_it(window):
    project = _project(wine())
    project.settings["quality_model"] = {"name": "classification", "class_attribute": "gone"}
    _open(window, project)
    panel = window.configure.settings_panel
    assert panel.class_attribute.currentData() == "gone"
    assert INVALID in panel.class_attribute.currentText()
    panel.commit()
    assert window.state.settings["quality_model"]["class_attribute"] == "gone"


def test_utility_classification_form_never_takes_a_column_silently(qtbot):
    from arxpy.gui.utility.classification_config import ClassificationForm

    form = ClassificationForm()
    qtbot.addWidget(form)
    project = _project(survival())
    form.set_data(project.data, project.definition)
    assert form.class_name() == "" and form.class_attribute.currentText().startswith("Choose")
    with pytest.raises(Exception, match="Choose the class attribute"):
        form.config()
    other = _project(wine())
    form.set_data(other.data, other.definition)
    assert form.class_name() == "class" and "named like a class" in form.class_note.text()
    form.set_class_attribute("region")
    assert form.config().class_attribute == "region" and not form.class_note.text()


# --- invalid values: shown as given, marked, refused -------------------------------------


@pytest.mark.parametrize("k", [0, -5, "x", 1e308, math.nan],
                         ids=["zero", "negative", "text", "huge", "nan"])
def test_invalid_k_is_shown_and_refused_never_clamped(window, errors, k):
    panel = _open(window, _project(survival(), "condensation", {"k": k}))
    field = panel.form.widgets["k"]
    assert INVALID in field.text()
    assert panel.form.problems()["k"]
    message = panel.check()
    assert "k" in message and panel.error.isVisibleTo(panel)
    assert field.property("invalid")  # marked
    assert window.anonymize() is None  # Run refused, with the reason
    assert errors and errors[-1] == message
    assert window.state.runs == []
    stored = window.state.settings[PARAMETERS_KEY]["condensation"]["k"]
    assert stored == k or (isinstance(k, float) and math.isnan(stored))  # not rewritten
    field.setValue(5)  # the user decides: now the field holds what it shows
    assert panel.check() == "" and panel.form.values()["k"] == 5


def test_a_survival_time_the_data_lack_is_shown_not_replaced(window, errors):
    panel = _open(window, _project(survival(), "improved-condensation", {"time": "gone"}))
    time = panel.form.widgets["time"]
    assert panel.form.values()["time"] == "gone" and INVALID in time.currentText()
    assert "not an attribute of the data" in panel.check()
    assert window.anonymize() is None and "gone" in errors[-1]
    text_time = _open(window, _project(survival(), "improved-condensation", {"time": "sex"}))
    assert "text, not a number" in text_time.check()


@pytest.mark.parametrize("k", [0, -5, "x", 1e308, math.nan],
                         ids=["zero", "negative", "text", "huge", "nan"])
def test_a_project_file_with_an_invalid_k_opens_with_the_value_marked(window, errors, tmp_path,
                                                                      k):
    """The same through File > Open: the saved value is what the form shows and keeps."""
    path = _project(survival(), "mdav", {"k": k}).save(tmp_path / "invalid.arxpy")
    assert window.projects.open_project(path)
    panel = window.configure.method_panel
    assert INVALID in panel.form.widgets["k"].text() and "k" in panel.check()
    assert window.anonymize() is None and window.state.runs == []
