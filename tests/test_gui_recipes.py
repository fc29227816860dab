"""File › Export recipe… and File › Apply recipe to new data… (issue 35): the recipe the
GUI writes replays, and a replay in the dialog either writes the release and a
certificate that verifies or lists the refusal's reasons, naming the value."""

from __future__ import annotations

import json

from arxpy.example import example_project
from arxpy.recipes.certificate import read_signed, verify
from arxpy.recipes.signing import create_signing_key

RECORDS = 300


def test_export_recipe_then_apply_it_to_new_data_with_a_certificate(window, qtbot, tmp_path):
    """The recipe File › Export recipe writes (with its hierarchies) replays through
    File › Apply recipe to new data, whose certificate verifies."""
    window.set_project(example_project(RECORDS))
    window.anonymize()
    qtbot.waitUntil(lambda: window.worker is None, timeout=30_000)
    data = tmp_path / "data.csv"
    window.state.data.sample(frac=1, random_state=1).to_csv(data, index=False)
    export = window.export_recipe()
    export.path_edit.setText(str(tmp_path / "recipe"))
    assert export.save(), export.status.text()
    recipe = tmp_path / "recipe.json"
    written = json.loads(recipe.read_text())
    levels = window.state.current_release().level_map
    assert written["decision"] == {"mode": "fixed", "transformation": levels}
    folder = tmp_path / "recipe-hierarchies"
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        h["file"] for h in written["hierarchies"].values())
    assert "recipe.json" in window.statusBar().currentMessage()

    key = tmp_path / "custodian.key"
    public = create_signing_key(key)
    dialog = window.apply_recipe()
    dialog.set_recipe(str(recipe))
    dialog.set_data(str(data))
    assert dialog.hierarchies_edit.text() == str(folder)
    dialog.set_signing_key(str(key))
    assert dialog.run() is not None
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=30_000)
    assert not dialog.outcome.refused and not dialog.problems.isVisibleTo(dialog)
    output, certificate = tmp_path / "data-released.csv", tmp_path / "data-certificate.pdf"
    assert verify(read_signed(certificate), public, output) == []
    report = json.loads((tmp_path / "data-report.json").read_text())
    assert report["replay"]["refused"] is False and report["verification"]["anonymous"]
    assert "Released" in dialog.status.text() and "data-certificate.pdf" in dialog.status.text()


def test_apply_recipe_refused_lists_the_reasons_naming_the_unseen_value(qtbot, tmp_path):
    from arxpy.engine import AnonymizationConfig, anonymize
    from arxpy.gui.recipe_dialogs import ApplyRecipeDialog
    from arxpy.recipes.export import export_recipe

    project = example_project(RECORDS)
    result = anonymize(project.data, project.definition, project.hierarchies,
                       AnonymizationConfig.from_dict(project.settings))
    recipe = tmp_path / "recipe.json"
    export_recipe(recipe, project.definition, project.hierarchies, result.release())
    frame = project.data.copy()
    frame.loc[0, "County"] = "Atlantis"
    unseen = tmp_path / "unseen.csv"
    frame.to_csv(unseen, index=False)
    dialog = ApplyRecipeDialog()
    qtbot.addWidget(dialog)
    assert dialog.run() is None and "Choose the recipe" in dialog.status.text()
    dialog.set_recipe(str(recipe))
    dialog.set_data(str(unseen))
    dialog.report_edit.setText(str(unseen))
    assert dialog.run() is None and "overwrite" in dialog.status.text()
    dialog.report_edit.setText(str(tmp_path / "unseen-report.json"))
    dialog.certificate_edit.setText(str(tmp_path / "c.pdf"))
    assert dialog.run() is None and "needs a signing key" in dialog.status.text()
    dialog.certificate_edit.clear()
    dialog.run()
    qtbot.waitUntil(lambda: dialog.outcome is not None, timeout=30_000)
    assert dialog.outcome.refused and dialog.problems.isVisibleTo(dialog)
    items = [dialog.problems.item(i).text() for i in range(dialog.problems.count())]
    assert any("'County'" in item and "'Atlantis'" in item for item in items)
    assert dialog.status.text().startswith("Refused")
    assert not (tmp_path / "unseen-released.csv").exists()
    assert json.loads((tmp_path / "unseen-report.json").read_text())["replay"]["refused"]
