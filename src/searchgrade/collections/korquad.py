"""KorQuAD 1.0 dev as a retrieval collection: 961 distinct paragraphs, 5,774 questions, one gold paragraph each.

KorQuAD's licence (CC BY-ND 2.0 KR) allows only unchanged redistribution, so the
conversion from the raw JSON happens in memory on every load; nothing is written.
"""
from __future__ import annotations

from pathlib import Path

from ..places import data_root
from .base import Collection, _expect, _PathLike, _read_json, register

__all__ = ["load_korquad", "korquad_docid"]


def korquad_docid(article: int, paragraph: int) -> str:
    """Document id of KorQuAD paragraph ``paragraph`` of article ``article`` (both 0-based): ``korquad-AAA-PP``."""
    return f"korquad-{article:03d}-{paragraph:02d}"


def load_korquad(data_dir: _PathLike | None = None) -> Collection:
    """KorQuAD 1.0 dev as a retrieval collection: 961 distinct paragraphs, 5,774 questions, one gold paragraph each.

    Article ``a`` paragraph ``p`` (0-based positions in the file) is document
    ``korquad-{a:03d}-{p:02d}``. A paragraph whose context is identical to an
    earlier one is not a new document: its questions are judged against the
    first occurrence's id (``meta["duplicates"]`` lists the three such
    paragraphs). Each question id is a query id; its gold paragraph gets grade 1.
    ``meta["answers"]`` holds each question's answer texts, ``meta["answer_starts"]``
    their character offsets in the gold paragraph, ``meta["gold"]`` the
    (article, paragraph) position the question was asked on.
    """
    path = data_root(data_dir) / "korquad" / "KorQuAD_v1.0_dev.json"
    data = _read_json(path)
    _expect(isinstance(data, dict) and isinstance(data.get("data"), list), path,
            "expected an object with a 'data' list of articles (SQuAD format)")
    corpus: dict[str, dict[str, str]] = {}
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    per_question: dict[str, dict] = {"answers": {}, "answer_starts": {}, "gold": {}}
    first_id: dict[str, str] = {}
    duplicates: list[dict] = []
    n_paragraphs = 0
    for a, article in enumerate(data["data"]):
        where = f"data[{a}]"
        _expect(isinstance(article, dict) and isinstance(article.get("paragraphs"), list)
                and isinstance(article.get("title"), str), path, f"{where}: expected 'title' and a 'paragraphs' list")
        for p, par in enumerate(article["paragraphs"]):
            pwhere = f"{where}.paragraphs[{p}]"
            _expect(p < 100, path, f"{pwhere}: more than 100 paragraphs; the id scheme has two digits")
            _expect(isinstance(par, dict) and isinstance(par.get("context"), str) and isinstance(par.get("qas"), list),
                    path, f"{pwhere}: expected 'context' (string) and 'qas' (list)")
            n_paragraphs += 1
            context = par["context"]
            docid = korquad_docid(a, p)
            if context in first_id:
                duplicates.append({"docid": docid, "same_as": first_id[context], "article": a, "paragraph": p,
                                   "questions": len(par["qas"])})
                docid = first_id[context]
            else:
                first_id[context] = docid
                corpus[docid] = {"title": article["title"], "text": context}
            for i, qa in enumerate(par["qas"]):
                qid = _question(path, f"{pwhere}.qas[{i}]", qa, queries)
                queries[qid] = qa["question"]
                qrels[qid] = {docid: 1}
                per_question["answers"][qid] = [ans["text"] for ans in qa["answers"]]
                per_question["answer_starts"][qid] = [ans["answer_start"] for ans in qa["answers"]]
                per_question["gold"][qid] = (a, p)
    counts = {"articles": len(data["data"]), "paragraphs": n_paragraphs, "duplicates": duplicates}
    return Collection("korquad-dev", corpus, queries, qrels, _korquad_meta(path, counts, per_question))


def _question(path: Path, qwhere: str, qa, queries: dict[str, str]) -> str:
    """The id of one question record, once its id, text and answers are checked (a new, whitespace-free id)."""
    _expect(isinstance(qa, dict) and isinstance(qa.get("id"), str) and isinstance(qa.get("question"), str)
            and isinstance(qa.get("answers"), list), path,
            f"{qwhere}: expected 'id', 'question' and 'answers'")
    qid = qa["id"]
    _expect(bool(qid) and not any(ch.isspace() for ch in qid), path,
            f"{qwhere}: question id {qid!r} is empty or contains whitespace")
    _expect(qid not in queries, path, f"{qwhere}: question id {qid} occurs twice")
    _expect(bool(qa["question"].strip()), path, f"{qwhere}: question {qid} is empty")
    _expect(len(qa["answers"]) > 0, path, f"{qwhere}: question {qid} has no answer")
    return qid


def _korquad_meta(path: Path, counts: dict, per_question: dict) -> dict:
    """Source, licence and id scheme of KorQuAD, with the counts and each question's answers and gold position."""
    return {
        "source": "KorQuAD 1.0 dev set (Lim et al. 2019), korquad/korquad.github.io @ 61d7d668, "
                  "dataset/KorQuAD_v1.0_dev.json",
        "licence": "CC BY-ND 2.0 KR: redistributed unchanged with credit; converted in memory at load time, "
                   "never stored in converted form",
        "credit": "KorQuAD, LG CNS",
        "grades": "1 = the paragraph the question was written on (the only judged document per question)",
        "docid_scheme": "korquad-{article:03d}-{paragraph:02d}, 0-based positions in data[]; a repeated context "
                        "maps to its first occurrence",
        **counts,
        **per_question,
        "files": {"dev": str(path)},
    }


register("korquad-dev", load_korquad)
