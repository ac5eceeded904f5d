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
