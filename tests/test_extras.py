"""The one way the package asks for an optional part: the module, or ``missing_extra`` with its pip line."""

from __future__ import annotations

import builtins
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from xuezhan.errors import XuezhanError
from xuezhan.extras import optional
from xuezhan.ids import ErrorCode
from xuezhan.league.league import run_league
from xuezhan.league.plot import plot_league
from xuezhan.rl.dataset import make_dataset
from xuezhan.scale import map_shards, shards


def test_an_installed_module_is_returned_dotted_names_too() -> None:
    assert optional("json", "x needs json", "none") is json
    decoder = optional("json.decoder", "x needs json", "none")
    assert decoder is json.decoder


def test_a_missing_module_is_missing_extra_with_the_pip_line() -> None:
    with pytest.raises(XuezhanError) as info:
        optional("xuezhan_no_such_module", "the thing needs it", "thing")
    assert info.value.code == ErrorCode.MISSING_EXTRA
    assert str(info.value) == "the thing needs it: pip install 'xuezhan[thing]'"


@pytest.mark.usefixtures("no_numpy")
def test_an_import_that_fails_as_on_an_install_without_the_extra() -> None:
    with pytest.raises(XuezhanError) as info:
        optional("numpy", "the learned bot needs numpy", "rl")
    assert info.value.code == ErrorCode.MISSING_EXTRA
    assert "pip install 'xuezhan[rl]'" in str(info.value)


def _block(monkeypatch: pytest.MonkeyPatch, blocked: str) -> None:
    real = builtins.__import__

    def without(name: str, *args: object, **kwargs: object) -> object:
        if name == blocked or name.startswith(blocked + "."):
            raise ImportError(f"no {blocked}")
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", without)


def test_each_extra_is_asked_for_by_its_entry_point(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    result = run_league(["random", "heuristic"], 1, seed=1)
    cases: list[tuple[str, str, Callable[[], object]]] = [
        ("matplotlib", "plot", lambda: plot_league(result, tmp_path / "p.png")),
        ("pyarrow", "dataset", lambda: make_dataset(tmp_path / "d", 1, ["random"] * 4)),
        ("ray", "ray", lambda: map_shards(str, shards(2, 1), workers=1, backend="ray")),
    ]
    for module, extra, call in cases:
        with monkeypatch.context() as m:
            _block(m, module)
            with pytest.raises(XuezhanError) as info:
                call()
        assert info.value.code == ErrorCode.MISSING_EXTRA, module
        assert f"pip install 'xuezhan[{extra}]'" in str(info.value)
    assert not (tmp_path / "p.png").exists() and not (tmp_path / "d").exists()
