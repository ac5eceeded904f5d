import numpy as np

from searchgrade.book import plain


def test_plain_converts_numpy_scalars():
    assert type(plain(np.float64(0.5))) is float
    assert type(plain(np.int64(3))) is int
    assert type(plain(np.array(2.5))) is float
    assert plain("text") == "text"
    assert plain([1, 2]) == [1, 2]
    arr = np.array([1.0, 2.0])
    assert plain(arr) is arr


def test_single_relevant_ranking():
    import pytest

    import searchgrade as sg
    from searchgrade.book import single_relevant_ranking

    docs, judged = single_relevant_ranking(3, n=10)
    assert len(docs) == 10 and judged == {docs[2]: 1}
    assert sg.score_ranking(docs, judged, ["nDCG@10"])["nDCG@10"] == pytest.approx(0.5)
    for bad in (0, 21):
        with pytest.raises(ValueError, match="rank must be in 1..20"):
            single_relevant_ranking(bad, n=20)
