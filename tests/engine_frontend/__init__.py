"""Engine front-end tests (package so helpers import relatively)."""
