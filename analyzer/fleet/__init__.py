"""``analyze fleet``: the check rules evaluated once over many repositories (docs/fleet.md).

- :mod:`analyzer.fleet.repos`: which repositories a fleet holds (a directory of checkouts or
  a file listing paths).
- :mod:`analyzer.fleet.check`: per repository extraction (native, cached), one evaluation of
  rules/check/check.dl in SQL over all of them, and each repository's ``check.result``.
- :mod:`analyzer.fleet.report`: the fleet report (Markdown, JSON).
"""
