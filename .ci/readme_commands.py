"""Print the README's first two commands (the first fenced ``sh`` block), one per line."""

import pathlib
import re

text = pathlib.Path("README.md").read_text(encoding="utf-8")
block = re.search(r"```sh\n(.*?)```", text, re.S)
if block is None:
    raise SystemExit("README.md has no ```sh block")
lines = [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
if len(lines) != 2:
    raise SystemExit(f"README's first sh block must hold exactly two commands, has {len(lines)}")
print("\n".join(lines))
