"""Which rules decided a log: the rules version and the extensions' content hashes.

An event log is replayed through the rules, so the same lines under other
rules can give another state.  The header of every log the engine writes
records ``rules`` (this package's version plus a short hash of the shipped
Prolog rule files, the runtime semantics) and each extension rule file
(name and sha256); ``Engine.load`` refuses a replay under different ones.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from importlib import metadata, resources
from pathlib import Path

RULES_PACKAGE = "grounded.prolog"
HASH_CHARS = 12
RULES_DIR_VARIABLE = "GROUNDED_RULES_DIR"
"""Names another copy of the rules (grounded.solvers.prolog.rules_dir): ``rules_version`` covers the shipped ones."""


def package_version() -> str:
    """The installed distribution's version (from its metadata, the single source)."""
    try:
        return metadata.version("grounded")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "0+unknown"


@lru_cache(maxsize=1)
def rules_version() -> str:
    """``<package version>+rules.<hash>``: the hash covers every shipped ``.pl`` file, by path and content."""
    root = Path(str(resources.files(RULES_PACKAGE)))
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.pl")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return f"{package_version()}+rules.{digest.hexdigest()[:HASH_CHARS]}"


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def twin_of(path: str | Path) -> Path | None:
    """The ASP twin of an extension rule file (``op.lp`` beside ``op.pl``), if there is one."""
    twin = Path(path).with_suffix(".lp")
    return twin if twin.is_file() else None


def twin_sha256(path: str | Path) -> str | None:
    """The sha256 of the ASP twin of an extension rule file (None without a twin)."""
    twin = twin_of(path)
    return None if twin is None else file_sha256(twin)


_OPERATION = re.compile(r"^operation\(\s*([a-z]\w*)\s*,", re.M)


def asp_twins(extensions) -> tuple[list[str], set[str]]:
    """The ASP twin of each extension rule file (``rules.lp`` beside ``rules.pl``), and the
    operations declared (``operation/3``) in the rule files that have none."""
    twins, twinless = [], set()
    for p in map(Path, extensions):
        twin = twin_of(p)
        if twin is not None:
            twins.append(str(twin))
        else:
            twinless.update(_OPERATION.findall(p.read_text(encoding="utf-8")))
    return twins, twinless
