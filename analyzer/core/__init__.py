"""The bottom layer: source positions, diagnostics, exit codes, numbers, the data
directories, the rule-set fingerprint, the verified on-disk cache, cached Lark tables,
the console streams and hints. It imports nothing else of ours.
"""
