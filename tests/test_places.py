"""searchgrade.places: where the raw data and the caches are, and whether the model hub may be reached."""
from __future__ import annotations

from pathlib import Path

import pytest

from searchgrade import places

PKG = Path(__file__).resolve().parents[1] / "src" / "searchgrade"


@pytest.mark.parametrize("value, offline", [(None, True), ("1", True), ("yes", True), ("0", False),
                                            ("false", False), (" No ", False), ("", False)])
def test_hub_offline_unless_asked_for(monkeypatch, value, offline):
    if value is None:
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    else:
        monkeypatch.setenv("HF_HUB_OFFLINE", value)
    assert places.hub_offline() is offline


def test_the_offline_default_keeps_what_the_caller_set(monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "0")
    places.set_hub_offline_by_default()
    import os

    assert os.environ["HF_HUB_OFFLINE"] == "1" and os.environ["TRANSFORMERS_OFFLINE"] == "0"
    assert places.hub_offline()


def test_only_places_reads_the_hub_setting():
    """The rule "is the hub offline" is written once: no other module reads HF_HUB_OFFLINE itself."""
    readers = sorted(p.relative_to(PKG).as_posix() for p in PKG.rglob("*.py")
                     if 'environ.get("HF_HUB_OFFLINE"' in p.read_text(encoding="utf-8")
                     or "os.environ.setdefault(\"HF_HUB_OFFLINE\"" in p.read_text(encoding="utf-8"))
    assert readers == ["places.py"]


def test_data_and_cache_roots_follow_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("SEARCHGRADE_CACHE", raising=False)
    monkeypatch.setenv("SEARCHGRADE_DATA", str(tmp_path / "raw"))
    assert places.data_root() == tmp_path / "raw" and places.data_root(tmp_path / "x") == tmp_path / "x"
    assert places.cache_root() == tmp_path / "cache"  # beside the raw data
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "c"))
    assert places.cache_root() == tmp_path / "c"


def test_user_cache_sets_the_cache_only_while_it_lasts(monkeypatch, tmp_path):
    monkeypatch.delenv("SEARCHGRADE_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with places.user_cache() as folder:
        assert folder == tmp_path / "searchgrade" == places.cache_root()
    import os

    assert "SEARCHGRADE_CACHE" not in os.environ
    monkeypatch.setenv("SEARCHGRADE_CACHE", str(tmp_path / "mine"))
    with places.user_cache() as folder:
        assert folder == tmp_path / "mine"
