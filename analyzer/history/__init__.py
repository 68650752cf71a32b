"""Everything Git: revisions as facts, windows of commits, hunks, unit digests, narrowing
a diff to what changed, the commit cache, work-tree blobs and the comparisons of
revisions. Imports core, engine and project.
"""
