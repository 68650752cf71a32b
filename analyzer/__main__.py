"""``python -m analyzer`` runs the CLI."""

from analyzer.commands.cli import console

console()
