"""Scripts here run inside an application's own virtual environment, never under pytest."""

collect_ignore = ["argilla_check.py"]
