"""Clusters of near-duplicates: connected components of verified links (SciPy)."""

from __future__ import annotations

from typing import Any

import numpy as np


def components(pairs: np.ndarray, n: int) -> np.ndarray:
    """Connected-component label of each of ``n`` nodes linked by ``pairs`` (k, 2).

    >>> components(np.array([[0, 2], [3, 4]]), 5).tolist()
    [0, 1, 0, 2, 2]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    if pairs.size == 0:
        return np.arange(n)
    graph = coo_matrix(
        (np.ones(pairs.shape[0], dtype=np.int8), (pairs[:, 0], pairs[:, 1])), shape=(n, n)
    )
    return connected_components(graph, directed=False)[1]


def split_clusters(
    name: str, comp: np.ndarray, ids: list[str]
) -> tuple[float, list[dict[str, Any]]]:
    """Return (n − components) / n of one split and its clusters of two or more instances.

    ``comp`` is the component label of each of the split's n > 0 instances, ``ids`` their ids.
    """
    labels, counts = np.unique(comp, return_counts=True)
    clusters = []
    for cid in labels[counts > 1]:
        mem = np.flatnonzero(comp == cid)
        clusters.append({"split": name, "size": int(mem.size), "ids": [ids[m] for m in mem]})
    return (comp.size - labels.size) / comp.size, clusters
