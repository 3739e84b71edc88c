"""Learn the heuristic bot's discards from a dataset and report top-1 accuracy.

    pip install 'xuezhan[train]'
    xuezhan dataset --games 2000 --bots heuristic --out data/heuristic
    python examples/train_imitation.py data/heuristic --out heuristic-imitation.pt
    xuezhan simulate --games 500 --bots policy:heuristic-imitation.pt,heuristic,heuristic,heuristic --json

The rows of the dataset where a ``heuristic`` seat had a choice are the examples (its
discards above all, and its wins, claims and void choices, so that the learnt policy can
play a whole hand); the hands are split into training and held-out hands (no hand in
both), a small network (:func:`xuezhan.bots.policy.build_policy`) learns to score the action
the heuristic took highest among the legal ones, and the top-1 accuracy on the held-out
discards is printed (JSON with ``--json``), beside that of always discarding the lowest
legal tile. The network is saved as a policy file that sits at a table as the bot
``policy:FILE``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from xuezhan.bots.policy import build_policy, save_policy
from xuezhan.encoding import OBS_SIZE
from xuezhan.engine.actions import GANG_BASE
from xuezhan.rl.dataset import read_dataset


def load_decisions(folder: Path, bot: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks, actions and record ids of the decisions ``bot`` took with a choice."""
    table = read_dataset(folder)
    df = table.select(["record_id", "bot", "action", "legal_count"]).to_pandas()
    keep = ((df["bot"] == bot) & (df["legal_count"] > 1)).to_numpy()
    obs = np.asarray(table.column("observation").combine_chunks().flatten()).reshape(-1, OBS_SIZE)[keep]
    width = table.schema.field("action_mask").type.list_size
    masks = np.asarray(table.column("action_mask").combine_chunks().flatten()).reshape(-1, width)[keep]
    return obs, masks, df["action"].to_numpy()[keep], df["record_id"].to_numpy()[keep]


def top1(model: torch.nn.Module, obs: torch.Tensor, masks: torch.Tensor, actions: torch.Tensor) -> float:
    with torch.no_grad():
        scores = model(obs).masked_fill(masks == 0, float("-inf"))
        return float((scores.argmax(dim=1) == actions).float().mean())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="a folder written by `xuezhan dataset`")
    parser.add_argument("--bot", default="heuristic", help="whose discards to learn (default: heuristic)")
    parser.add_argument("--out", type=Path, default=Path("imitation.pt"), help="the policy file to write")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--holdout", type=float, default=0.2, help="share of the hands held out for testing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    obs, masks, actions, ids = load_decisions(args.dataset, args.bot)
    if len(actions) == 0:
        print(f"no decisions of {args.bot!r} in {args.dataset}", file=sys.stderr)
        return 2
    hands = np.unique(ids)
    rng = np.random.default_rng(args.seed)
    held = set(rng.choice(hands, size=max(1, int(len(hands) * args.holdout)), replace=False))
    test = np.fromiter((i in held for i in ids), dtype=bool, count=len(ids))
    train = ~test
    if not train.any():
        print("too few hands to hold some out", file=sys.stderr)
        return 2

    def tensors(sel: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return (torch.from_numpy(obs[sel]), torch.from_numpy(masks[sel].astype(np.int64)),
                torch.from_numpy(actions[sel].astype(np.int64)))

    x, m, y = tensors(train)
    xt, mt, yt = tensors(test & (actions < GANG_BASE))  # the held-out discards
    if len(yt) == 0:
        print("no held-out discards", file=sys.stderr)
        return 2
    scale = x.abs().amax(dim=0).clamp(min=1.0)  # points and counts on one scale
    model = torch.nn.Sequential(Scale(scale), build_policy(args.hidden))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    start = time.perf_counter()
    for _ in range(args.epochs):
        model.train()
        order = torch.randperm(len(y))
        for k in range(0, len(y), args.batch):
            b = order[k : k + args.batch]
            scores = model(x[b]).masked_fill(m[b] == 0, float("-inf"))
            loss = torch.nn.functional.cross_entropy(scores, y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
    model.eval()
    result = {
        "examples": len(y), "held_out_discards": len(yt), "hands": len(hands), "epochs": args.epochs,
        "train_top1": top1(model, x, m, y), "discard_top1": top1(model, xt, mt, yt),
        "lowest_tile_top1": float((mt.argmax(dim=1) == yt).float().mean()),
        "seconds": time.perf_counter() - start, "policy": str(args.out),
    }
    save_policy(fold(model, args.hidden), args.out, args.hidden)
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{result['examples']} decisions of {args.bot} learnt in {result['seconds']:.1f} s; "
              f"top-1 accuracy on {result['held_out_discards']} held-out discards: {result['discard_top1']:.1%} "
              f"(the lowest legal tile: {result['lowest_tile_top1']:.1%}); policy written to {args.out}")
    return 0


class Scale(torch.nn.Module):
    """Divides each observation value by its largest magnitude in the training data."""

    def __init__(self, scale: torch.Tensor) -> None:
        super().__init__()
        self.register_buffer("scale", scale)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / self.scale


def fold(model: torch.nn.Sequential, hidden: list[int]) -> torch.nn.Module:
    """The network with the input scaling folded into its first layer (a plain policy file)."""
    scale, net = model[0], model[1]
    plain = build_policy(hidden)
    plain.load_state_dict(net.state_dict())
    with torch.no_grad():
        plain[0].weight.div_(scale.scale)
    return plain


if __name__ == "__main__":
    sys.exit(main())
