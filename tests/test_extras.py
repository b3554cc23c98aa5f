"""The extras users are told to install exist, and the README starts with both paths (issue 33).

Every ``require(module, "extra")`` in the package, every ``benchcheck[...]`` / ``.[...]``
named in the README and ``docs/``, and every extra of ``docs/install.md``'s table is an
extra of ``pyproject.toml``; the README's first lines give the CI path (its first ``sh``
block, two commands) and then the user path (``pip install .``).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
    "optional-dependencies"
]


def _named_in(text: str) -> set[str]:
    found = set()
    for group in re.findall(r"(?:benchcheck|[.])\[([a-z0-9_,-]+)\]", text):
        found.update(group.split(","))
    return found


def test_every_required_extra_exists() -> None:
    required = set()
    for path in (ROOT / "src" / "benchcheck").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        required.update(re.findall(r"require\(\s*\"[\w.]+\",\s*\"([\w-]+)\"\s*\)", text))
    assert {"judge", "ner"} <= required  # the two the audit names when they are missing
    assert required - {"dev"} <= set(EXTRAS), required - set(EXTRAS)


def test_every_extra_the_docs_name_exists() -> None:
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        named = _named_in(path.read_text(encoding="utf-8"))
        assert named <= set(EXTRAS), (path.name, named - set(EXTRAS))


def test_install_table_covers_every_extra() -> None:
    text = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (`[^|]+) \|", text, re.M)
    listed = {name for row in rows for name in re.findall(r"`([a-z0-9-]+)`", row)}
    assert listed == set(EXTRAS), listed ^ set(EXTRAS)


def test_the_old_names_still_install_the_same() -> None:
    assert EXTRAS["tagger"] == EXTRAS["ner"]
    assert set(EXTRAS["llama"]) < set(EXTRAS["judge"])
    assert EXTRAS["all"] == ["benchcheck[judge,ner,hf,neardup,irt,openai]"]


def test_readme_gives_the_ci_path_then_the_user_path() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    ci = [ln for ln in blocks[0].splitlines() if ln.strip()]
    assert ci == ["./scripts/setup.sh && benchcheck audit -o report/", "python -m pytest -q"]
    user = [ln.split("#")[0].strip() for ln in blocks[1].splitlines() if ln.strip()]
    assert user[:2] == ["pip install .", "benchcheck audit -o report/"]
    assert text.index(blocks[1]) < 2_000  # in the README's first lines, before any section
    assert text.index(blocks[1]) < text.index("\n## ")
