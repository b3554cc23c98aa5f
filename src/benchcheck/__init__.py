"""benchcheck: audit NLP datasets and benchmarks before you trust them."""

from benchcheck.data import Dataset, Split
from benchcheck.errors import BenchcheckError, InputError, JudgeError, JudgeUnavailable

__version__ = "0.1.0"

__all__ = [
    "BenchcheckError",
    "Dataset",
    "InputError",
    "JudgeError",
    "JudgeUnavailable",
    "Split",
    "__version__",
]
