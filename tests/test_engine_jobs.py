"""Jobs: progress, cancellation within 200 ms without partial results, the thread runner."""

from __future__ import annotations

import threading
import time

import numpy as np
import pandas as pd
import pytest

from arxpy.data.definition import AttributeDefinition, AttributeType, DataDefinition
from arxpy.engine import AnonymizationConfig, anonymize
from arxpy.errors import CancelledError
from arxpy.hierarchy.model import Hierarchy
from arxpy.jobs import CancelToken, JobRunner, run_job
from arxpy.privacy.kanonymity import KAnonymity
from arxpy.quality.loss import Loss


def digits_hierarchy(width: int) -> Hierarchy:
    """Values 0..10^width-1, masking one more digit per level."""
    rows = []
    for v in range(10 ** width):
        text = str(v).zfill(width)
        rows.append([text] + [text[: width - i] + "*" * i for i in range(1, width + 1)])
    return Hierarchy(rows)


def workload(n: int = 20_000):
    rng = np.random.default_rng(0)
    names = [f"q{i}" for i in range(6)]
    frame = pd.DataFrame({name: [str(v).zfill(2) for v in rng.integers(0, 100, n)]
                          for name in names})
    definition = DataDefinition(AttributeDefinition(n, AttributeType.QUASI_IDENTIFYING)
                                for n in names)
    hierarchy = digits_hierarchy(2)
    return frame, definition, {n: hierarchy for n in names}


def test_progress_reports_are_ordered_and_finish_at_one():
    frame, definition, hierarchies = workload(2_000)
    reports = []
    anonymize(frame.iloc[:, :3], DataDefinition(list(definition)[:3]),
              {k: hierarchies[k] for k in ("q0", "q1", "q2")},
              AnonymizationConfig([KAnonymity(3)], Loss(), 0.05),
              progress=lambda f, m: reports.append((f, m)))
    fractions = [f for f, _ in reports]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert all(0.0 <= f <= 1.0 and isinstance(m, str) for f, m in reports)


def _cancel_during_search() -> tuple[float, object]:
    """Cancel an exhaustive search mid-run: (seconds until it stopped, the job)."""
    frame, definition, hierarchies = workload()
    config = AnonymizationConfig([KAnonymity(5)], Loss(), 0.02, strategy="exhaustive")
    token = CancelToken()
    started = threading.Event()
    job = JobRunner().start(
        anonymize, progress=lambda f, m: started.set(), cancel=token,
        frame=frame, definition=definition, hierarchies=hierarchies, config=config)
    assert started.wait(10)
    time.sleep(0.3)  # well inside the search (exhaustive over 729 transformations)
    assert not job.done
    cancelled_at = time.perf_counter()
    job.cancel()
    assert job.wait(5)
    return time.perf_counter() - cancelled_at, job


def test_cancel_stops_the_search_and_keeps_nothing():
    # Cancelled from inside the search (its first report past 10 %), so the search cannot
    # have finished before the cancel arrives, however fast the machine.
    frame, definition, hierarchies = workload()
    config = AnonymizationConfig([KAnonymity(5)], Loss(), 0.02, strategy="exhaustive")
    token = CancelToken()
    reports: list[float] = []

    def progress(fraction: float, message: str) -> None:
        reports.append(fraction)
        if 0.1 < fraction < 0.9:
            token.cancel()

    job = JobRunner().start(anonymize, progress=progress, cancel=token, frame=frame,
                            definition=definition, hierarchies=hierarchies, config=config)
    assert job.wait(30)
    assert token.cancelled, f"no report inside the search: {reports}"
    with pytest.raises(CancelledError):
        job.result()


@pytest.mark.perf
def test_cancel_stops_within_200_ms():
    seconds, _ = _cancel_during_search()
    assert seconds < 0.2


def test_cancel_before_start_and_runner_results():
    frame, definition, hierarchies = workload(500)
    token = CancelToken()
    token.cancel()
    assert token.cancelled
    with pytest.raises(CancelledError):
        anonymize(frame, definition, hierarchies, AnonymizationConfig([KAnonymity(2)]),
                  cancel=token)
    job = run_job(lambda progress, cancel, x: x * 2, x=21)
    assert job.result(5) == 42 and job.done
    failing = run_job(lambda progress, cancel: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        failing.result(5)
