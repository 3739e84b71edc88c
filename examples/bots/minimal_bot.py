"""A minimal outside bot for xuezhan: JSON lines on stdin, one answer per request on stdout.

    xuezhan simulate --games 100 --bots "cmd:python examples/bots/minimal_bot.py",heuristic --json
"""

import json
import sys


def choose(view, legal):
    """Win when possible; otherwise discard a tile of the suit I hold fewest of; otherwise pass."""
    for action in legal:
        if action["type"] == "hu":
            return action
    discards = [a for a in legal if a["type"] == "discard"]
    if discards:
        hand = view["hand"]  # e.g. "1258m46p779s": my concealed tiles
        suit_size = {suit: sum(ch.isdigit() for ch in part) for part, suit in split_suits(hand)}
        return min(discards, key=lambda a: (suit_size.get(a["tile"][1], 0), a["tile"]))
    return next((a for a in legal if a["type"] == "pass"), legal[0])


def split_suits(hand):
    part = ""
    for ch in hand:
        if ch.isdigit():
            part += ch
        else:
            yield part, ch
            part = ""


for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "request":
        print(json.dumps({"action": choose(message["view"], message["legal"])}), flush=True)
