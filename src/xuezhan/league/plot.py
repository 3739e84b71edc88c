"""``xuezhan league --plot``: the ratings and the pairs' confidence intervals (matplotlib, ``xuezhan[plot]``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import XuezhanError
from ..extras import optional
from ..ids import ErrorCode
from .league import LeagueResult


def plot_league(result: LeagueResult, path: Path) -> None:
    """Draw ``result`` into ``path`` (PNG): ratings on the left, each pair's mean difference
    with its 95 % interval on the right."""
    optional("matplotlib", "--plot needs matplotlib", "plot").use("Agg")
    plt = optional("matplotlib.pyplot", "--plot needs matplotlib", "plot")
    fig: Any
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    names = list(result.bots)
    left.barh(names, [result.ratings[n] - 1500 for n in names], left=1500, color="#4c72b0")
    left.axvline(1500, color="grey", linewidth=0.8)
    left.set_xlabel("rating (Bradley-Terry, Elo scale)")
    left.set_title(f"ratings, {result.deals} deals")
    labels = [f"{p.a} − {p.b}" for p in result.pairs]
    means = [p.ci.mean for p in result.pairs]
    errs = [[p.ci.mean - p.ci.low for p in result.pairs], [p.ci.high - p.ci.mean for p in result.pairs]]
    ys = list(range(len(labels)))
    right.errorbar(means, ys, xerr=errs, fmt="o", color="#c44e52", capsize=4)
    right.set_yticks(ys, labels)
    right.axvline(0, color="grey", linewidth=0.8)
    right.set_xlabel("points per hand, A − B (95 % CI, deal as unit)")
    right.set_title("pairs, duplicate ABAB/BABA")
    fig.tight_layout()
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise XuezhanError(ErrorCode.UNWRITABLE, f"cannot write {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)


__all__ = ["plot_league"]
