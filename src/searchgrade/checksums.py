"""Verify the raw data against its SHA256SUMS file before anything is built from it."""
from __future__ import annotations

import hashlib
import sys
from pathlib import Path


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(root: Path) -> list[str]:
    """Return one message per file under root whose bytes differ from SHA256SUMS (or that is missing)."""
    root = Path(root)
    problems = []
    listed = set()
    sums = root / "SHA256SUMS"
    if not sums.exists():
        return [f"{sums}: missing"]
    for lineno, line in enumerate(sums.read_text().splitlines(), 1):
        if not line.strip():
            continue
        expected, _, name = line.partition("  ")
        name = name.strip()
        if not name or len(expected) != 64:
            problems.append(f"{sums}:{lineno}: malformed line (expected '<sha256>  <path>')")
            continue
        listed.add(Path(name).as_posix().removeprefix("./"))
        path = root / name
        if not path.exists():
            problems.append(f"{sums}:{lineno}: {name} is missing")
        elif sha256(path) != expected:
            problems.append(f"{sums}:{lineno}: {name} does not match its checksum")
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and rel != "SHA256SUMS" and rel not in listed:
            problems.append(f"{path}: not listed in {sums}")
    return problems


def main(argv: list[str] | None = None) -> int:
    """Command line: python -m searchgrade.checksums DIR."""
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0] if argv else "data/raw")
    problems = verify(root)
    for p in problems:
        print(p, file=sys.stderr)
    if not problems:
        print(f"{root}: every file matches SHA256SUMS")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
