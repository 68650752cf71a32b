"""``python -m analyzer`` runs the CLI."""

import sys

from analyzer.cli import main

sys.exit(main())
