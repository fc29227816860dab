"""PNG plots of analysis results for the command line (matplotlib, Agg backend).

The GUI draws its own plots with pyqtgraph from the same plotting-ready tables
(``StudyResult.scatter_data``, ``ClassificationPerformance.roc_curves`` ...).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arxpy.data.atomic import atomic_write
from arxpy.errors import DataExportError

if TYPE_CHECKING:
    from arxpy.analysis.metrics import ClassificationPerformance
    from arxpy.analysis.study import StudyResult

_LABELS = {"loss": "Loss", "entropy": "Non-uniform entropy", "kl": "KL divergence",
           "classification": "Classification"}


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)  # headless; never opens a window
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path: Path) -> Path:
    with atomic_write(path, mode="wb") as handle:
        figure.savefig(handle, format="png", dpi=110)
    return path


def write_study_plots(study: StudyResult, directory: Path) -> list[Path]:
    """One scatter plot per quality model plus all four side by side (``study.png``)."""
    plt = _pyplot()
    make_plot_folder(directory)
    models = list(study.chosen)
    written = []
    overview, axes = plt.subplots(1, len(models), figsize=(4 * len(models), 3.6), squeeze=False)
    for model, combined in zip(models, axes[0], strict=True):
        single, own = plt.subplots(figsize=(5, 4))
        for axis in (own, combined):
            _scatter(axis, study, model)
        single.tight_layout()
        written.append(_save(single, directory / f"study_{model}.png"))
        plt.close(single)
    overview.tight_layout()
    written.append(_save(overview, directory / "study.png"))
    plt.close(overview)
    return written


def _scatter(axis, study: StudyResult, model: str) -> None:
    data = study.scatter_data(model)
    axis.scatter(data["score"], data["relative_accuracy"], s=6, alpha=0.5)
    summary = study.summary().loc[model]
    row = study._row(summary["chosen_transformation"])
    axis.scatter([row[model]], [row["relative_accuracy"]], s=60, marker="*", color="red",
                 label="chosen")
    rho = summary["spearman"]
    axis.set_title(f"{_LABELS.get(model, model)} (Spearman {rho:.2f})", fontsize=9)
    axis.set_xlabel("score (lower is better)")
    axis.set_ylabel("relative accuracy")
    axis.legend(loc="best", fontsize=7)


def make_plot_folder(directory: Path) -> None:
    """Create ``directory`` for plots; DataExportError if it is a file or not writable."""
    if directory.exists() and not directory.is_dir():
        raise DataExportError(f"Cannot write plots into '{directory}': it is a file, not a "
                              "folder. Choose a folder name.")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataExportError(f"Cannot create the plot folder '{directory}': "
                              f"{exc.strerror or exc}.") from None


def write_curve_plots(performance: ClassificationPerformance, directory: Path) -> list[Path]:
    """ROC and precision-recall curves of the input- and output-trained classifiers."""
    plt = _pyplot()
    make_plot_folder(directory)
    written = []
    for kind, table, x, y in (("roc", performance.roc_curves(), "fpr", "tpr"),
                              ("pr", performance.precision_recall_curves(), "recall",
                               "precision")):
        figure, axis = plt.subplots(figsize=(5, 4))
        colours = {value: f"C{i}" for i, value in enumerate(dict.fromkeys(table["class"]))}
        for (model, value), part in table.groupby(["model", "class"], sort=False):
            # One colour per class; dashed = trained on input, solid = trained on output.
            axis.plot(part[x], part[y], label=f"{model}: {value}", linewidth=1,
                      color=colours[value], linestyle="--" if model == "original" else "-")
        axis.set_xlabel(x)
        axis.set_ylabel(y)
        axis.legend(loc="best", fontsize=7)
        figure.tight_layout()
        written.append(_save(figure, directory / f"classification_{kind}.png"))
        plt.close(figure)
    return written
