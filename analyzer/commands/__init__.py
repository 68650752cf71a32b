"""One module per CLI command. Each defines ``add_arguments(parser)`` and ``run(args) -> int``.

Command modules import only argparse-level things at module import time; heavy imports
(engine, grammars, networkx) happen inside ``run`` so that ``analyze read`` starts fast.
"""
