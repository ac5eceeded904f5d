"""searchgrade.book.sphinxext: the book's tables and figures stay unnumbered whatever another extension sets.

(Not test_sphinxext.py: tests/test_sphinxext.py holds the hook's other tests, and two test modules of one
basename cannot be collected side by side.)
"""
from types import SimpleNamespace

from searchgrade.book import sphinxext


class FakeApp:
    """Records what setup registers."""

    def __init__(self):
        self.values, self.hooks = {}, []

    def add_config_value(self, name, default, rebuild):
        self.values[name] = default

    def connect(self, event, fn, priority=500):
        self.hooks.append((event, fn, priority))

    def add_css_file(self, *args, **kwargs):
        pass


def test_numfig_follows_the_book_setting_after_another_extension_forces_it():
    config = SimpleNamespace(numfig=True, searchgrade_numfig=False)   # as sphinx-jupyterbook-latex leaves it
    sphinxext.keep_numfig(None, config)
    assert config.numfig is False
    config = SimpleNamespace(numfig=False, searchgrade_numfig=True)
    sphinxext.keep_numfig(None, config)
    assert config.numfig is True


def test_the_hook_runs_late_and_defaults_to_no_numbers():
    app = FakeApp()
    sphinxext.setup(app)
    assert app.values["searchgrade_numfig"] is False
    (priority,) = [p for event, fn, p in app.hooks if fn is sphinxext.keep_numfig]
    assert priority > 500          # after sphinx-jupyterbook-latex's config-inited hook (default 500)
