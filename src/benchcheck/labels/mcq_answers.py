r"""Wrong answer keys found from the answers of models already evaluated on the benchmark.

The model (chosen by measurement on MMLU-Redux v1, ``benchmarks/mcq_detect_bench.py``):
Dawid–Skene (1979) "one-coin" latent-class model over each question's true option
:math:`z_i`, with the **key as one more annotator** whose accuracy :math:`q_g` is shared
by the questions of one group (subject), and the models' evidence **tempered** by the
design effect of their correlated errors.

* Model :math:`j` answers the true option with probability :math:`p_j`, any other of the
  question's :math:`K_i` options with :math:`(1 - p_j) / (K_i - 1)`. A soft answer
  :math:`\pi_{ijo}` (a model's distribution over the options, from log-likelihoods)
  contributes its expected log-likelihood, so a one-hot answer is the classical term:

  .. math:: \ell_{ik} = \sum_j \big[\pi_{ijk} \log p_j
            + (1 - \pi_{ijk}) \log \tfrac{1 - p_j}{K_i - 1}\big].

* The key :math:`k_i` is right with probability :math:`q_{g(i)}`, else names any other
  option uniformly.
* Models trained on the same web fail on the same questions, so their :math:`J` votes are
  worth fewer independent ones. The log-likelihood is multiplied by
  :math:`\tau = 1 / (1 + (J - 1)\bar\rho)` (Kish's design effect; :math:`\bar\rho` the mean
  pairwise Pearson correlation of the models' agreement with the key, clipped at 0): a
  composite likelihood with :math:`J\tau` effective models. Untempered (:math:`\tau = 1`),
  14 models that share a misconception overwhelm any prior, and the key's per-subject
  reliability — where the errors cluster — is lost.

EM: the E-step gives :math:`P(z_i = k) \propto \exp(\tau \ell_{ik}) \cdot
P(k_i \mid z_i = k)` over the question's options (uniform prior); the M-step sets
:math:`p_j` (Laplace-smoothed) and :math:`q_g` (shrunk to the pooled
:math:`\bar q` with the weight of :data:`GROUP_PRIOR` questions).

Per question: ``error_score`` :math:`= 1 - P(z_i = k_i)`; ``proposed`` the most probable
other option, ``support`` its probability; ``kind``: ``ok`` when ``error_score`` is below
the threshold; else ``wrong_key`` when one other option is more likely right than not,
``ambiguous`` when the key and one other option hold at least :data:`SPLIT_MASS` together
(several correct, or unclear), ``no_correct`` when the mass is spread wider.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchcheck.data.mcq import letter

__all__ = [
    "DEFAULT_THRESHOLD",
    "GROUP_PRIOR",
    "KINDS",
    "SPLIT_MASS",
    "McqAnswerFlags",
    "answer_flags",
    "design_effect_temper",
]

KINDS = ("ok", "wrong_key", "ambiguous", "no_correct")
#: Flag where P(key wrong) reaches this.
DEFAULT_THRESHOLD = 0.5
#: Questions' worth of pooled key accuracy each group's accuracy is shrunk towards.
GROUP_PRIOR = 10.0
#: Key + best other option holding this much posterior mass: ``ambiguous``.
SPLIT_MASS = 0.8
_EPS = 1e-6


def design_effect_temper(correct: np.ndarray, valid: np.ndarray) -> tuple[float, float]:
    r"""Return :math:`(\tau, \bar\rho)`: Kish's design effect over the models' agreement.

    ``correct`` (n × J) is each model's agreement with the key (0/1, or the probability it
    gives the key), ``valid`` where it answered. :math:`\bar\rho` is the mean of the
    pairwise Pearson correlations (each pair over the questions both answered; a constant
    column has none), clipped at 0; :math:`\tau = 1 / (1 + (J - 1)\bar\rho)`.

    >>> c = np.array([[1, 1], [0, 0], [1, 1], [0, 1.0]])
    >>> tau, rho = design_effect_temper(c, np.ones_like(c, dtype=bool))
    >>> round(rho, 4), round(tau, 4)  # r = 1/sqrt(3)
    (0.5774, 0.634)
    """
    n_models = correct.shape[1]
    if n_models < 2:
        return 1.0, 0.0
    rs = []
    for a in range(n_models):
        for b in range(a + 1, n_models):
            both = valid[:, a] & valid[:, b]
            x, y = correct[both, a], correct[both, b]
            if both.sum() > 2 and x.std() > 0 and y.std() > 0:
                rs.append(float(np.corrcoef(x, y)[0, 1]))
    rho = max(float(np.mean(rs)), 0.0) if rs else 0.0
    return 1.0 / (1.0 + (n_models - 1) * rho), rho


@dataclass(frozen=True)
class McqAnswerFlags:
    """Per question: P(key wrong), the proposed answer and its support, the kind.

    ``posterior`` (n × K) is P(true option) over each question's options (0 past its last);
    ``model_accuracy`` the fitted :math:`p_j`; ``group_key_accuracy`` :math:`q_g` by group.
    """

    ids: tuple[str, ...]
    key: np.ndarray
    error_score: np.ndarray
    proposed: np.ndarray
    support: np.ndarray
    kind: tuple[str, ...]
    posterior: np.ndarray
    models: tuple[str, ...]
    model_accuracy: np.ndarray
    groups: tuple[str, ...]
    group_key_accuracy: np.ndarray
    temper: float
    model_correlation: float
    threshold: float
    iterations: int

    @property
    def flagged(self) -> np.ndarray:
        """The questions whose kind is not ``ok``."""
        return np.array([k != "ok" for k in self.kind], dtype=bool)

    def rows(self) -> list[dict[str, object]]:
        """One JSON object per question, in the data's order."""
        return [
            {
                "id": self.ids[i],
                "key": letter(int(self.key[i])),
                "error_score": float(self.error_score[i]),
                "proposed_answer": letter(int(self.proposed[i])),
                "support": float(self.support[i]),
                "kind": self.kind[i],
            }
            for i in range(len(self.ids))
        ]

    def to_json(self) -> dict[str, object]:
        """Return the model's fit, the counts by kind and every question's row."""
        return {
            "model": "dawid_skene_one_coin_key_annotator_tempered",
            "threshold": self.threshold,
            "temper": self.temper,
            "effective_models": self.temper * len(self.models),
            "model_correlation": self.model_correlation,
            "iterations": self.iterations,
            "models": dict(zip(self.models, map(float, self.model_accuracy), strict=True)),
            "group_key_accuracy": dict(
                zip(self.groups, map(float, self.group_key_accuracy), strict=True)
            ),
            "counts": {k: self.kind.count(k) for k in KINDS},
            "expected_wrong_keys": float(self.error_score.sum()),
            "items": self.rows(),
        }


def _kinds(
    post: np.ndarray, key: np.ndarray, proposed: np.ndarray, threshold: float
) -> tuple[str, ...]:
    rows = np.arange(len(key))
    p_key, p_other = post[rows, key], post[rows, proposed]
    out = []
    for pk, po in zip(p_key, p_other, strict=True):
        if 1.0 - pk < threshold:
            out.append("ok")
        elif po >= 0.5:
            out.append("wrong_key")
        elif pk + po >= SPLIT_MASS:
            out.append("ambiguous")
        else:
            out.append("no_correct")
    return tuple(out)


def answer_flags(
    ids: Sequence[str],
    key: np.ndarray,
    n_options: np.ndarray,
    answers: np.ndarray,
    models: Sequence[str],
    *,
    groups: Sequence[str | None] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    temper: float | None = None,
    group_prior: float = GROUP_PRIOR,
    max_iter: int = 200,
    tol: float = 1e-7,
) -> McqAnswerFlags:
    """Fit the model (module docstring) and score every question.

    ``answers`` is (n × J × K): each model's distribution over each question's options
    (one-hot for a plain answer; all zeros where the model gave none). ``temper=None``
    uses the design effect (:func:`design_effect_temper`); ``groups=None`` one group.

    >>> ans = np.zeros((3, 3, 2)); ans[:, :, 0] = 1; ans[2, :, :] = [[0, 1]] * 3
    >>> out = answer_flags(["a", "b", "c"], np.array([0, 0, 0]), np.array([2, 2, 2]), ans,
    ...                    ["m1", "m2", "m3"], temper=1.0)
    >>> out.kind, out.proposed[2].item()
    (('ok', 'ok', 'wrong_key'), 1)
    """
    n, n_models, k_max = answers.shape
    key = np.asarray(key, dtype=np.int64)
    n_options = np.asarray(n_options, dtype=np.int64)
    rows = np.arange(n)
    opt = np.arange(k_max)[None, :] < n_options[:, None]
    valid = answers.sum(2) > 0
    g_names, g_index = np.unique(
        np.array(["" if g is None else str(g) for g in (groups or [None] * n)]),
        return_inverse=True,
    )
    n_groups = len(g_names)
    g_size = np.bincount(g_index, minlength=n_groups).astype(float)
    if temper is None:
        temper, rho = design_effect_temper(answers[rows, :, key], valid)
    else:
        rho = float("nan")
    others = np.maximum(n_options - 1, 1).astype(float)[:, None]  # (n, 1)
    p = np.full(n_models, 0.7)
    q = np.full(n_groups, 0.9)
    post = np.zeros((n, k_max))
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is reported
        lp = np.log(np.clip(p, _EPS, 1 - _EPS))  # (J,)
        lq = np.log(np.clip((1 - p), _EPS, 1))[None, :] - np.log(others)  # (n, J)
        # ℓ_ik = Σ_j valid_ij [π_ijk log p_j + (1 − π_ijk) log((1 − p_j)/(K_i − 1))]
        ll = np.einsum("ijk,j->ik", answers, lp) + np.einsum(
            "ij,ijk->ik", lq * valid, 1.0 - answers
        )
        ll *= temper
        qi = np.clip(q[g_index], _EPS, 1 - _EPS)
        key_ll = np.log((1 - qi) / others[:, 0])[:, None] * np.ones((1, k_max))
        key_ll[rows, key] = np.log(qi)
        logit = np.where(opt, ll + key_ll, -np.inf)
        logit -= logit.max(1, keepdims=True)
        new = np.exp(logit)
        new /= new.sum(1, keepdims=True)
        change = float(np.abs(new - post).max())
        post = new
        hit = np.einsum("ik,ijk->ij", post, answers) * valid
        p = (hit.sum(0) + 1.0) / (valid.sum(0) + 2.0)
        p_key = post[rows, key]
        q_bar = float(p_key.mean())
        q = (np.bincount(g_index, weights=p_key, minlength=n_groups) + group_prior * q_bar) / (
            g_size + group_prior
        )
        if change < tol:
            break
    masked = np.where(opt, post, -1.0)
    masked[rows, key] = -1.0
    proposed = masked.argmax(1)
    error = 1.0 - post[rows, key]
    return McqAnswerFlags(
        ids=tuple(ids),
        key=key,
        error_score=error,
        proposed=proposed,
        support=post[rows, proposed],
        kind=_kinds(post, key, proposed, threshold),
        posterior=post,
        models=tuple(models),
        model_accuracy=p,
        groups=tuple(str(g) for g in g_names),
        group_key_accuracy=q,
        temper=float(temper),
        model_correlation=rho,
        threshold=threshold,
        iterations=it,
    )
