"""The worked example of spec 002 §2.4 (paper Figs. 1, 4, 10, 11), written by hand.

``RECORDS`` is the original data (r1..r10); ``published()`` the expected publication
(k = 3, m = 2) in schema v1, with subrecords in record order (a real publication shuffles
them; order does not change any count). Shared by the set-valued tests.
"""

from __future__ import annotations

import copy

RECORDS = [
    {"296.00", "296.01", "296.02", "834.0", "944.01"},
    {"296.00", "296.02", "296.01", "401.0", "944.01", "692.71", "695.10"},
    {"296.00", "296.02", "692.71", "834.0", "695.10"},
    {"296.00", "296.01", "692.71", "401.0"},
    {"296.00", "296.01", "296.02", "692.71", "695.10"},
    {"296.03", "295.04", "404.00", "480.1"},
    {"294.10", "296.03", "834.0", "944.01"},
    {"294.10", "295.04", "296.03", "480.1"},
    {"294.10", "295.04", "404.00"},
    {"294.10", "295.04", "296.03", "834.0", "944.01"},
]

_P1_T1 = ["296.00", "296.01", "296.02"]
_P1_T2 = ["692.71", "695.10"]
_P2_T1 = ["294.10", "295.04", "296.03"]
_SHARED = ["834.0", "944.01"]


def _project(records, domain):
    return [sorted(r & set(domain)) for r in records]


_DOCUMENT = {
    "method": "disassociation", "k": 3, "m": 2,
    "params": {"max_cluster_size": 6, "policy": "custom"},
    "joint_clusters": [{
        "clusters": [
            {"size": 5,
             "record_chunks": [{"domain": _P1_T1, "subrecords": _project(RECORDS[:5], _P1_T1)},
                               {"domain": _P1_T2, "subrecords": _project(RECORDS[:5], _P1_T2)}],
             "item_chunk": ["401.0"]},
            {"size": 5,
             "record_chunks": [{"domain": _P2_T1, "subrecords": _project(RECORDS[5:], _P2_T1)}],
             "item_chunk": ["404.00", "480.1"]},
        ],
        "shared_chunks": [{"domain": _SHARED, "members": [0, 1],
                           "subrecords": _project(RECORDS, _SHARED)}],
    }],
}


def published() -> dict:
    """A fresh copy of the expected publication (tests may mutate it)."""
    return copy.deepcopy(_DOCUMENT)


def naive_publication(records, k, m):
    """A valid k^m-anonymous publication of ``records`` made without the algorithm: one
    cluster, one single-code record chunk per code with support >= k, the rest in the
    item chunk (a one-code chunk of support >= k is k^m-anonymous for every m)."""
    support = {}
    for r in records:
        for c in r:
            support[c] = support.get(c, 0) + 1
    common = sorted(c for c, n in support.items() if n >= k)
    return {"method": "disassociation", "k": k, "m": m, "params": {}, "joint_clusters": [
        {"clusters": [{"size": len(records),
                       "record_chunks": [{"domain": [c], "subrecords": [
                           [c] if c in r else [] for r in records]} for c in common],
                       "item_chunk": sorted(c for c, n in support.items() if n < k)}],
         "shared_chunks": []}]}
