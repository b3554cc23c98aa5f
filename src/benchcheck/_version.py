"""The package version, where every layer (the command line's ``version`` too) can read it."""

__version__ = "0.1.0"
