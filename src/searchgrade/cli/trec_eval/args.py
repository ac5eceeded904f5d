"""trec_eval's command line as its getopt_long reads it: options, their values, the two files."""
from __future__ import annotations

from ...measures.names import LONG_MAX

__all__ = ["UsageError", "parse_args", "USAGE", "TREC_EVAL_VERSION"]


class UsageError(ValueError):
    """A bad command line."""


# trec_eval's getopt_long options: short letter -> (long name, takes a value); "unsupported" ones are refused
_OPTIONS = {"h": ("help", False), "v": ("version", False), "q": ("query_eval_wanted", False),
            "m": ("measure", True), "c": ("complete_rel_info_wanted", False), "l": ("level_for_rel", True),
            "n": ("nosummary", False), "D": ("Debug_level", True), "J": ("Judged_docs_only", False),
            "N": ("Number_docs_in_coll", True), "M": ("Max_retrieved_per_topic", True),
            "R": ("Rel_info_format", True), "T": ("Results_format", True), "o": ("Output_old_results_format", False),
            "Z": ("Zscore", True)}
_UNSUPPORTED = {"D": "debug output; --stream_info says on standard error how the run is read",
                "R": "other qrels formats (prefs, qrels_jg)", "T": "other results formats", "Z": "z-scores"}
# searchgrade's own options: long only, and no prefix of a trec_eval option's name (``--v`` stays --version)
_OWN = {"stream_info": ("stream_info", False)}


def _long_option(text: str) -> str:
    """The option letter of ``--name`` or an unambiguous prefix of it (getopt_long's rule); searchgrade's own
    options are their names."""
    options = {**_OPTIONS, **_OWN}
    exact = [c for c, (name, _) in options.items() if name == text]
    found = exact or [c for c, (name, _) in options.items() if name.startswith(text)]
    if len(found) != 1:
        raise UsageError(f"{'ambiguous' if found else 'unknown'} option --{text}")
    return found[0]


def _options(argv: list[str]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """getopt_long's reading of argv: (option letter, value) pairs and the other arguments, options anywhere.

    Short options combine (``-qc``, ``-qmmap``), a value follows its letter or comes next (``-M5``,
    ``-M 5``); long options are ``--measure=P.10``, ``--measure P.10`` or a unique prefix (``--meas``).
    """
    args, opts, files = list(argv), [], []
    while args:
        a = args.pop(0)
        if a == "--":
            files.extend(args)
            break
        if not a.startswith("-") or a == "-":
            files.append(a)
            continue
        if a.startswith("--"):
            name, eq, value = a[2:].partition("=")
            letter = _long_option(name)
            long_name, takes = {**_OPTIONS, **_OWN}[letter]
            if takes and not eq:
                if not args:
                    raise UsageError(f"option --{long_name} needs a value")
                value = args.pop(0)
            elif not takes and eq:
                raise UsageError(f"option --{long_name} takes no value")
            opts.append((letter, value if takes else None))
            continue
        i = 1
        while i < len(a):
            letter = a[i]
            if letter not in _OPTIONS:
                raise UsageError(f"unknown option -{letter}")
            if not _OPTIONS[letter][1]:
                opts.append((letter, None))
                i += 1
                continue
            value = a[i + 1:]
            if not value:
                if not args:
                    raise UsageError(f"option -{letter} needs a value")
                value = args.pop(0)
            opts.append((letter, value))
            break
    return opts, files


def _positive(letter: str, text: str) -> int:
    """The integer value of -l, -M or -N (at least 1)."""
    try:
        value = int(text)
    except ValueError:
        raise UsageError(f"option -{letter} needs an integer, not {text!r}") from None
    if value < 1:
        raise UsageError(f"option -{letter} must be at least 1, not {value}")
    return min(value, LONG_MAX)  # atol saturates at LONG_MAX


def parse_args(argv: list[str]) -> dict:
    """trec_eval's command line: ``-q -c -n -J -o``, ``-M N``, ``-l L``, ``-N N``, ``-m X`` (long forms too), and
    searchgrade's ``--stream_info``."""
    o = {"measures": [], "query": False, "complete": False, "max_docs": None, "rel_level": 1,
         "judged_only": False, "summary": True, "n_docs": None, "help": False, "version": False,
         "stream_info": False}
    pairs, files = _options(argv)
    for letter, value in pairs:
        if letter in _UNSUPPORTED:
            raise UsageError(f"option -{letter} ({_UNSUPPORTED[letter]}) is not supported")
        if letter in _OWN:
            o[letter] = True
        elif letter == "m":
            o["measures"].append(value)
        elif letter in "lMN":
            o[{"l": "rel_level", "M": "max_docs", "N": "n_docs"}[letter]] = _positive(letter, value)
        elif letter != "o":  # -o: obsolete in trec_eval 10.0 too, and without effect
            key = {"q": "query", "c": "complete", "n": "summary", "J": "judged_only", "h": "help", "v": "version"}
            o[key[letter]] = letter != "n"
    if o["help"] or o["version"]:
        return o
    if len(files) != 2:
        raise UsageError("expected two files: QRELS RUN")
    o["qrels_path"], o["run_path"] = files
    if not o["measures"]:
        o["measures"] = ["official"]
    return o


class _Usage:
    """trec_eval's usage line, naming the command as the user typed it (``searchgrade trec_eval``,
    ``searchgrade-trec-eval``, ``python -m searchgrade.trec_eval``): read when it is printed."""

    ARGS = ("[-h] [-v] [-q] [-c] [-n] [-J] [-o] [-M N] [-l L] [-N N] [-m MEASURE[.params]]... "
            "[--stream_info] QRELS RUN")

    def __str__(self) -> str:
        from ..main import typed_command

        return f"usage: {typed_command('trec_eval')} {self.ARGS}"

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


USAGE = _Usage()
TREC_EVAL_VERSION = "10.0-rc3"  # the trec_eval whose output is reproduced
