"""Test theory for benchmarks (methods.md section 4): items × models, as an exam.

:func:`item_matrix` / :func:`matrix_from_predictions` → :func:`analyse_items` (CTT) and
:func:`fit_irt` (1PL/2PL); :func:`rank_under_noise` (model rankings when labels may be
wrong); :func:`diff_results` and :func:`evaluate_gates` (two audits compared, CI gates).
Pure: objects in, frozen results out; files are read in :mod:`benchcheck.io.items`.
"""

from benchcheck.items.analysis import ItemAnalysis, analyse_items, review_frame
from benchcheck.items.matrix import ItemMatrix, item_matrix, matrix_from_predictions

__all__ = [
    "ItemAnalysis",
    "ItemMatrix",
    "analyse_items",
    "item_matrix",
    "matrix_from_predictions",
    "review_frame",
]
