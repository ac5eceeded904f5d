"""ndeval 4.5's command line, read as ndeval reads it: options first, then exactly QRELS and RUN."""
from __future__ import annotations

import math
from dataclasses import dataclass

from ...io.cnumbers import scan_double, scan_int

__all__ = ["Options", "UsageError", "parse_args", "USAGE", "NDEVAL_VERSION", "HELP_FLAGS"]

USAGE = "Usage: {prog} [options] qrels run   (-help for full usage information)"
NDEVAL_VERSION = "version 4.5 (Mon 29 Apr 2013 20:51:02 EDT)"
HELP_FLAGS = ("-help", "--help", "-h")  # ndeval knows -help (it prints nothing); -h and --help as other commands
VERSION_FLAGS = ("-version", "--version")


class UsageError(ValueError):
    """A bad command line."""


@dataclass
class Options:
    """What the command line asks for."""

    qrels: str = ""
    run: str = ""
    alpha: float = 0.5
    beta: float = 0.5
    traditional: bool = False
    complete: bool = False  # -c: average over every qrels topic
    depth: int | None = None  # -M
    baseline: str | None = None
    risk_alpha: float = 0.0
    risk_alpha_text: str = "0"  # printed verbatim in the risk-sensitive run id
    help: bool = False
    version: bool = False


def _number(option: str, text: str, low: float, high: float = math.inf) -> float:
    """A number option's value, as ndeval's sscanf("%lf") reads it (a hexadecimal float, ``1.5x`` as 1.5, ``inf``);
    UsageError when it reads none (ndeval would keep the default), NaN or a value out of range."""
    value = scan_double(text)
    if value is None:
        raise UsageError(f"{option} {text!r}: not a number")
    if math.isnan(value):  # ndeval's range check lets NaN through; every value it then touches is nan
        raise UsageError(f"{option} {text}: not a number (ndeval reads NaN and prints nan for every value it "
                         "touches)")
    if not low <= value <= high:
        raise UsageError(f"{option} {text}: must be " + (f"between {low:g} and {high:g}" if high < math.inf
                                                          else f"at least {low:g}"))
    return value


def parse_args(argv: list[str]) -> Options:
    """Options of an ndeval command line (ndeval's loop: options are read until two arguments are left)."""
    opts, args = Options(), list(argv)
    while len(args) != 2 or args[0] in HELP_FLAGS + VERSION_FLAGS:
        first = args[0] if args else ""
        if first in HELP_FLAGS + VERSION_FLAGS:  # also before two arguments: --help FILE asks for help
            setattr(opts, "help" if first in HELP_FLAGS else "version", True)
            return opts
        if len(args) >= 4 and first in ("-alpha", "-beta", "-M", "-baseline", "-riskAlpha"):
            _valued(opts, first, args[1])
            del args[:2]
        elif len(args) >= 3 and first == "-traditional":
            opts.traditional = True
            del args[0]
        elif len(args) >= 3 and first.startswith("-"):
            for letter in first[1:]:  # -c (average over all qrels topics); -a (all measures) is accepted
                if letter not in "ca":
                    raise UsageError(f"unknown option {first!r}")
                opts.complete = opts.complete or letter == "c"
            del args[0]
        else:
            raise UsageError("expected [options] qrels run" + (f"; cannot read {first!r}" if first else ""))
    opts.qrels, opts.run = args
    return opts


def _valued(opts: Options, option: str, text: str) -> None:
    """Set one option that takes a value."""
    if option == "-alpha":
        opts.alpha = _number(option, text, 0.0, 1.0) + 0.0  # -0 is 0
    elif option == "-beta":
        opts.beta = _number(option, text, 0.0, 1.0) + 0.0
    elif option == "-M":
        depth = scan_int(text)  # sscanf("%d"): 2147483648 wraps to a negative int, which ndeval refuses
        if depth is None or depth <= 0:
            raise UsageError(f"-M {text!r}: the depth must be a whole number of at least 1")
        opts.depth = depth
    elif option == "-baseline":
        opts.baseline = text
    else:
        opts.risk_alpha = _number(option, text, 0.0)
        opts.risk_alpha_text = text
