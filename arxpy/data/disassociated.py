"""Disassociated data as published (schema v1 of spec 002 §6) and its reconstructions.

A published document is plain JSON::

    {"method": "disassociation", "k": 5, "m": 2, "params": {...},
     "joint_clusters": [
       {"clusters": [{"size": n,
                      "record_chunks": [{"domain": [..], "subrecords": [[..], ..]}],
                      "item_chunk": [..]}],
        "shared_chunks": [{"domain": [..], "members": [0, 1], "subrecords": [[..], ..]}]}]}

A record chunk has exactly ``size`` subrecords (empty ones included), a shared chunk
one per record of its member clusters. ``members`` index the joint cluster's own
``clusters`` list (0 is its first cluster), so every joint cluster reads on its own.
Nothing here knows how the document was made: the independent k^m checker and the
utility measures read documents through this module only.

Loukides et al. 2014 (J Biomed Inform 50:46-61) §3.3 and spec 002 §4 "A random
reconstruction": :func:`reconstruct` draws one dataset the publication could have come
from.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from arxpy.arrays import distinct
from arxpy.data.transactions import CodeSets
from arxpy.errors import ArxpyError, DataImportError
from arxpy.jobs import CancelToken

#: Largest published file read (bytes): a 58,000-record publication is a few MB.
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
#: Largest m a publication, a k^m check or a baseline takes: the work grows with every
#: itemset of up to m codes (m = 5 already takes minutes on 58,000 records; published
#: evaluations use m of 1 to 4), so a document's m cannot make a reader run for hours.
MAX_M = 6
#: Most reconstructions drawn or written at once (each is a full table in memory).
MAX_RECONSTRUCTIONS = 100
#: The bound in words, for messages.
MAX_M_TEXT = (f"m is at most {MAX_M} (every itemset of up to m codes is counted, which "
              "grows combinatorially; published evaluations use m of 1 to 4)")
#: How item-chunk codes are given to records in a reconstruction (spec 002 §4).
ITEM_FILLS = ("one", "uniform")
#: What a reconstruction file is, said wherever one is written or offered.
RECONSTRUCTION_NOTE = ("synthetic possible originals built from the published document only; "
                       "not the real data")


class PublishedFormatError(DataImportError):
    """A published disassociation document is not valid schema v1."""


# --- reading and validation ----------------------------------------------------------------

def load_published(path: str | os.PathLike[str],
                   max_bytes: int = DEFAULT_MAX_BYTES) -> dict[str, Any]:
    """Read and validate a published document (see :func:`validate_published`)."""
    file = Path(path)
    try:
        size = file.stat().st_size
    except OSError as exc:
        raise PublishedFormatError(f"Cannot read '{file}': {exc.strerror or exc}.") from exc
    if size > max_bytes:
        raise PublishedFormatError(
            f"'{file}' is {size:,} bytes, more than the {max_bytes:,} accepted for a "
            "published disassociation; is it the right file?")
    try:
        with file.open("rb") as handle:
            document = json.load(handle)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise PublishedFormatError(f"'{file}' is not a JSON document: {exc}.") from exc
    except RecursionError as exc:
        raise PublishedFormatError(f"'{file}' nests too deeply to be a publication.") from exc
    return validate_published(document, source=str(file))


def validate_published(document: Any, source: str = "the document") -> dict[str, Any]:
    """Check that ``document`` is schema v1; return it. Raises PublishedFormatError naming
    the first problem and where it is (e.g. ``joint_clusters[2].clusters[0].size``)."""
    _Validator(source).document(document)
    return document


class _Validator:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, problem: str) -> None:
        raise PublishedFormatError(
            f"{self.source} is not a valid published disassociation: {where} {problem}.")

    def document(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            self.fail("the top level", "must be a JSON object")
        if doc.get("method") != "disassociation":
            self.fail("'method'", f"must be \"disassociation\", not {doc.get('method')!r}")
        if "schema" in doc and doc["schema"] not in (1, "1", "v1"):
            self.fail("'schema'", f"is {doc['schema']!r}; only schema v1 is known")
        for key in ("k", "m"):
            self.positive_int(doc.get(key), f"'{key}'")
        if doc["m"] > MAX_M:
            self.fail("'m'", f"is {doc['m']}; {MAX_M_TEXT}")
        joints = doc.get("joint_clusters")
        if not isinstance(joints, list):
            self.fail("'joint_clusters'", "must be a list")
        for j, joint in enumerate(joints):
            self.joint_cluster(joint, f"joint_clusters[{j}]")

    def positive_int(self, value: Any, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.fail(where, f"must be a whole number >= 1, not {value!r}")

    def joint_cluster(self, joint: Any, where: str) -> None:
        if not isinstance(joint, dict):
            self.fail(where, "must be an object")
        clusters = joint.get("clusters")
        if not isinstance(clusters, list) or not clusters:
            self.fail(f"{where}.clusters", "must be a non-empty list")
        sizes = []
        for c, cluster in enumerate(clusters):
            sizes.append(self.cluster(cluster, f"{where}.clusters[{c}]"))
        shared = joint.get("shared_chunks", [])
        if not isinstance(shared, list):
            self.fail(f"{where}.shared_chunks", "must be a list")
        for s, chunk in enumerate(shared):
            self.shared_chunk(chunk, sizes, f"{where}.shared_chunks[{s}]")
        self.published_once(clusters, shared, where)

    def published_once(self, clusters: list[dict], shared: list[dict], where: str) -> None:
        """Each code of a cluster sits in one place: one record chunk, one shared chunk
        or the item chunk (spec 002 §2.3, "no double publication"). A code in two places
        is counted twice by nothing, so per-chunk checks pass while the places combined
        tell more than either (two documents' worth of one cluster)."""
        for c, cluster in enumerate(clusters):
            places = [(f"clusters[{c}].record_chunks[{i}]", chunk["domain"])
                      for i, chunk in enumerate(cluster.get("record_chunks", []))]
            places.append((f"clusters[{c}].item_chunk", cluster.get("item_chunk", [])))
            places += [(f"shared_chunks[{s}]", chunk["domain"])
                       for s, chunk in enumerate(shared) if c in chunk["members"]]
            seen: dict[str, str] = {}
            for place, codes in places:
                for code in codes:
                    if code in seen:
                        self.fail(f"{where}", f"publishes code {code!r} of cluster {c} in "
                                  f"both {seen[code]} and {place}; each code of a cluster "
                                  "is published in one place only")
                    seen[code] = place

    def cluster(self, cluster: Any, where: str) -> int:
        if not isinstance(cluster, dict):
            self.fail(where, "must be an object")
        size = cluster.get("size")
        self.positive_int(size, f"{where}.size")
        chunks = cluster.get("record_chunks", [])
        if not isinstance(chunks, list):
            self.fail(f"{where}.record_chunks", "must be a list")
        for i, chunk in enumerate(chunks):
            self.chunk(chunk, size, f"{where}.record_chunks[{i}]")
        self.codes(cluster.get("item_chunk", []), f"{where}.item_chunk")
        return size

    def shared_chunk(self, chunk: Any, sizes: list[int], where: str) -> None:
        if not isinstance(chunk, dict):
            self.fail(where, "must be an object")
        members = chunk.get("members")
        if (not isinstance(members, list) or not members
                or any(isinstance(x, bool) or not isinstance(x, int) for x in members)):
            self.fail(f"{where}.members", "must be a non-empty list of cluster indices")
        if len(set(members)) != len(members) or not all(0 <= x < len(sizes) for x in members):
            self.fail(f"{where}.members", f"must name distinct clusters 0..{len(sizes) - 1} "
                      f"of its joint cluster, not {members} (members count the clusters "
                      "within the joint cluster, not over the whole document)")
        self.chunk(chunk, sum(sizes[x] for x in members), where)

    def chunk(self, chunk: Any, rows: int, where: str) -> None:
        if not isinstance(chunk, dict):
            self.fail(where, "must be an object")
        domain = set(self.codes(chunk.get("domain"), f"{where}.domain"))
        subrecords = chunk.get("subrecords")
        if not isinstance(subrecords, list):
            self.fail(f"{where}.subrecords", "must be a list")
        if len(subrecords) != rows:
            self.fail(f"{where}.subrecords", f"has {len(subrecords)} subrecords; it must "
                      f"have one per record it covers ({rows}), empty ones included")
        # Whole-chunk checks first (fast); the slow per-subrecord pass only names a fault.
        if all(type(sub) is list for sub in subrecords):
            flat = list(chain.from_iterable(subrecords))
            if (set(map(type, flat)) <= {str} and domain.issuperset(flat)
                    and sum(map(len, map(set, subrecords))) == len(flat)):
                return
        for r, sub in enumerate(subrecords):
            codes = self.codes(sub, f"{where}.subrecords[{r}]")
            if not domain.issuperset(codes):
                outside = sorted(set(codes) - domain)
                self.fail(f"{where}.subrecords[{r}]", f"has codes outside the chunk's "
                          f"domain: {', '.join(outside[:5])}")

    def codes(self, value: Any, where: str) -> list[str]:
        if not isinstance(value, list) or not all(isinstance(c, str) and c for c in value):
            self.fail(where, "must be a list of non-empty code strings")
        if len(set(value)) != len(value):
            self.fail(where, "repeats a code")
        return value


# --- reading the structure ------------------------------------------------------------------

@dataclass(frozen=True)
class PublishedChunk:
    """One chunk as the checker and the measures see it."""

    kind: str  # "record" or "shared"
    location: str  # e.g. "joint cluster 3, cluster 1, record chunk 0"
    domain: tuple[str, ...]
    subrecords: list[list[str]]


def iter_chunks(document: dict[str, Any]) -> Iterator[PublishedChunk]:
    """Every record chunk and shared chunk, in document order."""
    for j, joint in enumerate(document["joint_clusters"]):
        for c, cluster in enumerate(joint["clusters"]):
            for i, chunk in enumerate(cluster.get("record_chunks", [])):
                yield PublishedChunk("record", f"joint cluster {j}, cluster {c}, record chunk {i}",
                                     tuple(chunk["domain"]), chunk["subrecords"])
        for s, chunk in enumerate(joint.get("shared_chunks", [])):
            yield PublishedChunk("shared", f"joint cluster {j}, shared chunk {s}",
                                 tuple(chunk["domain"]), chunk["subrecords"])


def cluster_sizes(document: dict[str, Any]) -> list[int]:
    """Records per cluster, in publication order."""
    return [cluster["size"] for joint in document["joint_clusters"]
            for cluster in joint["clusters"]]


def published_codes(document: dict[str, Any]) -> list[str]:
    """Every code the publication mentions (chunk domains and item chunks), sorted."""
    codes: set[str] = set()
    for joint in document["joint_clusters"]:
        for cluster in joint["clusters"]:
            codes.update(cluster.get("item_chunk", []))
            for chunk in cluster.get("record_chunks", []):
                codes.update(chunk["domain"])
        for chunk in joint.get("shared_chunks", []):
            codes.update(chunk["domain"])
    return sorted(codes)


def published_statistics(document: dict[str, Any]) -> dict[str, int]:
    """Counts of the structure: records, clusters, joint clusters (with shared chunks),
    record and shared chunks, distinct codes in item chunks."""
    joints = document["joint_clusters"]
    item_codes = {code for joint in joints for cluster in joint["clusters"]
                  for code in cluster.get("item_chunk", [])}
    return {
        "records": sum(cluster_sizes(document)),
        "clusters": sum(len(joint["clusters"]) for joint in joints),
        "joint_clusters": sum(1 for joint in joints if joint.get("shared_chunks")),
        "record_chunks": sum(len(c.get("record_chunks", [])) for joint in joints
                             for c in joint["clusters"]),
        "shared_chunks": sum(len(joint.get("shared_chunks", [])) for joint in joints),
        "codes_in_item_chunks": len(item_codes),
    }


# --- reconstruction ---------------------------------------------------------------------------

def reconstruct(published: dict, rng: np.random.Generator, item_fill: str = "one",
                cancel: CancelToken | None = None) -> CodeSets:
    """One random dataset the publication could have come from (spec 002 §4).

    Rows follow the publication: joint clusters in order, their clusters in order. In
    each cluster every record chunk's subrecords go to its records by an independent
    uniform permutation; a shared chunk's subrecords go to the records of its member
    clusters (those that existed when it was built) the same way; each item-chunk code
    goes to ``n`` distinct random records of its cluster, ``n = 1`` (``item_fill="one"``)
    or ``n ~ U{1..min(k-1, |P|)}`` (``"uniform"``).
    """
    if item_fill not in ITEM_FILLS:
        raise ArxpyError(f"Unknown item fill '{item_fill}'; choose one or uniform.")
    validate_published(published)
    vocabulary = published_codes(published)
    position = {code: i for i, code in enumerate(vocabulary)}
    k = published["k"]
    owners: list[np.ndarray] = []
    codes: list[np.ndarray] = []
    offset = 0
    for joint in published["joint_clusters"]:
        if cancel is not None:
            cancel.raise_if_cancelled()
        starts = []
        for cluster in joint["clusters"]:
            size = cluster["size"]
            starts.append(offset)
            rows = np.arange(offset, offset + size, dtype=np.int64)
            for chunk in cluster.get("record_chunks", []):
                _place_chunk(chunk["subrecords"], rows, rng, position, owners, codes)
            _place_items(cluster.get("item_chunk", []), rows, k, item_fill, rng, position,
                         owners, codes)
            offset += size
        for chunk in joint.get("shared_chunks", []):
            rows = np.concatenate([np.arange(starts[x], starts[x] + joint["clusters"][x]["size"],
                                             dtype=np.int64) for x in chunk["members"]])
            _place_chunk(chunk["subrecords"], rows, rng, position, owners, codes)
    return _code_sets(vocabulary, offset, owners, codes)


def _place_chunk(subrecords: list[list[str]], rows: np.ndarray, rng: np.random.Generator,
                 position: dict[str, int], owners: list[np.ndarray],
                 codes: list[np.ndarray]) -> None:
    target = rows[rng.permutation(len(rows))]
    lengths = np.fromiter((len(s) for s in subrecords), dtype=np.int64, count=len(subrecords))
    owners.append(np.repeat(target, lengths))
    codes.append(np.fromiter((position[c] for s in subrecords for c in s), dtype=np.int64,
                             count=int(lengths.sum())))


def _place_items(items: list[str], rows: np.ndarray, k: int, fill: str,
                 rng: np.random.Generator, position: dict[str, int],
                 owners: list[np.ndarray], codes: list[np.ndarray]) -> None:
    """Each item-chunk code to ``n`` distinct random records of the cluster."""
    if not items:
        return
    size, ids = len(rows), np.fromiter((position[c] for c in items), dtype=np.int64,
                                       count=len(items))
    if fill == "one":
        owners.append(rows[rng.integers(0, size, len(items))])
        codes.append(ids)
        return
    counts = rng.integers(1, max(1, min(k - 1, size)) + 1, len(items))
    # n distinct records per code: the first n of a random order of the cluster's rows.
    order = np.argsort(rng.random((len(items), size)), axis=1)
    taken = np.arange(size) < counts[:, None]
    owners.append(rows[order[taken]])
    codes.append(np.repeat(ids, counts))


def _code_sets(vocabulary: list[str], records: int, owners: list[np.ndarray],
               codes: list[np.ndarray]) -> CodeSets:
    owner = np.concatenate(owners) if owners else np.zeros(0, dtype=np.int64)
    code = np.concatenate(codes) if codes else np.zeros(0, dtype=np.int64)
    # A code placed twice in one record (only in a malformed publication) counts once.
    width = max(len(vocabulary), 1)
    keys = distinct(owner * width + code)
    owner, code = keys // width, keys % width
    indptr = np.zeros(records + 1, dtype=np.int64)
    np.cumsum(np.bincount(owner, minlength=records), out=indptr[1:])
    return CodeSets(tuple(vocabulary), indptr, code.astype(np.int32))


# --- writing ------------------------------------------------------------------------------------

def reconstruction_paths(base: str | os.PathLike[str], count: int) -> list[Path]:
    """Where ``count`` reconstructions go: ``base`` itself for one, else ``STEM-1.csv`` ..
    ``STEM-R.csv`` beside it."""
    base = Path(base)
    if count == 1:
        return [base]
    return [base.with_name(f"{base.stem}-{i + 1}{base.suffix}") for i in range(count)]


def write_reconstructions(published: dict[str, Any], paths: list[Path], seed: int,
                          item_fill: str = "one", codes_column: str = "codes",
                          delimiter: str = ";") -> None:
    """Write one random reconstruction per path as CSV (``row,<codes_column>``), each
    file atomically; the i-th is drawn with the seed ``[seed, 2, i]``."""
    from arxpy.data.atomic import atomic_write

    for i, target in enumerate(paths):
        rows = reconstruct(published, np.random.default_rng([seed, 2, i]), item_fill)
        table = pd.DataFrame({"row": np.arange(len(rows)),
                              codes_column: rows.to_column(delimiter)})
        with atomic_write(target, newline="") as handle:
            table.to_csv(handle, index=False, lineterminator="\n")


def write_published(text: str, path: str | os.PathLike[str]) -> str:
    """Write a published document's JSON text (a final newline added) atomically; its
    SHA-256."""
    import hashlib

    from arxpy.data.atomic import atomic_write

    text = text + "\n"
    with atomic_write(path) as handle:
        handle.write(text)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
