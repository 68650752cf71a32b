"""Exit codes shared by every command (documented in docs/cli.md).

0, 1 and 2 are the protocol's: success, a failed check (or a rejected context pack), and
invalid input or an invalid project. 3 is ours: the tool itself failed (for example an
output that does not match its declared shape) and the result must not be trusted.
"""

OK = 0
FAILED = 1
INVALID = 2
INTERNAL = 3

TABLE = (
    (OK, "success: the command ran and found nothing that fails it"),
    (FAILED, "the command ran and its result fails (findings at error level, strict gate rejected, INCOMPLETE under --strict-routing)"),
    (INVALID, "invalid input: usage error, bad rule program or query, invalid manifest or routing input, conflict status CONFLICT/INVALID in read"),
    (INTERNAL, "internal error: the tool could not produce a trustworthy result (output shape violation, unexpected exception)"),
)
