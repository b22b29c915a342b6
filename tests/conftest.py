"""One rule for tests that need an optional extra: where the extra's package is not installed, the test is skipped
with the extra's name, wherever in the test the import happens; where it is installed, any import error fails."""

from __future__ import annotations

import importlib.util

import pytest

from gin_env.optional import EXTRAS


def _missing_extra(error: BaseException) -> str | None:
    """The package of an optional extra that ``error`` says is missing, if it is truly not installed here."""
    if not isinstance(error, ModuleNotFoundError):
        return None
    top = (error.name or "").partition(".")[0]
    if top not in EXTRAS or importlib.util.find_spec(top) is not None:
        return None
    return top


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if call.excinfo is None or report.outcome != "failed":
        return
    missing = _missing_extra(call.excinfo.value)
    if missing is not None:
        report.outcome = "skipped"
        path, line, _ = item.location
        report.longrepr = (path, (line or 0) + 1,
                           f"Skipped: needs {missing}: pip install 'gin-env[{EXTRAS[missing]}]'")
