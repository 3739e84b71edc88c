"""The league's statistics: paired confidence intervals with the deal as the unit, and
Bradley-Terry ratings fitted to the pairs' results (standard library only)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# two-sided 95 % quantiles of Student's t for 1..29 degrees of freedom; the normal one from 30 on
_T95: tuple[float, ...] = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
)
_Z95 = 1.959964


def t95(df: int) -> float:
    """The two-sided 95 % quantile of Student's t with ``df`` degrees of freedom (normal from 30 on)."""
    if df < 1:
        raise ValueError("a confidence interval needs at least two values")
    return _T95[df - 1] if df < 30 else _Z95


@dataclass(frozen=True, slots=True)
class PairedCI:
    """The mean of per-deal differences and its 95 % confidence interval."""

    n: int
    mean: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def paired_ci(diffs: Sequence[float]) -> PairedCI:
    """Mean and 95 % CI (Student's t) of ``diffs``, one value per deal. One deal: no interval
    (``low == high == mean``)."""
    n = len(diffs)
    if n == 0:
        raise ValueError("no deals")
    mean = math.fsum(diffs) / n
    if n == 1:
        return PairedCI(1, mean, mean, mean)
    var = math.fsum((d - mean) ** 2 for d in diffs) / (n - 1)
    half = t95(n - 1) * math.sqrt(var / n)
    return PairedCI(n, mean, mean - half, mean + half)


def bradley_terry(names: Sequence[str], scores: Mapping[tuple[str, str], tuple[float, int]],
                  *, prior: float = 1.0, iterations: int = 500) -> dict[str, float]:
    """Elo-scale ratings (mean 1500, 400 points = 10:1 odds) of a Bradley-Terry model fitted to
    pairwise results. ``scores[(a, b)] = (wins of a, games)`` with ties counted as half a win.
    Each pair also gets ``prior`` virtual games split evenly, so that a bot that wins every
    game still gets a finite rating. Fitted by the MM algorithm (Hunter 2004): deterministic."""
    if len(names) < 2:
        return dict.fromkeys(names, 1500.0)
    wins = dict.fromkeys(names, 0.0)
    games: dict[tuple[str, str], float] = {}
    for (a, b), (w, n) in scores.items():
        wins[a] += w + prior / 2
        wins[b] += n - w + prior / 2
        games[(a, b)] = games.get((a, b), 0.0) + n + prior
    strength = dict.fromkeys(names, 1.0)
    for _ in range(iterations):
        new = {}
        for i in names:
            denom = 0.0
            for (a, b), g in games.items():
                if i in (a, b):
                    denom += g / (strength[a] + strength[b])
            new[i] = wins[i] / denom if denom > 0 else strength[i]
        geo = math.exp(math.fsum(math.log(v) for v in new.values()) / len(new))
        new = {k: v / geo for k, v in new.items()}
        done = max(abs(new[k] - strength[k]) for k in names) < 1e-12
        strength = new
        if done:
            break
    return {k: 1500.0 + 400.0 * math.log10(v) for k, v in strength.items()}


__all__ = ["PairedCI", "bradley_terry", "paired_ci", "t95"]
