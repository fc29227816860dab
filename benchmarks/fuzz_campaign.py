"""Hostile-input campaign behind the table in docs/security.md (issue 12's acceptance).

Every input is generated into a temporary folder and run in a forked child with a
memory limit and a time limit; the outcome is counted as a clear error (an ArxpyError,
or argparse's usage error), a traceback (any other exception), a hang (over the time
limit), a memory bound exceeded (MemoryError or killed), and data lost or changed (an
input file modified, or an output that an independent check rejects).

    python3 benchmarks/fuzz_campaign.py [CASES_PER_CLASS] [SEED] [CLASS ...]

The classes of issue 28 run every command (``tests/fuzz/commands.py``): outputs pointed
at inputs, invalid parameters, forged documents and saved results, and Ctrl-C sent to
the real process at a random moment.

Nothing is written outside the temporary folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import multiprocessing as mp
import os
import random
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.fuzz import commands, hostile  # noqa: E402

TIME_LIMIT = 30.0
MEMORY_HEADROOM = 2 * 2**30


_FROZEN: dict[str, str] | None = None


def freeze(folder: Path) -> None:
    """Called by a case once its input files are written: later changes are counted."""
    global _FROZEN
    _FROZEN = _digests(folder)


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in folder.iterdir() if p.is_file() and p.name.startswith("in")}


def _child(case, folder: Path, queue) -> None:
    soft = _vm_size() + MEMORY_HEADROOM
    resource.setrlimit(resource.RLIMIT_AS, (soft, soft))
    from arxpy.errors import ArxpyError

    changed = False
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            verdict = case(folder)
        outcome = "ok"
        changed = verdict is False  # the case's own check of the output failed
    except ArxpyError:
        outcome = "clear"
    except SystemExit as stop:
        outcome = "clear" if stop.code == 2 else f"traceback: SystemExit {stop.code}"
    except MemoryError:
        outcome = "memory"
    except BaseException as exc:  # noqa: BLE001 - counting is the point
        outcome = "traceback: " + "".join(traceback.format_exception_only(exc)).strip()[:200]
    if _FROZEN is not None and _digests(folder) != _FROZEN:
        changed = True
    queue.put((outcome, changed))


def _vm_size() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def run(case) -> tuple[str, bool]:
    context = mp.get_context("fork")
    with tempfile.TemporaryDirectory() as folder:
        queue = context.Queue()
        process = context.Process(target=_child, args=(case, Path(folder), queue))
        process.start()
        process.join(TIME_LIMIT)
        if process.is_alive():
            process.kill()
            process.join()
            return "hang", False
        if process.exitcode != 0 and queue.empty():
            return "memory", False  # killed (the kernel's answer to the memory limit)
        return queue.get()


# --- input classes ---------------------------------------------------------------------

def _cli(*args: str) -> int:
    from arxpy.cli import main

    code = main(list(args))
    if code not in (0, 2):
        raise RuntimeError(f"exit status {code}")
    if code == 2:
        raise SystemExit(2)
    return code


def project_cases(rng: random.Random, n: int):
    values = [None, True, 0, -1, 1.5, 2**70, float("nan"), "", "x", "<h1>", [], [1], {},
              {"kind": 5}, {"name": "loss"}, "k-anonymity", "quasi-identifying", "99"]
    paths = [("schema_version",), ("name",), ("data",), ("definition",), ("definition", 0),
             ("definition", 0, "type"), ("definition", 1, "data_type"),
             ("definition", 1, "data_type", "kind"), ("definition", 2, "weight"),
             ("definition", 0, "min_level"), ("definition", 0, "max_level"),
             ("definition", 0, "name"), ("hierarchies",), ("hierarchies", "age"), ("settings",),
             ("settings", "privacy_models"), ("settings", "privacy_models", 0),
             ("settings", "privacy_models", 0, "k"), ("settings", "privacy_models", 0, "kind"),
             ("settings", "quality_model"), ("settings", "suppression_limit"),
             ("settings", "strategy"), ("settings", "time_limit")]
    members = [{"data.csv": b""}, {"data.csv": "caf\xe9".encode("latin-1")},
               {"data.csv": b"\x00\x01\x02"}, {"data.csv": b'"a"\n"1","2","3"\n'},
               {"hierarchies/0.csv": b"\xff\xfe"}, {"hierarchies/0.csv": b"20;*\n20;x\n"}]

    def load(path):
        import arxpy.privacy  # noqa: F401
        import arxpy.quality  # noqa: F401
        from arxpy.engine.config import check_settings
        from arxpy.project import Project

        check_settings(Project.load(path).settings)

    for i in range(n):
        kind = i % 8

        seed = rng.random()

        def case(folder, kind=kind, seed=seed):
            r = random.Random(seed)
            path = folder / "in.arxpy"
            if kind <= 2:
                manifest = hostile.good_manifest()
                where = r.choice(paths)
                holder = manifest
                for step in where[:-1]:
                    holder = holder[step]
                holder[where[-1]] = r.choice(values)
                hostile.write_project(path, raw_manifest=json.dumps(manifest).encode())
            elif kind == 3:
                hostile.write_project(path, members=r.choice(members))
            elif kind == 4:
                hostile.write_project(path)
                raw = bytearray(path.read_bytes())
                for _ in range(r.randint(1, 8)):
                    raw[r.randrange(len(raw))] = r.randrange(256)
                path.write_bytes(bytes(raw))
            elif kind == 5:
                hostile.write_project(path)
                r.choice([lambda: hostile.set_flag(path, "data.csv", encrypted=True),
                          lambda: hostile.set_flag(path, "data.csv", method=r.choice([12, 14,
                                                                                       99])),
                          lambda: hostile.corrupt_deflate(path, "data.csv"),
                          lambda: hostile.duplicate_member(path, "project.json", b"[]")])()
            elif kind == 6:
                hostile.zip_with_declared_size(path, "project.json", b"{}",
                                               r.choice([2**31, 2**32 - 1, 10]))
            else:
                others = {"project.json": json.dumps(hostile.good_manifest()).encode()}
                hostile.deflate_bomb(path, r.choice(["data.csv", "project.json"]),
                                     r.choice([64, 600]) * 2**20, others)
            freeze(folder)
            load(path)
        yield case


def csv_cases(rng: random.Random, n: int):
    alphabet = list('ab1;,"\'\t \r\n=@-é|') + ["\x00", "\ufeff"]
    for _ in range(n):
        seed = rng.random()
        def case(folder, seed=seed):
            r = random.Random(seed)
            path = folder / "in.csv"
            shape = r.randrange(4)
            if shape == 0:
                path.write_bytes(bytes(r.randrange(256) for _ in range(r.randrange(400))))
            elif shape == 1:
                text = "".join(r.choice(alphabet) for _ in range(r.randrange(300)))
                path.write_bytes(text.encode(r.choice(["utf-8", "utf-16", "utf-8-sig"])))
            elif shape == 2:  # a bad byte past the sniffed sample
                tail = r.choice([b"\x00", "\xe9".encode("latin-1"), b"\xff\xfe", b'"'])
                path.write_bytes(b"x;y\n" + b"1;2\n" * 20_000 + b"3;" + tail + b"\n")
            else:
                rows = [";".join(r.choice(["1", "a", '"q"', "", "=1+1"])
                                 for _ in range(r.randint(1, 4)))
                        for _ in range(r.randint(1, 30))]
                path.write_text("x;y\n" + "\n".join(rows) + "\n")
            freeze(folder)
            _cli("risk", "--data", str(path), "--qi", "x", "--no-hipaa",
                 "--report", str(folder / "out.json"))
        yield case


def hierarchy_cases(rng: random.Random, n: int):
    labels = ["20", "21", "22", "2*", "*", "", "x", '"', ";", "=1", "\x00"]
    for _ in range(n):
        seed = rng.random()
        def case(folder, seed=seed):
            import pandas as pd

            r = random.Random(seed)
            data = folder / "in_data.csv"
            data.write_text("age;sex\n" + "".join(f"{20 + i % 3};{'MF'[i % 2]}\n"
                                                   for i in range(30)))
            rows = [[r.choice(labels) for _ in range(r.randint(1, 4))]
                    for _ in range(r.randint(0, 6))]
            if r.random() < 0.5:
                rows += [[v, "2*", "*"] for v in ("20", "21", "22")]
            hierarchy = folder / "in_age.csv"
            hierarchy.write_text("".join(";".join(row) + "\n" for row in rows))
            output = folder / "out.csv"
            freeze(folder)
            _cli("anonymize", "--data", str(data), "--delimiter", ";", "--hierarchy",
                 f"age={hierarchy}", "--k", "2", "--suppression", "1",
                 "--output", str(output))
            released = pd.read_csv(output, sep=";", dtype=str, keep_default_na=False)
            kept = released[released["age"] != "*"]
            allowed = {v for row in rows for v in row} | {"*"}
            return bool((kept.groupby("age").size() >= 2).all()
                        and set(released["age"]) <= allowed and len(released) == 30)
        yield case


def excel_cases(rng: random.Random, n: int):
    import re

    for _ in range(n):
        seed = rng.random()
        def case(folder, seed=seed):
            from arxpy.data.excel_io import read_excel

            r = random.Random(seed)
            path = folder / "in.xlsx"
            cells = {"A1": "a", "B1": "b"}
            cells.update({f"A{i}": i for i in range(2, 50)})
            shape = r.randrange(4)
            if shape == 3:
                cells = {"A1": "x", "XFD1": "y", "A1048576": "z"}
            hostile.workbook(path, cells)
            sheet = "xl/worksheets/sheet1.xml"
            if shape == 0:
                def flip(raw):
                    raw = bytearray(raw)
                    for _ in range(r.randint(1, 6)):
                        raw[r.randrange(len(raw))] = r.randrange(256)
                    return bytes(raw)
                hostile.rewrite_member(path, sheet, flip)
            elif shape == 1:
                hostile.rewrite_member(path, sheet, lambda b: re.sub(
                    rb'<dimension ref="[^"]*"', b'<dimension ref="A1:A3"', b))
                freeze(folder)
                return len(read_excel(path)) == 48  # every record kept
            elif shape == 2:
                body = hostile.ENTITY_BOMB_DOCTYPE
                hostile.rewrite_member(path, sheet, lambda b: body + (
                    b.split(b"?>", 1)[1] if b.startswith(b"<?xml") else b).replace(
                    b"<sheetData>", b"<sheetData>&i;", 1))
            freeze(folder)
            read_excel(path)
        yield case


def option_cases(rng: random.Random, n: int):
    choices = {
        "--k": ["0", "-1", "1", "2", "100000", "x", "1e9"],
        "--suppression": ["-0.1", "1.5", "nan", "inf", "0.1", "x"],
        "--ldiversity": ["sex:distinct:2", "sex:entropy:inf", "sex:entropy:nan",
                         "age:distinct:2", "sex:recursive:inf:2", "nope:distinct:2", ":::"],
        "--tcloseness": ["sex:equal:0.2", "sex:equal:2", "age:equal:0.2", "sex:bogus:0.1"],
        "--sensitive": ["age", "sex", "nope"],
        "--identifying": ["age", "sex"],
        "--delimiter": [";", ";;", "", "tab", '"'],
        "--encoding": ["utf-8", "rot13", "nope", "latin-1"],
        "--strategy": ["heuristic", "optimal", "nope"],
        "--time-limit": ["0", "-1", "nan", "inf", "0.5"],
        "--metric": ["loss", "entropy", "classification", "nope"],
    }

    for _ in range(n):
        seed = rng.random()
        def case(folder, seed=seed):
            import pandas as pd

            r = random.Random(seed)
            data = folder / "in_data.csv"
            data.write_text("age;sex\n" + "".join(f"{20 + i % 3};{'MF'[i % 2]}\n"
                                                   for i in range(30)))
            hierarchy = folder / "in_age.csv"
            hierarchy.write_text("20;2*;*\n21;2*;*\n22;2*;*\n")
            args = ["anonymize", "--data", str(data), "--hierarchy", f"age={hierarchy}"]
            for option in r.sample(sorted(choices), r.randint(1, 4)):
                args += [option, r.choice(choices[option])]
            if "--delimiter" not in args:
                args += ["--delimiter", ";"]
            output = r.choice([folder / "out.csv", data, hierarchy, folder / "out.tsv"])
            args += ["--output", str(output)]
            freeze(folder)
            _cli(*args)
            released = pd.read_csv(output, sep=None, engine="python", dtype=str,
                                   keep_default_na=False)
            # Privacy escape: age was given a hierarchy, so it must be generalized or the
            # run refused; an ungeneralized age in the output would be a leak.
            kept = released[released["age"] != "*"]
            return bool(set(released["age"]) <= {"20", "21", "22", "2*", "*"}
                        and (kept.groupby("age").size() >= 1).all())
        yield case


def _template(r: random.Random, folder: Path, with_outputs: bool = False
              ) -> tuple[str, dict[str, str], list[str]]:
    name = r.choice(commands.overwritable() if with_outputs else list(commands.TEMPLATES))
    files = commands.write_inputs(folder)
    return name, files, commands.TEMPLATES[name](files)


def overwrite_cases(rng: random.Random, n: int):
    """Every command with one output pointed at an input or another output (as given,
    through '..' or a symbolic link): refused before any work, nothing changed."""
    for _ in range(n):
        seed = rng.random()

        def case(folder, seed=seed):
            r = random.Random(seed)
            _, _, argv = _template(r, folder, with_outputs=True)
            argv = commands.output_over_input(argv, r, folder)
            freeze(folder)
            _cli(*argv)
            return False  # accepted: the guard let an output replace a file
        yield case


def parameter_cases(rng: random.Random, n: int):
    """Every command with one of its parameters invalid or out of bounds (k 0, -5, 1e308,
    NaN, 'x'; seeds -1; delimiters; m, records, bins, repeats)."""
    for _ in range(n):
        seed = rng.random()

        def case(folder, seed=seed):
            r = random.Random(seed)
            name, _, argv = _template(r, folder)
            argv = commands.hostile_parameter(argv, r)
            freeze(folder)
            _cli(*argv)
            # Condensation reproduces records below k = 3: such a run must be refused.
            k = argv[argv.index("--k") + 1] if "--k" in argv else "3"
            return not (name == "condense" and k in ("0", "1", "2", "-5", "-1"))
        yield case


def document_cases(rng: random.Random, n: int):
    """Forged published disassociation documents (m up to 10^9, sizes, shapes) read by
    km-check and setvalued-utility (its baselines and reconstructions)."""
    for _ in range(n):
        seed = rng.random()

        def case(folder, seed=seed):
            r = random.Random(seed)
            files = commands.write_inputs(folder)
            document = folder / "in_forged.json"
            document.write_text(json.dumps(commands.forged_document(r)))
            argv = r.choice(commands.DOCUMENT_READERS)(files, str(document))
            freeze(folder)
            _cli(*argv)
        yield case


def saved_result_cases(rng: random.Random, n: int):
    """A saved search result with a forged optimum, verdicts or scores: refused, or
    restored with the optimum a search finds."""
    for _ in range(n):
        seed = rng.random()

        def case(folder, seed=seed):
            from arxpy.engine.stored import reopen_result

            r = random.Random(seed)
            frame, definition, hierarchies, config, result, stored = \
                commands.saved_result_run()
            forged = commands.forged_outcome(stored, r)
            freeze(folder)
            reopened = reopen_result(frame, definition, hierarchies, config, forged)
            return (reopened.optimum is not None
                    and reopened.optimum.levels == result.optimum.levels)
        yield case


#: Commands interrupted in the Ctrl-C class (long enough for a signal to land mid-run).
INTERRUPTED = ("anonymize", "anonymize --engine duckdb", "condense", "compare-models",
               "kpbms", "run kpbms", "intervals", "disassociate", "km-check",
               "setvalued-utility", "synth-ehr", "example", "risk")
_TEMPORARY = re.compile(r"^\..*\.tmp(\.d)?$")


def interrupt_cases(rng: random.Random, n: int):
    """SIGINT to the real ``arxpy`` process at a random moment from its start: the run
    ends with 'arxpy: interrupted' and status 130 (or had finished), no half-written
    output, no temporary left, inputs unchanged. Run here, not in a forked child."""
    for _ in range(n):
        seed = rng.random()

        def case(folder, seed=seed):
            r = random.Random(seed)
            name = r.choice(INTERRUPTED)
            files = commands.write_inputs(folder)
            argv = commands.TEMPLATES[name](files)
            before = _digests(folder)
            env = {**os.environ, "PYTHONPATH": str(REPO), "QT_QPA_PLATFORM": "offscreen"}
            process = subprocess.Popen([sys.executable, "-m", "arxpy", *argv], cwd=folder,
                                       env=env, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True)
            time.sleep(r.uniform(0.05, 4.0))
            process.send_signal(signal.SIGINT)
            try:
                _, err = process.communicate(timeout=TIME_LIMIT)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                return "hang", False
            lines = err.replace("\r", "\n").strip().splitlines()
            if process.returncode == 0:
                outcome = "ok"
            elif (process.returncode == 130 and lines and lines[-1] == "arxpy: interrupted"
                  and "Traceback" not in err):
                outcome = "clear"
            else:
                outcome = f"traceback: {name} status {process.returncode}: {lines[-1:]}"
            return outcome, _digests(folder) != before or not _whole_outputs(folder)
        yield case


def _whole_outputs(folder: Path) -> bool:
    """No temporary left and every output complete (JSON parses, CSV ends its line)."""
    for path in folder.rglob("*"):
        if _TEMPORARY.match(path.name):
            return False
        if path.is_file() and path.name.startswith("out_"):
            raw = path.read_bytes()
            if path.suffix == ".json":
                try:
                    json.loads(raw)
                except ValueError:
                    return False
            elif path.suffix == ".csv" and not raw.endswith(b"\n"):
                return False
    return True


def run_here(case) -> tuple[str, bool]:
    with tempfile.TemporaryDirectory() as folder:
        return case(Path(folder))


CLASSES = {
    "project file (.arxpy)": project_cases,
    "CSV data file": csv_cases,
    "hierarchy file": hierarchy_cases,
    "Excel workbook": excel_cases,
    "command-line options": option_cases,
    "output pointed at an input (every command)": overwrite_cases,
    "invalid or out-of-bound parameter (every command)": parameter_cases,
    "forged published document": document_cases,
    "forged saved result": saved_result_cases,
    "Ctrl-C at a random moment (real process)": interrupt_cases,
}
#: Classes run in this process (they start their own processes).
RUN_HERE = {"Ctrl-C at a random moment (real process)"}


def main() -> None:
    per_class = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 12)
    chosen = sys.argv[3:]  # optional: names (or starts of names) of the classes to run
    classes = {name: cases for name, cases in CLASSES.items()
               if not chosen or any(name.startswith(c) for c in chosen)}
    print("| input class | inputs tried | clear error | accepted | traceback | hang | "
          "memory bound exceeded | data lost or changed |")
    print("|---|---|---|---|---|---|---|---|")
    for name, cases in classes.items():
        counts: Counter[str] = Counter()
        changed = 0
        examples = []
        for case in cases(rng, per_class):
            outcome, was_changed = (run_here if name in RUN_HERE else run)(case)
            kind = "traceback" if outcome.startswith("traceback") else outcome
            counts[kind] += 1
            changed += was_changed
            if kind in ("traceback", "hang", "memory") and len(examples) < 3:
                examples.append(outcome)
        print(f"| {name} | {sum(counts.values())} | {counts['clear']} | {counts['ok']} | "
              f"{counts['traceback']} | {counts['hang']} | {counts['memory']} | {changed} |",
              flush=True)
        for example in examples:
            print(f"  - {example}", file=sys.stderr)


if __name__ == "__main__":
    main()
