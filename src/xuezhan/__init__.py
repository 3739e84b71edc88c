"""xuezhan: Sichuan blood-battle mahjong (四川麻将 血战到底)."""

__version__ = "0.4.0"
