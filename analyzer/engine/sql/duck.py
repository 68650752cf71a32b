"""Evaluate a checked program in DuckDB over the facts of many repositories at once.

Strata run in the native engine's order (analyzer/engine/stratify.py). A stratum's tables
are created from their declarations; a non-recursive stratum is one ``INSERT`` of the union
of its rules' ``SELECT``s per relation; a recursive one runs semi-naively to a fixpoint:
each round evaluates every rule once per body atom of the stratum with that atom reading
only the previous round's new tuples (``__d_<rel>``), keeps what is not already known, and
stops when a round finds nothing new. Graph helpers (transitive closure, cycles, components)
are built once their relation is complete, before the first stratum that reads them.
"""

from __future__ import annotations

import os
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import analyzer.engine.ast as ast
from analyzer.engine.database import sorted_tuples
from analyzer.engine.errors import EngineError
from analyzer.engine.limits import MAX_SYMBOL_LENGTH
from analyzer.engine.sql import emit
from analyzer.engine.sql.tables import REPO, arrow_schema, arrow_table, columns, create_sql, quote
from analyzer.engine.sql.functions import register_duckdb
from analyzer.engine.limits import reached

FAILED = "DL941"
#: Tuples buffered before they are inserted (:meth:`DuckRun.load_stream`): about 200
#: 1,000-entry repositories (15,000 tuples each), about 200 MB of Arrow buffers: a group of
#: the fleet (:meth:`DuckRun.group_size`) in one ``INSERT`` per relation. Inserting 500,000
#: at a time cost 7.3 ms of CPU a repository, once a group 4.3 ms (100 x 1,000, one thread)
FLUSH_ROWS = 3_000_000


def connect(memory_limit: Optional[str] = None, threads: Optional[int] = None, spill: Optional[str] = None):
    """A DuckDB connection with the builtins registered (analyzer/engine/sql/functions.py).
    Beyond ``memory_limit`` DuckDB offloads intermediate results of a statement to the
    directory ``spill`` (the caller's private temporary directory; the tables themselves stay
    in memory); without one it offloads nothing (its default, ``.tmp`` in the working
    directory, could be inside a project the analyzer must not write to)."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET temp_directory = ?", [spill or ""])
    if memory_limit:
        con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute(f"SET threads = {int(threads or idle_cores())}")
    con.execute("SET preserve_insertion_order = false")
    # an in-memory database still checkpoints (compresses) its tables once about 16 MiB were
    # appended: 0.2-0.4 s inside single inserts, 0.4 s of the 1.1 s that loading 100
    # 1,000-entry repositories took; the tables are dropped long before compression pays
    con.execute("SET checkpoint_threshold = '1TB'")
    # a statement running over 2 s drew DuckDB's progress bar on standard output, into the
    # command's output (`fleet query --format json` of a large fleet)
    con.execute("SET enable_progress_bar = false")
    register_duckdb(con)
    return con


def idle_cores() -> int:
    """DuckDB's threads when not given: the cores no other process is using (at least one).
    On a machine whose load average is at its core count, a second thread only waits for a
    core and synchronizes: 100 x 1,000 evaluated in 4.0-4.5 s of CPU with one thread against
    5.4-5.5 s with two, and in less wall time (docs/performance.md)."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # no load average on this platform
        return cores
    return max(1, min(cores, int(cores - load + 0.5)))


class DuckRun:
    """One program evaluated over one fleet's facts (repositories numbered 0..n-1)."""

    LATERAL_UDFS = True  # see emit.Context.lateral
    LATERAL_AGGREGATES = False  # see emit.Context.lateral_aggregates
    ANTI_JOINS = True  # see emit.Context.anti_joins
    #: Repositories a fleet evaluates together (analyzer/commands/fleet_check.py), each group
    #: while the next ones are still extracted; None: the whole fleet at once. A group pays
    #: the program's fixed cost (about 0.6 s of CPU, most of it planning) once; with 50 the
    #: last group's evaluation, the part that waits for the last repository, is about 1.7 s
    #: of CPU instead of the whole fleet's (docs/fleet.md). The smallest group: see
    #: :meth:`group_size`
    GROUP: Optional[int] = 50
    #: The largest group. Per repository a group of 50 1,000-entry repositories costs about
    #: 29 ms of CPU (the fixed cost shared), of 100 about 23, of 200 about 21, of 400 about
    #: 22 (larger joins): past about 200 a larger group saves nothing
    GROUP_MAX: int = 200
    #: A group also ends with the repository whose facts bring it to this many tuples (about
    #: 200 1,000-entry repositories, a group of :data:`FLUSH_ROWS`): a fleet of larger
    #: repositories holds no more tables at once than one of 1,000-entry ones (200
    #: 10,000-entry repositories would be about 3.4 GB, beyond a 4 GB --memory-limit's room)
    GROUP_ROWS: int = FLUSH_ROWS

    @classmethod
    def group_size(cls, evaluated: int) -> Optional[int]:
        """How many repositories the next group takes once ``evaluated`` were (None: every
        one left): as many as were evaluated, between :data:`GROUP` and :data:`GROUP_MAX`.
        A group grows with the fleet because what waits for the last repository is the last
        group's evaluation beside the workers building the earlier groups' results (queued
        behind every extraction), which grows with the repositories evaluated before it: a
        fleet of 1,000 pays the fixed cost 7 times instead of 20, one of 100 twice as before."""
        if not cls.GROUP:
            return None
        return max(cls.GROUP, min(cls.GROUP_MAX, evaluated))

    def __init__(self, engine, con=None):
        self.engine = engine
        self.decls: Dict[str, ast.Decl] = engine.program.decls
        self.con = con if con is not None else connect()
        self.tables: set = set()
        self._open: set = set()  # relations of strata not evaluated yet (:meth:`evaluate`)
        # the tables that may hold tuples (loaded, or inserted into): a table made by the run
        # and not in here holds none, so a rule joining it derives nothing (:meth:`_derives`)
        self.filled: set = set()
        self._rows: Dict[str, Dict[int, set]] = {}
        self._window: Optional[Tuple[int, int]] = None
        self.numbers: List[int] = []  # the repositories loaded, in order

    # -- input -------------------------------------------------------------------------
    def load(self, fleet: Sequence[Mapping[str, Iterable[tuple]]]) -> None:
        """Load every repository's facts (``fleet[i]`` is repository i's relation -> tuples)."""
        self.load_stream((i, arrow_tables(self.decls, i, facts)) for i, facts in enumerate(fleet))

    def load_stream(self, repositories: Iterable[Tuple[int, Mapping[str, object]]],
                    flush_rows: Optional[int] = None) -> None:
        """Load repositories one after the other: ``(number, {relation: Arrow table})`` pairs
        (the tables' ``repo`` column is ``number``, no tuple twice: :func:`arrow_tables`).
        Tables are buffered and inserted about ``flush_rows`` tuples at a time: each
        repository's facts can be dropped once given, and the statements do not grow with
        the repositories."""
        flush_rows = FLUSH_ROWS if flush_rows is None else flush_rows
        numbers: List[int] = []
        pending: Dict[str, list] = {}
        buffered = 0
        for number, tables in repositories:
            numbers.append(number)
            for rel, table in tables.items():
                if rel in self.decls and table.num_rows:
                    pending.setdefault(rel, []).append(table)
                    buffered += table.num_rows
            if buffered >= flush_rows:
                self._flush(pending)
                pending, buffered = {}, 0
        self._flush(pending)
        self.numbers = numbers
        self._repos(numbers)

    def use_threads(self, count: int) -> None:
        """Evaluate on ``count`` threads from now on (a fleet's workers may hold the others)."""
        self._sql(f"SET threads = {int(count)}")

    def next_group(self) -> "DuckRun":
        """A new run of the same program on the same connection, every table of this one
        dropped: the next :data:`GROUP` of a fleet's repositories."""
        for name in sorted(self.tables):
            self._drop(name)
        return type(self)(self.engine, self.con)

    def _flush(self, pending: Mapping[str, list]) -> None:
        """Insert the buffered tables, one statement per relation (:func:`arrow_tables` made
        each repository's without duplicates, and repositories differ in ``repo``)."""
        import pyarrow as pa

        for rel in sorted(pending):
            self._create(rel)
            self.con.register("__facts_in", pa.concat_tables(pending[rel]))
            self._insert(rel, "SELECT * FROM __facts_in")
            self.filled.add(rel)
            self.con.unregister("__facts_in")

    def _repos(self, numbers: Sequence[int]) -> None:
        """The table of repository numbers (every repository gets the program's own facts)."""
        import pyarrow as pa

        self.con.register("__repos_in", pa.table({REPO: pa.array(numbers, type=pa.int32())}))
        self._create_as(emit.REPOS, "SELECT * FROM __repos_in")
        self.con.unregister("__repos_in")

    def _create(self, rel: str, name: Optional[str] = None) -> None:
        name = name or rel
        if name not in self.tables:
            self._sql(create_sql(self.decls[rel], name))
            self.tables.add(name)

    # -- table primitives (analyzer/engine/sql/spark.py keeps tables as Spark views instead)
    def _create_as(self, name: str, select: str) -> None:
        """A new table ``name`` holding ``select``."""
        self._sql(f"CREATE TABLE {quote(name)} AS {select}")
        self.tables.add(name)
        self.filled.add(name)

    def _insert(self, name: str, select: str) -> Optional[int]:
        """Append ``select`` to table ``name``; how many tuples that was (None: not known)."""
        return self._sql(f"INSERT INTO {quote(name)} {select}").fetchone()[0]

    def _drop(self, name: str) -> None:
        """Drop table ``name`` if it exists."""
        if name not in self.tables:  # no statement for a table never made (most graph helpers)
            return
        self._sql(f"DROP TABLE IF EXISTS {quote(name)}")
        self.tables.discard(name)
        self.filled.discard(name)

    def _rename(self, name: str, to: str) -> None:
        """Table ``name`` becomes ``to`` (which does not exist)."""
        self._sql(f"ALTER TABLE {quote(name)} RENAME TO {quote(to)}")
        self.tables.discard(name)
        self.tables.add(to)
        if name in self.filled:
            self.filled.discard(name)
            self.filled.add(to)

    def _fetch(self, sql: str) -> list:
        """Every row of query ``sql``."""
        return self._sql(sql).fetchall()

    def _sql(self, sql: str):
        try:
            return self.con.execute(sql)
        except Exception as exc:
            raise engine_error(exc) from None

    # -- evaluation --------------------------------------------------------------------
    def evaluate(self, only: Optional[Iterable[str]] = None, keep: Optional[Iterable[str]] = None) -> "DuckRun":
        """Evaluate the strata ``only`` needs (every stratum when None). With ``keep``, every
        other table is dropped once the last stratum that reads it is done: the tables of a
        large fleet's intermediate relations are not all held at once, and a table no
        statement reads or fills (a relation left empty that only rules skipped for it read:
        :meth:`_derives`) is never made; the tables of ``keep`` are all made."""
        engine = self.engine
        needed = engine.needed(list(only)) if only is not None else set(self.decls)
        self.needed = needed
        self._open = {r for stratum in engine.strata for r in stratum.relations if r in needed}
        for rel in sorted(needed if keep is None else set(keep) & needed):
            if rel in self.decls:
                self._create(rel)
        last = self._last_reads(needed) if keep is not None else {}
        kept = set(keep or ())
        for number, stratum in enumerate(engine.strata):
            rels = [r for r in stratum.relations if r in needed]
            if not rels:
                continue
            self._stratum(rels, stratum)
            self._open.difference_update(rels)
            for rel in sorted(r for r, n in last.items() if n == number and r not in kept):
                self._drop(rel)
                for kind in ("tc", "cyc", "scc"):
                    self._drop(emit.helper_table(kind, rel))
        return self

    def _last_reads(self, needed) -> Dict[str, int]:
        """The number of the last stratum that reads each relation (in a body, negated,
        aggregated, or through a graph builtin; a relation no rule reads: its own stratum)."""
        reads = self.engine.maps()[0]
        last: Dict[str, int] = {}
        for number, stratum in enumerate(self.engine.strata):
            for rel in stratum.relations:
                if rel in needed:
                    for read in set(reads.get(rel, ())) | {rel}:
                        last[read] = number
        return last

    def _stratum(self, rels: List[str], stratum) -> None:
        """Evaluate one stratum's relations ``rels``."""
        engine = self.engine
        rules = [engine.rules[i] for i in stratum.rules if not engine.rules[i].is_fact]
        self._facts(rels)
        if stratum.recursive:
            self._recursive(rels, rules)
        else:
            for rel in rels:
                selects = [self._select(rule) for rule in rules if rule.head.rel == rel and self._derives(rule)]
                if selects and self._insert_new(rel, _union(selects)) != 0 and _builds_symbols(rules, rel):
                    self._bounded(rel)

    def _empty(self, rel: str) -> bool:
        """Whether relation ``rel`` is complete (loaded, or its stratum evaluated) and holds
        no tuples."""
        return rel in self.decls and rel not in self.filled and rel not in self._open

    def _derives(self, rule: ast.Rule, inside=frozenset()) -> bool:
        """False when ``rule`` joins a table known to hold no tuples (a relation atom of its
        body, outside ``inside``: the recursive stratum's own relations, which grow while it
        runs): its ``SELECT`` would find nothing, and need not be planned. Of the 385
        inserts of `check --all`'s program on the 100-repository fleet, 234 insert nothing
        (1.96 s of their 4.46 s of CPU), most of them through an empty relation."""
        return not any(isinstance(lit, ast.Atom) and lit.rel not in self.engine.builtins and lit.rel not in inside
                       and self._empty(lit.rel) for lit in rule.body)

    def _bounded(self, rel: str, table: Optional[str] = None) -> None:
        """DL931 when a symbol of ``rel`` (in ``table``) is longer than the native builtins
        may build: checked per stored column, where the native engine checks per call."""
        decl = self.decls[rel]
        lengths = [f"max(length({quote(n)}))" for n, c in zip(columns(decl), decl.columns) if c.type == ast.SYMBOL]
        if lengths:
            row = self._fetch(f"SELECT {', '.join(lengths)} FROM {quote(table or rel)}")[0]
            if max((v or 0 for v in row), default=0) > MAX_SYMBOL_LENGTH:
                raise EngineError(f"a rule of {rel} built a symbol over the maximum of {MAX_SYMBOL_LENGTH:,} "
                                  f"characters", code="DL931")

    def _facts(self, rels: List[str]) -> None:
        """The program's own facts (``p("a").``), which hold in every repository."""
        for rel in rels:
            rows = [tup for tup, _ in self.engine.facts.get(rel, ())]
            if rows:
                values = ", ".join("(" + ", ".join(emit.literal(v) for v in tup) + ")" for tup in rows) \
                    if self.decls[rel].arity else None
                source = f"{quote(emit.REPOS)} AS r" + (f", (VALUES {values}) AS v" if values else "")
                self._insert_new(rel, f"SELECT DISTINCT r.{REPO}{', v.*' if values else ''} FROM {source}")

    def _select(self, rule: ast.Rule, table=None) -> str:
        def read(atom):  # a table is made when a statement first reads it
            self._create(atom.rel)
            return quote(atom.rel) if table is None else table(atom)

        ctx = emit.Context(self.decls, self.engine.builtins, read,
                           lateral=self.LATERAL_UDFS, lateral_aggregates=self.LATERAL_AGGREGATES,
                           anti_joins=self.ANTI_JOINS, empty=self._empty)
        sql = emit.rule_select(ctx, rule)
        for kind, rel in sorted(ctx.helpers):
            self._helper(kind, rel)
        return sql

    def _insert_new(self, rel: str, select: str, into: Optional[str] = None) -> Optional[int]:
        """Insert the tuples of ``select`` not yet in ``rel`` (into ``into`` when given); how
        many were new (None: not known, in the table ``rel``)."""
        self._create(rel)
        if into is None and rel not in self.filled:
            # an empty table: the union of the rules is already without duplicates
            new = self._insert(rel, select)
        else:
            new = self._insert(into or rel, f"SELECT * FROM ({select}) EXCEPT SELECT * FROM {quote(rel)}")
        if into is not None:
            if new is None:
                new = self._fetch(f"SELECT count(*) FROM {quote(into)}")[0][0]
            if new:
                self.filled.add(into)
        elif new != 0:
            self.filled.add(rel)
        return new

    def _recursive(self, rels: List[str], rules: List[ast.Rule]) -> None:
        inside = set(rels)

        def reads(rule):
            return [lit for lit in rule.body if isinstance(lit, ast.Atom) and lit.rel in inside]

        for rel in rels:
            self._create(rel)
        for rel in rels:
            first = [self._select(r) for r in rules if r.head.rel == rel and not reads(r) and self._derives(r)]
            if first and self._insert_new(rel, _union(first)) != 0:
                self._bounded(rel)
        for rel in rels:
            self._drop("__d_" + rel)
            self._create_as("__d_" + rel, f"SELECT * FROM {quote(rel)}")
        variants = {rel: [] for rel in rels}
        for rule in (r for r in rules if self._derives(r, inside)):
            for target in reads(rule):
                table = (lambda t: lambda atom: quote(("__d_" if atom is t else "") + atom.rel))(target)
                variants[rule.head.rel].append(self._select(rule, table))
        while True:
            new = 0
            for rel in rels:
                self._drop("__n_" + rel)
                self._create(rel, "__n_" + rel)
                if variants[rel]:
                    found = self._insert_new(rel, _union(variants[rel]), "__n_" + rel)
                    if found:
                        new += found
                        self._bounded(rel, "__n_" + rel)
            if not new:
                break
            for rel in rels:
                if self._insert(rel, f"SELECT * FROM {quote('__n_' + rel)}") != 0:
                    self.filled.add(rel)
                self._drop("__d_" + rel)
                self._rename("__n_" + rel, "__d_" + rel)

    def _helper(self, kind: str, rel: str) -> None:
        """Build a graph helper of the complete binary relation ``rel`` (once)."""
        name = emit.helper_table(kind, rel)
        if name in self.tables:
            return
        self._create(rel)
        if kind in ("cyc", "scc"):
            self._helper("tc", rel)
        src, dst = (quote(c) for c in columns(self.decls[rel]))
        tc = quote(emit.helper_table("tc", rel))
        if kind == "tc":
            return self._closure(name, rel, src, dst)
        if kind == "cyc":
            sql = f"SELECT DISTINCT {REPO}, src AS node FROM {tc} WHERE src = dst"
        else:
            nodes = f"SELECT {REPO}, {src} AS node FROM {quote(rel)} UNION SELECT {REPO}, {dst} FROM {quote(rel)}"
            sql = (f"SELECT n.{REPO}, n.node, least(n.node, coalesce((SELECT min(t.dst) FROM {tc} AS t JOIN {tc} AS u "
                   f"ON u.{REPO} = t.{REPO} AND u.src = t.dst AND u.dst = t.src "
                   f"WHERE t.{REPO} = n.{REPO} AND t.src = n.node), n.node)) AS comp FROM ({nodes}) AS n")
        self._create_as(name, sql)

    def _closure(self, name: str, rel: str, src: str, dst: str) -> None:
        """Table ``name`` (repo, src, dst): the transitive closure of ``rel``, as a recursive CTE."""
        self._create_as(name, f"WITH RECURSIVE tc({REPO}, src, dst) AS (SELECT {REPO}, {src}, {dst} FROM {quote(rel)} "
                              f"UNION SELECT tc.{REPO}, tc.src, e.{dst} FROM tc JOIN {quote(rel)} AS e "
                              f"ON e.{REPO} = tc.{REPO} AND e.{src} = tc.dst) SELECT * FROM tc")

    # -- output ------------------------------------------------------------------------
    def rows(self, rel: str) -> Dict[int, set]:
        """Every tuple of ``rel`` grouped by repository number (fetched once; only the
        repositories of the :meth:`window`, when one is set)."""
        if rel not in self._rows:
            if rel not in self.decls:
                raise EngineError(f"undeclared relation {rel!r}", code="DL906")
            if rel not in self.tables:
                raise EngineError(f"relation {rel!r} was not evaluated (not needed by only=)", code="DL906")
            where = "" if self._window is None else f" WHERE {REPO} >= {self._window[0]} AND {REPO} < {self._window[1]}"
            grouped: Dict[int, set] = {}
            # a table known to hold no tuples is not read
            for row in self._fetch(f"SELECT * FROM {quote(rel)}{where}") if rel in self.filled else ():
                grouped.setdefault(row[0], set()).add(row[1:])
            self._rows[rel] = grouped
        return self._rows[rel]

    def window(self, start: int, stop: int) -> None:
        """From now on :meth:`rows` fetches only repositories ``start <= repo < stop`` (and
        forgets what it fetched before): the results of a large fleet are built a window of
        repositories at a time, never every repository's derived tuples at once."""
        self._window = (start, stop)
        self._rows = {}

    def database(self, repo: int) -> "RepoDatabase":
        """What repository ``repo`` derives, read like the native engine's Database."""
        return RepoDatabase(self, repo)


def engine_error(exc: Exception) -> BaseException:
    """An SQL engine's error as one stable code: the engine's own when the SQL raised one
    (``error('DL905 ...')``), else DL941. A limit of the command (``--timeout``) stops the
    engine from inside: its timer signal raises in a Python UDF (DuckDB reports "Python
    exception occurred while executing the UDF"), between two of DuckDB's tasks ("Query
    interrupted") or in py4j's socket read (Spark); that is the limit's DL902, as natively,
    not a failure of the engine. An interruption with no limit reached is Ctrl-C's."""
    limit = reached()
    if limit is not None:
        return limit
    message = str(exc)
    if isinstance(exc, KeyboardInterrupt) or type(exc).__name__ == "InterruptException" or \
            any(message.strip().endswith(said) for said in _INTERRUPTED):
        return KeyboardInterrupt()
    code = next((w[:5] for w in message.replace("'", " ").split() if w[:2] == "DL" and w[2:5].isdigit()), FAILED)
    return EngineError(f"SQL evaluation failed: {message.strip().splitlines()[0] if message.strip() else type(exc).__name__}",
                       code=code)


def _union(selects: List[str]) -> str:
    """The rules' ``SELECT DISTINCT``s as one query: a ``UNION`` removes duplicates once, so
    its branches do not each remove them first."""
    if len(selects) == 1:
        return selects[0]
    prefix = "SELECT DISTINCT "
    return " UNION ".join(f"(SELECT {s[len(prefix):]})" if s.startswith(prefix) else f"({s})" for s in selects)


#: What DuckDB's Python client says when Ctrl-C's KeyboardInterrupt was raised while a
#: statement ran: between two of its tasks, or inside a Python UDF (the message's end).
_INTERRUPTED = ("Query interrupted", "while executing the UDF: KeyboardInterrupt:",
                "while executing the UDF: KeyboardInterrupt")


def _builds_symbols(rules, rel: str) -> bool:
    """Whether a rule of ``rel`` calls a builtin that makes longer symbols than it reads."""
    return any(isinstance(lit, ast.Atom) and lit.rel in ("concat", "concat3", "replace")
               for rule in rules if rule.head.rel == rel for lit in rule.body)


class FetchedRelations:
    """One repository's derived relations read the way the check families read a native
    Database: ``tuples``, ``relation`` (sorted as the engine sorts) and ``evaluated``. The
    base of :class:`RepoDatabase` (a repository of a live run) and :class:`TupleDatabase`
    (a repository's tuples as fetched, sent to the process that builds its result)."""

    def tuples(self, name: str) -> set:
        """Every tuple of relation ``name`` in this repository (unsorted; do not modify)."""
        raise NotImplementedError

    def evaluated(self, name: str) -> bool:
        """Whether ``name`` was evaluated (and can be read)."""
        raise NotImplementedError

    def relation(self, name: str) -> List[tuple]:
        """Every tuple of relation ``name`` in this repository, sorted as the engine sorts."""
        return sorted_tuples(self.tuples(name))


class RepoDatabase(FetchedRelations):
    """One repository's relations of a :class:`DuckRun`."""

    def __init__(self, run: DuckRun, repo: int):
        self.run = run
        self.repo = repo

    def tuples(self, name: str) -> set:
        """Every tuple of relation ``name`` in this repository (unsorted; do not modify)."""
        window = self.run._window
        if window is not None and not window[0] <= self.repo < window[1]:
            raise EngineError(f"repository {self.repo} is outside the fetched window {window}", code="DL906")
        return self.run.rows(name).get(self.repo, set())

    def evaluated(self, name: str) -> bool:
        """Whether ``name`` was evaluated."""
        return name in self.run.tables and name in self.run.decls


class TupleDatabase(FetchedRelations):
    """One repository's derived relations as fetched from the SQL engine (``rows``: relation
    -> tuples); a relation that was not fetched is an error, not an empty answer."""

    def __init__(self, rows: Dict[str, set]) -> None:
        self.rows = rows

    def tuples(self, name: str) -> set:
        """Every tuple of relation ``name`` (unsorted)."""
        if name not in self.rows:
            raise KeyError(f"relation {name!r} was not fetched for the fleet's results")
        return self.rows[name]

    def evaluated(self, name: str) -> bool:
        """Whether ``name`` was evaluated (and fetched)."""
        return name in self.rows


def arrow_tables(decls: Mapping[str, ast.Decl], number: int, facts: Mapping[str, Iterable[tuple]]) -> Dict[str, object]:
    """One repository's facts as Arrow tables (its ``repo`` column ``number``), of the
    declared relations that have tuples, without duplicates: what :meth:`DuckRun.load_stream`
    takes (it inserts them as they are). The same table :func:`~analyzer.engine.sql.tables.arrow_table`
    makes, built faster: the tuples are converted as one struct array (pyarrow reads each
    tuple in C: no transposition in Python), the ``repo`` column is made by numpy, and the
    schemas are made once per declaration (a fleet worker converts ~40 relations of each
    repository: 7.4 -> about 6 ms for a 1,000-entry one)."""
    import numpy
    import pyarrow as pa

    tables = {}
    for rel, rows in facts.items():
        if rel not in decls or not rows:
            continue
        decl = decls[rel]
        rows = rows if isinstance(rows, (set, frozenset)) else set(rows)
        if not decl.arity:
            tables[rel] = arrow_table(decl, [(number, rows)])
            continue
        schema, struct = _arrow_types(decl)
        values = pa.array(list(rows), type=struct)
        repo = pa.array(numpy.full(len(values), number, dtype=numpy.int32))
        tables[rel] = pa.Table.from_arrays([repo, *values.flatten()], schema=schema)
    return tables


def packed_tables(tables: Mapping[str, object]) -> Tuple[object, Dict[str, List[Tuple[int, int]]]]:
    """:func:`arrow_tables`' tables as one Arrow buffer for another process: each table's
    record batches as Arrow IPC messages one after the other, and where each relation's are
    (``relation -> [(offset, size)]``). Without schemas: the reader knows each relation's
    from its declaration (:func:`unpacked_tables`). One stream per relation wrote and read
    a schema each, ~40 per repository: 0.8 ms to write and 0.45 ms to read a 1,000-entry
    repository's, against 0.45 and 0.17."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    spans: Dict[str, List[Tuple[int, int]]] = {}
    for rel, table in tables.items():
        for batch in table.to_batches():
            start = sink.tell()
            sink.write(batch.serialize())
            spans.setdefault(rel, []).append((start, sink.tell() - start))
    return sink.getvalue(), spans


def unpacked_tables(decls: Mapping[str, ast.Decl], data, spans: Mapping[str, List[Tuple[int, int]]]) -> Dict[str, object]:
    """The tables :func:`packed_tables` packed into ``data`` (bytes or an Arrow buffer, read
    in place: the tables share its memory)."""
    import pyarrow as pa

    data = data if isinstance(data, pa.Buffer) else pa.py_buffer(data)
    tables = {}
    for rel, places in spans.items():
        schema = _arrow_types(decls[rel])[0]
        tables[rel] = pa.Table.from_batches(
            [pa.ipc.read_record_batch(data.slice(start, size), schema) for start, size in places], schema)
    return tables


_ARROW_TYPES: Dict[ast.Decl, tuple] = {}


def _arrow_types(decl: ast.Decl) -> tuple:
    """``(schema, struct type of its columns)`` of ``decl``'s table, made once per declaration."""
    found = _ARROW_TYPES.get(decl)
    if found is None:
        import pyarrow as pa

        schema = arrow_schema(decl)
        found = _ARROW_TYPES[decl] = (schema, pa.struct(list(schema)[1:]))
    return found
