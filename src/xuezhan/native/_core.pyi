from collections.abc import Sequence
from typing import Any

RULE_WORDS: int

def play(
    seeds: Sequence[int], first_dealer: int, chain: bool, rules: Sequence[int], bots: Sequence[int], records: bool
) -> list[tuple[Any, ...]]: ...
def mt_random(seed: int, count: int) -> list[float]: ...
