"""Korean tokenisers for BM25: eojeol (whitespace), character bigrams, Kiwi morphemes, MeCab-ko morphemes.

Each tokeniser is a callable ``text -> list[str]`` with a stable ``name``
(the key in :data:`TOKENISERS`) and a ``batch(texts, progress=...)`` method
that tokenises a list with a tqdm progress bar. All of them lowercase Latin
letters, so ``"BM25"`` and ``"bm25"`` meet.

``ko-ws``
    Eojeol (어절): maximal runs of letters and digits, so a space or a
    punctuation mark ends a token: ``"시위를 주도한 혐의로"`` -> 시위를, 주도한,
    혐의로. Particles stay glued to their nouns, which is why this is the
    weakest Korean analyser.
``ko-bigram``
    Character bigrams *inside each eojeol* (the CJK bigram scheme of Lucene's
    ``CJKBigramFilter``): a Hangul or Han run of two or more characters gives
    its overlapping bigrams, a single character stays a unigram, and a run of
    Latin letters or digits stays one token: ``"e커머스를"`` -> e, 커머, 머스, 스를.
    Bigrams do not cross spaces, so no token spans two words.
``ko-kiwi``
    Content morphemes from Kiwi (kiwipiepy). Kept tags: common and proper
    nouns (NNG, NNP), numerals (NR), verb and adjective stems (VV*, VA*:
    ``"먹었다"`` -> 먹), roots (XR), foreign words, numbers and Hanja (SL, SN,
    SH). Dropped: particles (J*), endings (E*), affixes (X* other than XR),
    dependent nouns (NNB), pronouns (NP), auxiliaries (VX), copulas (VCP,
    VCN), adverbs and determiners (MAG, MAJ, MM), interjections and symbols.
    Adjacent SL/SN pieces with no gap between them are joined again
    (Kiwi splits ``"B2B"`` into B, 2, B; we keep ``b2b``).
``ko-mecab``
    The same tag filter over MeCab-ko (python-mecab-ko with mecab-ko-dic). An
    inflected form that MeCab tags as one unit (``"된"`` = 되/VV + ᆫ/ETM) is
    expanded through its analysis, so the stem 되 is kept as Kiwi keeps it.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from .optional import require

__all__ = [
    "TOKENISERS",
    "Tokeniser",
    "get_tokeniser",
    "whitespace",
    "bigrams",
    "KiwiTokeniser",
    "MecabTokeniser",
    "CONTENT_TAGS",
    "keep_tag",
    "tokenise_all",
]

_WORD = re.compile(r"[^\W_]+")
_CJK = "\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_SCRIPT_RUN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")
_CJK_RUN = re.compile(rf"[{_CJK}]+")

#: Part-of-speech tags (Sejong tag set, as used by Kiwi and mecab-ko-dic) kept as content morphemes;
#: verb and adjective tags are matched by prefix (Kiwi writes VV-R, VA-I, ... for regular/irregular stems).
CONTENT_TAGS = frozenset({"NNG", "NNP", "NR", "XR", "SL", "SN", "SH"})
_CONTENT_PREFIXES = ("VV", "VA")


def keep_tag(tag: str) -> bool:
    """True for a content-morpheme tag: NNG, NNP, NR, XR, SL, SN, SH, or any VV*/VA* tag."""
    return tag in CONTENT_TAGS or tag.startswith(_CONTENT_PREFIXES)


class Tokeniser:
    """A named ``text -> list[str]`` callable with batch tokenisation."""

    name: str = ""
    description: str = ""

    def __call__(self, text: str) -> list[str]:
        """Tokens of one text."""
        raise NotImplementedError

    def settings(self) -> dict:
        """What identifies this tokeniser's output (name and library versions), for cache keys."""
        return {"name": self.name}

    def batch(self, texts: Sequence[str], progress: bool = True, desc: str | None = None) -> list[list[str]]:
        """Tokens of each text, with a tqdm progress bar."""
        from tqdm.auto import tqdm

        return [self(t) for t in tqdm(texts, desc=desc or self.name, disable=not progress, leave=False)]

    def __repr__(self) -> str:
        """The tokeniser's name."""
        return f"<tokeniser {self.name}>"


class _FunctionTokeniser(Tokeniser):
    """A tokeniser made from a plain function."""

    def __init__(self, name: str, fn: Callable[[str], list[str]], description: str):
        self.name, self._fn, self.description = name, fn, description
        self.__doc__ = fn.__doc__

    def __call__(self, text: str) -> list[str]:
        """Tokens of one text."""
        return self._fn(text)


def _whitespace(text: str) -> list[str]:
    """Eojeol tokens: lowercased runs of letters and digits (``'시위를 주도한?'`` -> 시위를, 주도한)."""
    return _WORD.findall(text.lower())


def _bigrams(text: str) -> list[str]:
    """Character bigrams of each Hangul/Han run inside an eojeol; single characters and Latin/digit runs kept whole."""
    out: list[str] = []
    for run in _SCRIPT_RUN.findall(text.lower()):
        if len(run) >= 2 and _CJK_RUN.fullmatch(run):
            out.extend(run[i:i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return out


whitespace = _FunctionTokeniser("ko-ws", _whitespace, "eojeol: runs of letters and digits, lowercased")
bigrams = _FunctionTokeniser("ko-bigram", _bigrams, "character bigrams inside each eojeol (CJK bigram scheme)")


def _join_alnum(pieces: list[tuple[str, str, int, int]]) -> list[str]:
    """Lowercased forms of kept (form, tag, start, end) pieces, with touching SL/SN pieces joined (B 2 B -> b2b)."""
    out: list[str] = []
    prev_end = -1
    prev_alnum = False
    for form, tag, start, end in pieces:
        alnum = tag in ("SL", "SN")
        if alnum and prev_alnum and start == prev_end and out:
            out[-1] += form.lower()
        else:
            out.append(form.lower())
        prev_end, prev_alnum = end, alnum
    return out


class KiwiTokeniser(Tokeniser):
    """Content morphemes from Kiwi (kiwipiepy); see the module docstring for the tag filter."""

    name = "ko-kiwi"
    description = "Kiwi content morphemes (NNG NNP NR XR SL SN SH VV* VA*)"

    def __init__(self, num_workers: int | None = None):
        self.num_workers = num_workers
        self._kiwi = None

    @property
    def kiwi(self):
        """The Kiwi analyser, loaded on first use (a few seconds)."""
        if self._kiwi is None:
            kiwipiepy = require("kiwipiepy", "ko-kiwi", "kiwipiepy (pip install kiwipiepy)")
            self._kiwi = kiwipiepy.Kiwi(num_workers=self.num_workers if self.num_workers is not None else -1)
        return self._kiwi

    def settings(self) -> dict:
        """Name, kiwipiepy and model versions."""
        from importlib.metadata import version

        return {"name": self.name, "kiwipiepy": version("kiwipiepy"), "kiwipiepy_model": version("kiwipiepy_model"),
                "tags": sorted(CONTENT_TAGS) + [p + "*" for p in _CONTENT_PREFIXES]}

    @staticmethod
    def _keep(tokens) -> list[str]:
        """Filter Kiwi tokens by tag and join touching alphanumeric pieces."""
        pieces = [(t.form, t.tag, t.start, t.start + t.len) for t in tokens if keep_tag(t.tag)]
        return _join_alnum(pieces)

    def __call__(self, text: str) -> list[str]:
        """Content morphemes of one text."""
        return self._keep(self.kiwi.tokenize(text))

    def batch(self, texts: Sequence[str], progress: bool = True, desc: str | None = None) -> list[list[str]]:
        """Content morphemes of each text; Kiwi analyses the list in its worker threads."""
        from tqdm.auto import tqdm

        texts = list(texts)
        results = self.kiwi.tokenize(iter(texts))
        return [self._keep(tokens) for tokens in tqdm(results, total=len(texts), desc=desc or self.name,
                                                      disable=not progress, leave=False)]


class MecabTokeniser(Tokeniser):
    """Content morphemes from MeCab-ko (python-mecab-ko); inflected units expanded through their analysis."""

    name = "ko-mecab"
    description = "MeCab-ko content morphemes (same tag filter as ko-kiwi)"

    def __init__(self):
        self._mecab = None

    @property
    def mecab(self):
        """The MeCab tagger, loaded on first use."""
        if self._mecab is None:
            mecab = require("mecab", "ko-mecab", "python-mecab-ko (pip install python-mecab-ko)")
            self._mecab = mecab.MeCab()
        return self._mecab

    def settings(self) -> dict:
        """Name, python-mecab-ko and dictionary versions."""
        from importlib.metadata import version

        return {"name": self.name, "python-mecab-ko": version("python-mecab-ko"),
                "python-mecab-ko-dic": version("python-mecab-ko-dic"),
                "tags": sorted(CONTENT_TAGS) + [p + "*" for p in _CONTENT_PREFIXES]}

    def __call__(self, text: str) -> list[str]:
        """Content morphemes of one text."""
        pieces: list[tuple[str, str, int, int]] = []
        for m in self.mecab.parse(text):
            tag = m.feature.pos
            start, end = m.span.start, m.span.end
            if "+" not in tag:
                if keep_tag(tag):
                    pieces.append((m.surface, tag, start, end))
                continue
            expression = m.feature.expression
            if not expression:  # a joined tag without its analysis: judge by the first tag, keep the surface
                if keep_tag(tag.split("+")[0]):
                    pieces.append((m.surface, tag.split("+")[0], start, end))
                continue
            for part in expression.split("+"):
                form, _, rest = part.partition("/")
                ptag = rest.split("/")[0]
                if form and keep_tag(ptag):
                    pieces.append((form, ptag, start, end))
        return _join_alnum(pieces)


TOKENISERS: dict[str, Callable[[], Tokeniser]] = {
    "ko-ws": lambda: whitespace,
    "ko-bigram": lambda: bigrams,
    "ko-kiwi": KiwiTokeniser,
    "ko-mecab": MecabTokeniser,
}
_INSTANCES: dict[str, Tokeniser] = {}


def get_tokeniser(name: str | Tokeniser) -> Tokeniser:
    """The tokeniser registered under ``name`` (one shared instance per name); a Tokeniser is returned unchanged."""
    if isinstance(name, Tokeniser):
        return name
    if name not in TOKENISERS:
        raise ValueError(f"unknown Korean tokeniser {name!r}; known: {', '.join(TOKENISERS)}")
    if name not in _INSTANCES:
        _INSTANCES[name] = TOKENISERS[name]()
    return _INSTANCES[name]


def tokenise_all(texts: Iterable[str], name: str | Tokeniser, progress: bool = True) -> list[list[str]]:
    """Tokenise a list of texts with a named tokeniser (progress bar)."""
    return get_tokeniser(name).batch(list(texts), progress=progress)
