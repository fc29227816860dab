"""Hostile and malformed ``.arxpy`` files: one clear ProjectError, never a traceback,
never unbounded memory (issue 12, items 2 and 5)."""

from __future__ import annotations

import json
import tracemalloc
import zipfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arxpy.cli import main
from arxpy.engine.config import check_settings
from arxpy.errors import ArxpyError, ConfigurationError, ProjectError
from arxpy.project import ArchiveLimits, Project

from .hostile import (
    GOOD_DATA,
    corrupt_deflate,
    deflate_bomb,
    duplicate_member,
    good_manifest,
    set_flag,
    write_project,
    zip_with_declared_size,
)


def _definition_with(index: int, **changes):
    definition = good_manifest()["definition"]
    definition[index] = {**definition[index], **changes}
    return good_manifest(definition=definition)


def _settings_with(**changes):
    return good_manifest(settings={**good_manifest()["settings"], **changes})


#: (manifest, words the message must contain)
BAD_MANIFESTS = [
    ([], "top level"), ("project", "top level"), (None, "top level"), (3, "top level"),
    (good_manifest(schema_version=True), "schema_version"),
    (good_manifest(schema_version="1"), "schema_version"),
    (good_manifest(schema_version=0), "schema_version"),
    (good_manifest(schema_version=1.5), "schema_version"),
    ({k: v for k, v in good_manifest().items() if k != "schema_version"}, "schema_version"),
    (good_manifest(schema_version=99), "newer arxpy"),
    (good_manifest(name=["x"]), "'name'"),
    (good_manifest(data=7), "'data'"),
    (good_manifest(definition="age"), "'definition'"),
    (good_manifest(definition=None), "'definition'"),
    (good_manifest(definition=[5]), "definition[0]"),
    (_definition_with(0, name=3), "definition[0].name"),
    (_definition_with(1, name="age"), "definition[1].name"),
    (_definition_with(0, type="secret"), "definition[0].type"),
    (_definition_with(0, type=None), "definition[0].type"),
    (_definition_with(0, data_type="integer"), "definition[0].data_type"),
    (_definition_with(0, data_type={"kind": "complex"}), "data_type.kind"),
    (_definition_with(0, data_type={}), "data_type.kind"),
    (_definition_with(0, data_type={"kind": "date", "format": 5}), "data_type.format"),
    (_definition_with(0, data_type={"kind": "ordinal", "order": "abc"}), "data_type.order"),
    (_definition_with(0, min_level=1.5), "min_level"),
    (_definition_with(0, min_level=-1), "min_level"),
    (_definition_with(0, max_level=True), "max_level"),
    (_definition_with(0, min_level=2, max_level=1), "exceeds"),
    (_definition_with(0, weight="abc"), "weight"),
    (_definition_with(0, weight=0), "weight"),
    (_definition_with(0, weight=float("nan")), "weight"),
    (_definition_with(0, weight=float("inf")), "weight"),
    (_definition_with(0, data_type={"kind": "date"}), "format"),
    (good_manifest(hierarchies=["age"]), "'hierarchies'"),
    (good_manifest(hierarchies={"age": 0}), "hierarchies.age"),
    (good_manifest(hierarchies={"height": "hierarchies/0.csv"}), "hierarchies.height"),
    (good_manifest(hierarchies={"age": "hierarchies/9.csv"}), "hierarchies/9.csv"),
    (good_manifest(data="other.csv"), "other.csv"),
    (good_manifest(settings=[]), "'settings'"),
    (good_manifest(settings="k=2"), "'settings'"),
    (_settings_with(privacy_models={"kind": "k-anonymity"}), "privacy_models"),
    (_settings_with(privacy_models=[5]), "privacy_models[0]"),
    (_settings_with(privacy_models=[{"kind": 5}]), "privacy_models[0]"),
    (_settings_with(suppression_limit="0.1"), "suppression_limit"),
    (_settings_with(suppression_limit=True), "suppression_limit"),
    (_settings_with(strategy=5), "strategy"),
    (_settings_with(time_limit="x"), "time_limit"),
    (_settings_with(quality_model="loss"), "quality_model"),
    (_settings_with(quality_model={"gs_factor": 1}), "quality_model"),
    (_settings_with(remove_suppressed="yes"), "remove_suppressed"),
]


@pytest.mark.parametrize(("manifest", "words"), BAD_MANIFESTS)
def test_bad_manifest_is_one_clear_project_error(tmp_path, manifest, words):
    path = write_project(tmp_path / "bad.arxpy", raw_manifest=json.dumps(manifest).encode())
    with pytest.raises(ProjectError) as caught:
        Project.load(path)
    message = str(caught.value)
    assert words in message and str(path) in message


#: Settings whose shape is right but whose values a model refuses.
BAD_MODEL_SETTINGS = [
    ({"privacy_models": [{"kind": "k-anonymity", "k": "abc"}]}, "privacy_models[0]"),
    ({"privacy_models": [{"kind": "k-anonymity", "k": -1}]}, "privacy_models[0]"),
    ({"privacy_models": [{"kind": "k-anon", "k": 2}]}, "privacy_models[0]"),
    ({"privacy_models": [{"kind": "k-anonymity", "k": 2, "z": 1}]}, "privacy_models[0]"),
    ({"privacy_models": [{"kind": "k-anonymity"}]}, "privacy_models[0]"),
    ({"privacy_models": [{"kind": "t-closeness", "attribute": "disease", "t": 0.2,
                          "distance": "bogus"}]}, "privacy_models[0]"),
    ({"privacy_models": [{"kind": "t-closeness", "attribute": "disease", "t": [1]}]},
     "privacy_models[0]"),
    ({"quality_model": {"name": "loss", "gs_factor": "x"}}, "quality_model"),
    ({"quality_model": {"name": "nope"}}, "quality_model"),
    ({"quality_model": {"name": ["loss"]}}, "quality_model"),
    ({"suppression_limit": 2.0}, "suppression_limit"),
    ({"strategy": "fastest"}, "strategy"),
    ({"time_limit": -1}, "time_limit"),
    ({"time_limit": float("inf")}, "time_limit"),
]


@pytest.mark.parametrize(("settings_", "words"), BAD_MODEL_SETTINGS)
def test_bad_model_parameters_are_configuration_errors_naming_the_setting(settings_, words):
    import arxpy.privacy  # noqa: F401
    import arxpy.quality  # noqa: F401

    with pytest.raises(ConfigurationError, match=words.replace("[", r"\[").replace("]", r"\]")):
        check_settings(settings_)


def test_settings_without_models_are_valid_for_a_project_being_configured():
    check_settings({"privacy_models": [], "quality_model": {"name": "loss"}})


@pytest.mark.parametrize("settings_", [s for s, _ in BAD_MODEL_SETTINGS[:6]])
def test_cli_reports_bad_project_settings_in_one_line(tmp_path, capsys, settings_):
    path = write_project(tmp_path / "p.arxpy", good_manifest(settings=settings_))
    code = main(["anonymize", "--project", str(path), "--output", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().startswith("arxpy: error:") and "privacy_models[0]" in err
    assert not (tmp_path / "o.csv").exists()


# --- members ---------------------------------------------------------------------------

MEMBER_CASES = [
    ({"data.csv": b""}, "data.csv is empty"),
    ({"data.csv": "age,sex,disease\n20,M,caf\xe9\n".encode("latin-1")}, "not UTF-8"),
    ({"data.csv": b"age,sex,disease\n\x00\x01\x02,M,flu\n"}, "binary"),
    ({"data.csv": b"age,sex\n20,M\n"}, "definition"),
    ({"data.csv": b'"age","sex","disease"\n"20","M","flu","extra","more"\n'}, "more fields"),
    ({"data.csv": b'"age","sex","disease"\n"20","M","flu","extra"\n'}, "more fields"),
    ({"data.csv": b'"age","sex","disease"\n"20","M"\n"21","F","cold"\n'}, "record 1 has fewer"),
    ({"data.csv": b'"age","sex","disease"\n"20","M","flu"\n\n"21","F","cold"\n'},
     "record 2 has fewer"),
    ({"hierarchies/0.csv": b"\x00\xff\xfe"}, "hierarchies/0.csv"),
    ({"hierarchies/0.csv": "20;z\xe9ro\n".encode("latin-1")}, "not UTF-8"),
]


@pytest.mark.parametrize(("members", "words"), MEMBER_CASES)
def test_bad_member_is_one_clear_project_error(tmp_path, members, words):
    path = write_project(tmp_path / "bad.arxpy", members=members)
    with pytest.raises(ProjectError, match=words):
        Project.load(path)


def test_missing_data_member(tmp_path):
    path = tmp_path / "p.arxpy"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("project.json", json.dumps(good_manifest()))
    with pytest.raises(ProjectError, match="missing data.csv"):
        Project.load(path)


@pytest.mark.parametrize("payload", [b"", b"PK\x03\x04garbage", b"not a zip at all",
                                     b"[" * 100])
def test_not_an_archive(tmp_path, payload):
    path = tmp_path / "p.arxpy"
    path.write_bytes(payload)
    with pytest.raises(ProjectError, match="not a readable arxpy project"):
        Project.load(path)


def test_deeply_nested_manifest(tmp_path):
    path = write_project(tmp_path / "p.arxpy", raw_manifest=b"[" * 200_000 + b"]" * 200_000)
    with pytest.raises(ProjectError, match="damaged"):
        Project.load(path)


@pytest.mark.parametrize("raw", [b"", b"\xff\xfe{}", b"{'schema_version': 1}",
                                 b'{"schema_version": 1, "definition": [NaN]}'])
def test_unreadable_manifest(tmp_path, raw):
    path = write_project(tmp_path / "p.arxpy", raw_manifest=raw)
    with pytest.raises(ProjectError, match="project.json"):
        Project.load(path)


def test_corrupt_deflate_stream(tmp_path):
    path = corrupt_deflate(write_project(tmp_path / "p.arxpy",
                                         members={"data.csv": GOOD_DATA.encode() * 50}),
                           "data.csv")
    with pytest.raises(ProjectError, match="data.csv"):
        Project.load(path)


def test_encrypted_member(tmp_path):
    path = set_flag(write_project(tmp_path / "p.arxpy"), "data.csv", encrypted=True)
    with pytest.raises(ProjectError, match="encrypted"):
        Project.load(path)


@pytest.mark.parametrize("method", [12, 14, 93, 99])
def test_unsupported_compression(tmp_path, method):
    path = set_flag(write_project(tmp_path / "p.arxpy"), "data.csv", method=method)
    with pytest.raises(ProjectError, match="compression method"):
        Project.load(path)


def test_duplicate_entries(tmp_path):
    path = duplicate_member(write_project(tmp_path / "p.arxpy"), "project.json", b"[]")
    with pytest.raises(ProjectError, match="more than once"):
        Project.load(path)


# --- zip bombs -------------------------------------------------------------------------

def test_declared_size_beyond_the_bound_is_refused_before_reading(tmp_path):
    path = zip_with_declared_size(tmp_path / "p.arxpy", "project.json", b"{}", 2**32 - 1)
    with pytest.raises(ProjectError, match="declares more than"):
        Project.load(path)


def test_member_inflating_beyond_its_declared_size_is_refused(tmp_path):
    # The header says 10 bytes; the stream holds more: zipfile's size check stops it.
    manifest = json.dumps(good_manifest()).encode()
    path = zip_with_declared_size(tmp_path / "p.arxpy", "project.json", manifest, 10)
    with pytest.raises(ProjectError):
        Project.load(path)


def test_compression_ratio_bomb_is_refused_with_bounded_memory(tmp_path):
    others = {"project.json": json.dumps(good_manifest()).encode()}
    path = deflate_bomb(tmp_path / "p.arxpy", "data.csv", 64 * 2**20, others)
    assert path.stat().st_size < 2**20  # 64 MiB of zeros in well under 1 MiB
    tracemalloc.start()
    try:
        with pytest.raises(ProjectError, match="zip bomb"):
            Project.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20  # stopped after a few chunks, not after 64 MiB


def test_absolute_size_bound_holds_without_the_ratio_check(tmp_path):
    others = {"project.json": json.dumps(good_manifest()).encode()}
    path = deflate_bomb(tmp_path / "p.arxpy", "data.csv", 8 * 2**20, others)
    limits = ArchiveLimits(max_data_bytes=4 * 2**20, max_ratio=float("inf"))
    with pytest.raises(ProjectError, match="more than 4.0 MiB"):
        Project.load(path, limits)


def test_total_size_bound(tmp_path):
    path = write_project(tmp_path / "p.arxpy")
    with pytest.raises(ProjectError, match="more than"):
        Project.load(path, ArchiveLimits(max_total_bytes=200))


# --- every surface: CLI and GUI --------------------------------------------------------

@pytest.mark.parametrize("case", range(0, len(BAD_MANIFESTS), 7))
def test_cli_reports_a_bad_project_in_one_line(tmp_path, capsys, case):
    raw = json.dumps(BAD_MANIFESTS[case][0]).encode()
    path = write_project(tmp_path / "bad.arxpy", raw_manifest=raw)
    code = main(["risk", "--project", str(path), "--report", str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert not (tmp_path / "r.json").exists()


# --- generated manifests and archives --------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats(allow_nan=True)
    | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8)
MANIFEST_PATHS = [("schema_version",), ("name",), ("data",), ("definition",),
                  ("definition", 0), ("definition", 0, "type"), ("definition", 1, "data_type"),
                  ("definition", 2, "weight"), ("definition", 0, "min_level"),
                  ("hierarchies",), ("hierarchies", "age"), ("settings",),
                  ("settings", "privacy_models"), ("settings", "privacy_models", 0),
                  ("settings", "privacy_models", 0, "k"), ("settings", "quality_model"),
                  ("settings", "suppression_limit"), ("settings", "time_limit")]


def _replace(manifest, path, value):
    holder = manifest
    for step in path[:-1]:
        holder = holder[step]
    holder[path[-1]] = value
    return manifest


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(MANIFEST_PATHS), json_values)
def test_any_manifest_value_loads_or_gives_a_user_error(tmp_path, where, value):
    import arxpy.privacy  # noqa: F401
    import arxpy.quality  # noqa: F401

    manifest = _replace(good_manifest(), where, value)
    path = write_project(tmp_path / "gen.arxpy", raw_manifest=json.dumps(manifest).encode())
    try:
        project = Project.load(path)
        check_settings(project.settings)
    except ArxpyError:
        pass  # a clear error is the expected outcome for most values


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1,
                max_size=6))
def test_damaged_archive_bytes_load_or_give_a_user_error(tmp_path, flips):
    path = write_project(tmp_path / "flip.arxpy")
    raw = bytearray(path.read_bytes())
    for offset, value in flips:
        raw[offset % len(raw)] = value
    path.write_bytes(bytes(raw))
    try:
        Project.load(path)
    except ProjectError:
        pass
