"""Options shared by every test suite."""


def pytest_addoption(parser):
    """``--update-golden`` rewrites golden files from current behaviour (review the diff!)."""
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*/*/{stdout,exit} from the current output")
