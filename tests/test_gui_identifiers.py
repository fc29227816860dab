"""Identifier treatments in the desktop application (issue 32): Configure's panel, the
session key, runs on the treated table, and no key or original identifier in anything
the application writes (project file, autosave, saved result, runs)."""

import base64
import re
import zipfile

import pandas as pd
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from arxpy.data.definition import AttributeType, DataDefinition, DataKind, DataType
from arxpy.engine.export import release_report_html
from arxpy.errors import ConfigurationError, ProjectError
from arxpy.gui.main_window import MainWindow
from arxpy.gui.state import default_settings
from arxpy.hierarchy.model import Hierarchy
from arxpy.identifiers import MASK, PSEUDONYM, DateShift, MaskRule, Treatment, create_key_file
from arxpy.project import Project

Button = QMessageBox.StandardButton
PATIENTS = [f"PT-{7000 + i}-Q" for i in range(12)]
NAMES = [f"Zebedee Quillfeather {chr(65 + i)}" for i in range(12)]
PHONES = [f"0171-555-{4100 + i}" for i in range(12)]


def _project() -> Project:
    rows = range(24)
    data = pd.DataFrame({
        "pid": [PATIENTS[i % 12] for i in rows],
        "name": [NAMES[i % 12] for i in rows],
        "phone": [PHONES[i % 12] for i in rows],
        "age": [str(30 + i % 4) for i in rows],
        "admitted": [f"2020-03-{1 + i:02d}" for i in rows],
    })
    definition = DataDefinition.for_columns(data.columns)
    for name in ("pid", "name", "phone"):
        definition = definition.with_attribute(name, type=AttributeType.IDENTIFYING)
    definition = definition.with_attribute(
        "age", type=AttributeType.QUASI_IDENTIFYING,
        data_type=DataType(DataKind.INTEGER)).with_attribute(
        "admitted", data_type=DataType(DataKind.DATE, "%Y-%m-%d"))
    settings = {**default_settings(), "privacy_models": [{"kind": "k-anonymity", "k": 2}]}
    hierarchy = Hierarchy([[v, "*"] for v in sorted(set(data["age"]))])
    return Project(data, definition, {"age": hierarchy}, settings, name="Ward")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("arxpy.gui.project_actions.QMessageBox.question",
                        lambda *args: Button.Discard)
    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(settings=settings, recovery_dir=tmp_path / "recovery")
    qtbot.addWidget(window)
    window.set_project(_project())
    return window


@pytest.fixture
def errors(monkeypatch):
    shown: list[str] = []
    monkeypatch.setattr(MainWindow, "error", lambda _self, _title, text: shown.append(text))
    return shown


def _treat(state) -> None:
    plan = state.identifier_plan
    from arxpy.workflows.identifier_settings import with_date_shift, with_treatment

    plan = with_treatment(plan, "pid", Treatment("pid", PSEUDONYM))
    plan = with_treatment(plan, "phone", Treatment("phone", MASK, rule=MaskRule.parse(
        "keep-last:2")))
    state.set_identifier_plan(with_date_shift(plan, DateShift(("admitted",), "pid", 30)))


def _run(window, qtbot) -> None:
    assert window.anonymize() is not None
    qtbot.waitUntil(lambda: window.worker is None, timeout=30_000)


def test_the_panel_edits_a_treatment_undoably_and_another_role_ends_it(window):
    state, configure = window.state, window.configure
    configure.select_attribute("pid")
    panel = configure.identifier_panel
    assert configure.attribute_editor.currentIndex() == 1  # the treatment, not a hierarchy
    panel.treatment.setCurrentIndex(panel.treatment.findData(PSEUDONYM))
    panel.format.setCurrentText("hex:12")
    panel._treatment_edited()
    (treatment,) = state.identifier_plan.treatments
    assert (treatment.attribute, treatment.kind, str(treatment.format)) == \
        ("pid", PSEUDONYM, "hex:12")
    assert panel.treatment_form.isRowVisible(panel.namespace)
    assert not panel.treatment_form.isRowVisible(panel.rule)
    # A pseudonym is never a quasi-identifier: the role change ends the treatment, and one
    # undo brings both back.
    state.set_attribute("pid", type=AttributeType.QUASI_IDENTIFYING)
    assert state.identifier_plan.treatments == ()
    assert configure.attribute_editor.currentIndex() == 0
    state.undo_stack.undo()
    assert state.definition["pid"].type is AttributeType.IDENTIFYING
    assert [t.attribute for t in state.identifier_plan.treatments] == ["pid"]
    state.undo_stack.undo()
    assert state.identifier_plan.treatments == ()


def test_a_run_needs_the_key_then_releases_pseudonyms_and_shifted_dates(
        window, qtbot, tmp_path, errors):
    state = window.state
    _treat(state)
    assert window.anonymize() is None  # refused with the reason
    assert "need this project's key" in errors[-1]
    key_file = tmp_path / "ward.key"
    assert window.keys.create(key_file)
    fingerprint = state.pseudonym_key.fingerprint
    assert state.settings["identifiers"]["key_fingerprint"] == fingerprint
    _run(window, qtbot)
    current = state.current_release()
    released = current.release().table
    assert all(re.fullmatch(r"[0-9a-f]{16}", v) for v in released["pid"])
    assert not set(PATIENTS) & set(released["pid"]) and not set(PATIENTS) & set(
        current.frame["pid"])
    assert set(released["phone"]) == {f"****-***-**{p[-2:]}" for p in PHONES}
    shifted = pd.to_datetime(current.frame["admitted"]) - pd.to_datetime(state.data["admitted"])
    assert ((shifted.dt.days != 0) & (shifted.dt.days.abs() <= 30)).all()
    # One offset per patient: the rows of a patient move together.
    assert (shifted.groupby(state.data["pid"]).nunique() == 1).all()
    assert current.identifiers["key_fingerprint"] == fingerprint
    html = release_report_html(current.release(), identifiers=current.identifiers)
    assert fingerprint in html and "keyed pseudonym" in html and "from -30 to 30 days" in html
    assert not any(value in html for value in PATIENTS + NAMES + PHONES)


def test_a_method_run_uses_the_treated_table_and_never_judges_a_pseudonym(
        window, qtbot, tmp_path, errors):
    state = window.state
    _treat(state)
    window.keys.create(tmp_path / "ward.key")
    state.update_settings("top coding", method="top-bottom-coding", method_parameters={
        "top-bottom-coding": {"attribute": "age", "top": 32.0}})
    _run(window, qtbot)
    (run,) = state.runs
    assert run.release.method == "top-bottom-coding"
    assert not set(PATIENTS) & set(run.release.table["pid"])
    assert state.current_release().identifiers["treatments"][0]["attribute"] == "pid"
    # Condensation condenses every attribute it is given, pseudonyms too: refused.
    state.update_settings("condensation", method="condensation",
                          method_parameters={"condensation": {"k": 3}})
    _run(window, qtbot)
    assert len(state.runs) == 1 and "as a quasi-identifier" in errors[-1]


def _secrets(key_file) -> list[bytes]:
    raw = key_file.read_bytes()
    forms = [raw, raw.hex().encode(), raw.hex().upper().encode(), base64.b64encode(raw),
             base64.b64encode(raw).rstrip(b"="), base64.urlsafe_b64encode(raw).rstrip(b"=")]
    return forms


def test_no_key_and_no_original_identifier_in_project_autosave_result_or_runs(
        window, qtbot, tmp_path):
    state = window.state
    _treat(state)
    key_file = tmp_path / "ward.key"
    window.keys.create(key_file)
    _run(window, qtbot)
    path = tmp_path / "ward.arxpy"
    assert window.projects.save_to(path)
    state.update_settings("touch", suppression_limit=0.0, time_limit=1.0)  # modified again
    autosaved = window.autosave.save_now()
    assert autosaved is not None
    originals = [v.encode() for v in PATIENTS + NAMES + PHONES]
    for archive in (path, autosaved):
        with zipfile.ZipFile(archive) as members:
            names = members.namelist()
            assert "result.json" in names and "runs.json" in names
            for member in names:
                payload = members.read(member)
                assert not any(s in payload for s in _secrets(key_file)), member
                if member != "data.csv":  # the project keeps its data, nothing else does
                    assert not any(v in payload for v in originals), member
    assert "PseudonymKey" not in path.read_bytes().decode("latin-1")


def test_opening_asks_for_the_key_and_refuses_a_wrong_one(window, qtbot, tmp_path,
                                                          monkeypatch, errors):
    state = window.state
    _treat(state)
    window.keys.create(tmp_path / "ward.key")
    path = tmp_path / "ward.arxpy"
    window.projects.save_to(path)
    create_key_file(tmp_path / "other.key")
    monkeypatch.setattr("arxpy.gui.key_actions.QMessageBox.question",
                        lambda *args: Button.Yes)
    chosen = iter([str(tmp_path / "other.key"), str(tmp_path / "ward.key")])
    monkeypatch.setattr(MainWindow, "pick_file", lambda *args, **kw: next(chosen))
    window.projects.open_project(path)
    assert state.pseudonym_key is None and "is not this project's" in errors[-1]
    assert state.identifier_plan.needs_key
    assert window.keys.choose()  # the right key is accepted
    assert state.pseudonym_key.fingerprint == state.settings["identifiers"]["key_fingerprint"]


def test_a_project_file_with_a_bad_plan_or_fingerprint_is_refused(tmp_path):
    project = _project()
    project.settings["identifiers"] = {"treatments": [{"attribute": "pid",
                                                       "treatment": "keyed-pseudonym",
                                                       "format": "hex:99"}],
                                       "key_fingerprint": None}
    project.save(tmp_path / "bad.arxpy")
    with pytest.raises(ProjectError, match="settings.identifiers"):
        Project.load(tmp_path / "bad.arxpy")
    project.settings["identifiers"] = {"treatments": [], "key_fingerprint": "secret!"}
    project.save(tmp_path / "bad2.arxpy")
    with pytest.raises(ProjectError, match="key_fingerprint"):
        Project.load(tmp_path / "bad2.arxpy")


def test_a_treated_attribute_cannot_be_made_quasi_identifying_by_a_plan(window):
    state = window.state
    with pytest.raises(ConfigurationError, match="quasi-identifier"):
        state.set_identifier_plan(state.identifier_plan.__class__(
            (Treatment("age", PSEUDONYM),)))
    assert state.identifier_plan.treatments == ()


def test_risk_input_analysis_reads_the_treated_table(window, qtbot, tmp_path, monkeypatch):
    from arxpy.gui.risk import perspective
    from arxpy.gui.risk.perspective import RiskPerspective

    state = window.state
    _treat(state)
    read = []
    real = perspective.analyze_input
    monkeypatch.setattr(perspective, "analyze_input",
                        lambda frame, *a, **kw: read.append(frame) or real(frame, *a, **kw))
    view = RiskPerspective(state)
    qtbot.addWidget(view)
    view.show()
    # Without the key there is no treated table: said, and the original is not read.
    assert "needs the treated table" in view.error and not read
    window.keys.create(tmp_path / "ward.key")
    qtbot.waitUntil(lambda: view.analysis("input") is not None and not view.busy,
                    timeout=30_000)
    assert read  # (the key and its recorded fingerprint each restart the analysis)
    for frame in read:
        assert not set(PATIENTS) & set(frame["pid"])
        assert (frame["admitted"] != state.data["admitted"]).all()  # shifted, never by 0
    view.cancel()


def test_a_method_form_never_offers_an_identifying_attribute(qtbot):
    from arxpy.gui.param_form import ParamForm
    from arxpy.params import Param

    definition = _project().definition
    params = (Param("attributes", "attributes", []),
              Param("target", "attribute", None, optional=True))
    form = ParamForm(params, {}, definition.names, definition=definition)
    offered = [form.widgets["attributes"].item(i).data(0x0100)
               for i in range(form.widgets["attributes"].count())]
    assert offered == ["age", "admitted"]
    assert form.widgets["target"].property("options") == [None, "age", "admitted"]
    # A value naming one (an older project) is shown marked, with the reason.
    form = ParamForm(params, {"attributes": ["pid"], "target": "name"}, definition.names,
                     definition=definition)
    assert "identifying" in form.problems()["attributes"]
    assert "identifying" in form.problems()["target"]


def test_export_writes_an_encrypted_reidentification_table_away_from_the_release(
        window, qtbot, tmp_path, monkeypatch):
    from arxpy.identifiers import reidentification
    from arxpy.identifiers.reidentification import read_table

    monkeypatch.setattr(reidentification, "SCRYPT_N", 2**10)  # fast; the same code
    state = window.state
    _treat(state)
    window.keys.create(tmp_path / "ward.key")
    _run(window, qtbot)
    dialog = window.explore.export_dialog()
    qtbot.addWidget(dialog)
    options = dialog.reidentification
    assert options is not None and "Pseudonym → original value of pid" in options.note.text()
    release = tmp_path / "out" / "released.csv"
    release.parent.mkdir()
    dialog.path.setText(str(release))
    options.setChecked(True)
    passphrase = "a passphrase for the trusted party"
    options.path.setText(str(release.with_name("reid.bin")))
    options.passphrase.setText(passphrase)
    options.again.setText(passphrase)
    dialog.start_export()  # beside the release: refused, nothing written
    assert "other than the release's" in dialog.status.text() and not release.exists()
    table = tmp_path / "trusted" / "reid.bin"
    table.parent.mkdir()
    options.path.setText(str(table))
    options.again.setText(passphrase + "?")
    dialog.start_export()
    assert "differ" in dialog.status.text() and not release.exists()
    options.again.setText(passphrase)
    with qtbot.waitSignal(dialog.exported, timeout=10_000) as blocker:
        dialog.start_export()
    assert table in blocker.args[0] and not options.passphrase.text()
    reversed_ = read_table(table, passphrase)
    (column,) = reversed_.columns
    released = pd.read_csv(release, sep=None, engine="python", dtype=str)
    assert {reversed_.originals_of(p)[0][1] for p in released["pid"]} == set(PATIENTS)
    assert set(column.originals) == set(PATIENTS)
    for path in tmp_path.rglob("*"):  # the passphrase is in no file
        if path.is_file():
            assert passphrase.encode() not in path.read_bytes(), path
    dialog.confirmation.close()
