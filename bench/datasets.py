"""Where the third-party benchmark data lives, and what to say when it is missing.

Nothing is ever downloaded: the data are third-party releases with their own
licenses, placed by the user in a directory passed with ``--data``.  In a
checkout of the repository the default is ``../shared/data`` beside it (the
team's shared copy).  A missing dataset is an ``InputError`` that says what is
needed, the layout expected, and where it comes from.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grounded.core.errors import InputError

REPO = Path(__file__).resolve().parent.parent
MEMAB_LENGTHS = ("6k", "32k", "64k", "262k")


@dataclass(frozen=True)
class Dataset:
    name: str
    subdir: str
    expected: str
    origin: str

    def missing(self, root: Path, what: str) -> InputError:
        return InputError(
            f"{self.name} data not found: {what}. Expected {self.expected} under {root / self.subdir}. "
            f"{self.origin} Pass the directory holding `{self.subdir}/` with --data; nothing is downloaded."
        )


MEMAB = Dataset(
    "MemoryAgentBench FactConsolidation (MemAB-FC)",
    "memab-fc",
    "the eight files mab_fc_{sh,mh}_{6k,32k,64k,262k}.json (one JSON list each: sessions[i].date is a "
    "fact's serial number, sessions[i].turns[0] its text, probing_queries[qN] = {q, gold})",
    "They are the FactConsolidation split of MemoryAgentBench (Hu et al., ICLR 2026; MIT license), "
    "repackaged from the upstream parquet release.",
)

REVISEQA = Dataset(
    "ReviseQA",
    "reviseqa/verified",
    "the scenario files ex_N.json and ex_N_truncated.json (original_context_fol, conclusion_fol, answer, "
    "edits[] with edited_context_fol and answer)",
    "They are the verified scenarios of the public ReviseQA release (Helwe et al., ICML 2025 workshop; "
    "MIT license).",
)


def default_data_dir() -> Path | None:
    """``../shared/data`` beside a repository checkout, when it exists."""
    if (REPO / "pyproject.toml").is_file():
        candidate = REPO.parent / "shared" / "data"
        if candidate.is_dir():
            return candidate.resolve()
    return None


def resolve_data_dir(data: Path | None, dataset: Dataset) -> Path:
    """The data directory to read ``dataset`` from, or an error saying what is needed."""
    if data is None:
        data = default_data_dir()
        if data is None:
            raise dataset.missing(REPO.parent / "shared" / "data",
                                  "no --data given and no ../shared/data beside the repository")
    if not data.is_dir():
        raise dataset.missing(data, f"{data} is not a directory")
    if not (data / dataset.subdir).is_dir():
        raise dataset.missing(data, f"{data / dataset.subdir} does not exist")
    return data


def memab_file(data: Path, hop: str, length: str) -> Path:
    path = data / MEMAB.subdir / f"mab_fc_{hop}_{length}.json"
    if not path.is_file():
        raise MEMAB.missing(data, f"{path.name} is missing")
    return path


def reviseqa_files(data: Path) -> list[Path]:
    files = sorted((data / REVISEQA.subdir).glob("ex_*.json"), key=_scenario_order)
    if not files:
        raise REVISEQA.missing(data, "no ex_*.json scenario files")
    return files


def _scenario_order(path: Path) -> tuple[int, str]:
    digits = "".join(ch for ch in path.stem.split("_")[1] if ch.isdigit())
    return (int(digits) if digits else 0, path.name)
