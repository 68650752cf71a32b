"""A project tree to facts: which project (root, config), reading its files safely, the
Markdown layer, one extractor per file kind (extract/), the fact base and its loader.
Imports core and engine only.
"""
