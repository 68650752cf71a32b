"""``python -m analyzer`` runs the CLI."""

from analyzer.cli import console

console()
