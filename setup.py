"""Build step: ship the built-in rule programs in compiled form (analyzer/engine/shipped.py)
and the grammars' Lark tables (analyzer/core/larkcache.py), by analyzer/dev/ship.py.

Everything else about the package is declared in pyproject.toml; this file only adds the
step that, after the package is copied into the build tree, compiles the shipped rules from
that copy (so the wheel holds ``analyzer/_data/compiled/*.program``).
"""

import os
import subprocess
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithCompiledRules(build_py):
    """build_py, then compile the shipped rule programs of the copied package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the source tree: the program cache serves it
        build_lib = Path(self.build_lib).resolve()
        # Prepend, never replace: pip's isolated build reaches its build requirements
        # (lark, networkx) through PYTHONPATH, and the compiler needs them.
        inherited = os.environ.get("PYTHONPATH", "")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(build_lib), inherited) if p))
        env.pop("PYTHONHOME", None)
        subprocess.run([sys.executable, "-m", "analyzer.dev.ship"], cwd=str(build_lib), env=env, check=True)


setup(cmdclass={"build_py": BuildWithCompiledRules})
