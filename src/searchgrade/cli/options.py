"""What ``searchgrade runs`` and ``searchgrade report`` share, declared once: options, the cache note, messages.

Each ``add_*`` function adds one group of options to a command's parser, so that the two commands
name, default and read them alike: the collection (``--collection``, ``--split``, ``--intersect``),
``--queries``, ``--retrievers`` and ``--quiet``. :func:`names` reads a comma-separated option;
:func:`fail` turns bad input into one ``error:`` line and exit status 2. Both commands run inside
:func:`searchgrade.places.user_cache` (:data:`CACHE_HELP` says where that is).
"""
from __future__ import annotations

import argparse
import sys

__all__ = ["CACHE_HELP", "BAD_INPUT", "add_collection", "add_queries", "add_retrievers", "add_quiet", "names",
           "say_dropped", "fail", "one_line"]

CACHE_HELP = ("{what} cached in $SEARCHGRADE_CACHE if set, else in $XDG_CACHE_HOME/searchgrade (default "
              "~/.cache/searchgrade); delete the folder to free the space.")
"""The commands' epilog on their cache folder; ``{what}`` names what the command caches there."""

BAD_INPUT = (ValueError, FileNotFoundError, NotADirectoryError, IsADirectoryError, RuntimeError, ImportError)
"""The errors that mean bad input (a file, a collection, an option, a missing extra): one ``error:`` line, status 2.

:class:`searchgrade.io.FormatError` and the line-up's errors are ValueErrors."""


def add_collection(parser: argparse.ArgumentParser, note: str) -> None:
    """``--collection`` (``note`` ends its help), ``--split`` and ``--intersect``: what ``load_collection`` reads."""
    parser.add_argument("--collection", default=None, help=f"a collection name, beir:<folder> or a BEIR folder{note}")
    parser.add_argument("--split", default=None, help="qrels split of a BEIR folder (default: test)")
    parser.add_argument("--intersect", action="store_true",
                        help="a BEIR folder whose qrels name queries or documents it lacks is refused; with this, "
                             "those judgments are dropped (and said) and the common queries are used (give it to "
                             "`searchgrade runs` and `searchgrade report` of one folder alike)")


def add_queries(parser: argparse.ArgumentParser, what: str) -> None:
    """``--queries FILE.jsonl``: another set of the collection's queries (``what``: the command's use of it)."""
    parser.add_argument("--queries", default=None, metavar="FILE.jsonl", help=what)


def add_retrievers(parser: argparse.ArgumentParser, what: str) -> None:
    """``--retrievers``: comma-separated run names (``what``: which ones, and the default)."""
    parser.add_argument("--retrievers", default=None, help=f"comma-separated {what}")


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress bars."""
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def names(text: str | None, option: str) -> list[str] | None:
    """A comma-separated option as a list (None when not given); one that names nothing is refused."""
    if text is None:
        return None
    found = [t.strip() for t in text.split(",") if t.strip()]
    if not found:
        raise ValueError(f"{option} {text!r} names nothing: give comma-separated names, or leave the option out")
    return found


def say_dropped(coll) -> None:
    """Print what ``--intersect`` dropped from the qrels as a ``note:`` line (nothing when nothing was)."""
    from ..collections.resolve import dropped_note

    note = dropped_note(coll)
    if note:
        print(f"note: {note}", file=sys.stderr)


def one_line(err: BaseException) -> str:
    """An exception as one line (a KeyError's message without its quotes)."""
    text = err.args[0] if isinstance(err, KeyError) and err.args else str(err)
    return " ".join(str(text).split())


def fail(err: BaseException) -> int:
    """Print ``error: <the problem>`` on one line to standard error; the exit status of bad input, 2."""
    print(f"error: {one_line(err)}", file=sys.stderr)
    return 2
