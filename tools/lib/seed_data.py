"""The seed threads' result tables, read from tests/data/seeds/*.txt, and a check of
their arithmetic.

Each file holds one thread: a header (subject, author, date, message-id,
machine, notes) and one or more tables, each a row per sweep point with,
per system, its runs, its printed average and any other printed figure,
then the printed ratio column (the format is in tests/data/seeds/README.md).
Numbers are kept as the thread prints them (text) and read as Decimal, so
the check below is exact: check_table() recomputes every average from the
runs and every ratio from the printed averages and reports each figure the
thread printed differently. How the last digit was made is the thread's
habit, stated in its file ("rounding: truncate" for the aim7, netperf and
hackbench scripts, which cut off; "round" for pgbench's percentages); a
figure made the other way is reported too.
"""
import os
import re
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal, getcontext

getcontext().prec = 40

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED_DIR = os.path.join(TOP, "tests", "data", "seeds")
HEADER_KEYS = ("subject", "author", "date", "message-id", "machine", "rounding")
TABLE_KEYS = ("title", "workload", "unit", "better", "systems", "ratio", "knobs")


class SeedFormatError(Exception):
    """A seed file that does not follow the format; the message names file and line."""


@dataclass
class Row:
    point: str  # the sweep value as printed: "16", "unpinned"
    runs: dict  # system key -> [Decimal]; [] when the thread gives one figure only
    avg: dict  # system key -> Decimal (the printed average, or the single figure)
    extra: dict  # "system.name" -> Decimal, other printed figures (hackbench's fluctuation)
    ratio_text: str = None  # the printed ratio as printed, None for '-'

    @property
    def ratio(self):
        """The printed ratio as a number: '.977' -> 0.977, '+11.77%' -> 1.1177."""
        return parse_ratio(self.ratio_text)


@dataclass
class Table:
    name: str
    title: str
    workload: str
    unit: str
    lower_better: bool
    systems: list  # [(key, the thread's name)], in the file's order
    ratio: tuple  # (numerator key, denominator key)
    param: str  # the first column's name: the swept parameter
    rows: list = field(default_factory=list)
    knobs: str = ""

    def row(self, point):
        for r in self.rows:
            if r.point == str(point):
                return r
        raise KeyError(f"{self.name}: no point {point}")

    def label(self, key):
        return dict(self.systems)[key]


@dataclass
class Seed:
    number: str  # "000", "001", ...: the file name's first field
    path: str
    subject: str = ""
    author: str = ""
    date: str = ""
    message_id: str = ""
    machine: str = ""
    rounding: str = ""  # how the thread's last digit is made: "round" (half up) or "truncate"
    notes: list = field(default_factory=list)
    tables: list = field(default_factory=list)

    def table(self, name):
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"seed {self.number}: no table {name}")


@dataclass
class Finding:
    """One printed figure that the recomputation does not reproduce."""
    table: str
    point: str
    column: str  # "wang.avg", "ratio"
    printed: str
    computed: Decimal  # the exact recomputed value
    kind: str  # "truncated" or "rounded" (against the seed's rule) or "differs" (either way)

    def __str__(self):
        why = {"truncated": "truncated, where the thread otherwise rounds",
               "rounded": "rounded, where the thread otherwise truncates"}.get(self.kind, "a different figure")
        return f"{self.table} {self.point} {self.column}: printed {self.printed}, recomputed {self.computed:.6f} ({why})"


def parse_ratio(text):
    """'.977' -> Decimal('0.977'); '+11.77%' -> Decimal('1.1177'); None for None."""
    if text is None:
        return None
    if text.endswith("%"):
        return 1 + Decimal(text[:-1]) / 100
    return Decimal(text)


def _number(text, where):
    try:
        return Decimal(text)
    except ArithmeticError:
        raise SeedFormatError(f"{where}: {text!r} is not a number") from None


def _table_from(name, keys, columns, where):
    for k in ("title", "workload", "unit", "better", "systems", "ratio"):
        if k not in keys:
            raise SeedFormatError(f"{where}: table {name} has no '{k}:' line")
    systems = []
    for word in keys["systems"].split():
        key, eq, label = word.partition("=")
        if not eq or not re.fullmatch(r"[a-z][a-z0-9]*", key):
            raise SeedFormatError(f"{where}: a system is key=name (key in lower case), not {word!r}")
        systems.append((key, label))
    num, slash, den = keys["ratio"].partition("/")
    known = {k for k, _ in systems}
    if not slash or num not in known or den not in known:
        raise SeedFormatError(f"{where}: 'ratio:' is NUM/DEN of the systems' keys, not {keys['ratio']!r}")
    if keys["better"] not in ("higher", "lower"):
        raise SeedFormatError(f"{where}: 'better:' is higher or lower")
    if not columns:
        raise SeedFormatError(f"{where}: table {name} has no 'columns:' line")
    return Table(name, keys["title"], keys["workload"], keys["unit"], keys["better"] == "lower", systems,
                 (num, den), columns[0], knobs=keys.get("knobs", ""))


def _row(table, columns, words, where):
    if len(words) != len(columns):
        raise SeedFormatError(f"{where}: {len(words)} cells for {len(columns)} columns")
    keys = {k for k, _ in table.systems}
    runs = {k: [] for k in keys}
    avg, extra, ratio = {}, {}, None
    for col, cell in zip(columns[1:], words[1:]):
        if col == "ratio":
            ratio = None if cell == "-" else cell
            if ratio is not None:
                try:
                    parse_ratio(ratio)
                except ArithmeticError:
                    raise SeedFormatError(f"{where}: ratio {cell!r} is not a number") from None
            continue
        key, _, what = col.partition(".")
        if key not in keys:
            raise SeedFormatError(f"{where}: column {col!r} names no system")
        value = _number(cell, where)
        if what == "" or what == "avg":
            avg[key] = value
        elif re.fullmatch(r"run\d+", what):
            runs[key].append(value)
        else:
            extra[col] = value
    for k in keys:
        if k not in avg:
            raise SeedFormatError(f"{where}: no average or figure for system {k}")
    return Row(words[0], runs, avg, extra, ratio)


def parse(text, path="<seed>"):
    """A seed file's text -> Seed."""
    base = os.path.basename(path)
    m = re.match(r"(\d{3})-", base)
    seed = Seed(m.group(1) if m else base, path)
    table = keys = columns = None
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        where = f"{base}:{n}"
        if not line or line.startswith("#"):
            continue
        key, colon, value = line.partition(": ")
        if table is None and keys is None:
            if colon and key in HEADER_KEYS:
                setattr(seed, key.replace("-", "_"), value.strip())
            elif colon and key == "note":
                seed.notes.append(value.strip())
            elif colon and key == "table":
                keys, columns = {"name": value.strip()}, None
            else:
                raise SeedFormatError(f"{where}: expected a header line or 'table: NAME', not {line!r}")
            continue
        if line == "end":
            if table is None:
                raise SeedFormatError(f"{where}: table {keys['name']} ends before its columns")
            if not table.rows:
                raise SeedFormatError(f"{where}: table {table.name} has no rows")
            seed.tables.append(table)
            table = keys = columns = None
            continue
        if table is None:
            if colon and key == "columns":
                columns = value.split()
                table = _table_from(keys["name"], keys, columns, where)
            elif colon and key in TABLE_KEYS:
                keys[key] = value.strip()
            else:
                raise SeedFormatError(f"{where}: expected a table line, not {line!r}")
            continue
        row = _row(table, columns, line.split(), where)
        if any(r.point == row.point for r in table.rows):
            raise SeedFormatError(f"{where}: point {row.point} twice")
        table.rows.append(row)
    if keys is not None:
        raise SeedFormatError(f"{base}: table {keys['name']} has no 'end' line")
    for k in HEADER_KEYS:
        if not getattr(seed, k.replace("-", "_")):
            raise SeedFormatError(f"{base}: no '{k}:' line")
    if seed.rounding not in ("round", "truncate"):
        raise SeedFormatError(f"{base}: 'rounding:' is round or truncate, not {seed.rounding!r}")
    if not seed.tables:
        raise SeedFormatError(f"{base}: no table")
    return seed


def load(number, folder=SEED_DIR):
    """The seed file whose name starts with number ('001')."""
    for name in sorted(os.listdir(folder)):
        if name.startswith(f"{number}-") and name.endswith(".txt"):
            path = os.path.join(folder, name)
            with open(path) as f:
                return parse(f.read(), path)
    raise FileNotFoundError(f"no seed {number} in {folder}")


def load_all(folder=SEED_DIR):
    names = sorted(n for n in os.listdir(folder) if re.match(r"\d{3}-.*\.txt$", n))
    out = []
    for name in names:
        with open(os.path.join(folder, name)) as f:
            out.append(parse(f.read(), os.path.join(folder, name)))
    return out


# ------------------------------------------------------------------ the arithmetic check

def _decimals(text):
    """How many digits the printed figure has after the point (and whether it is a percentage)."""
    body = text.rstrip("%").lstrip("+-")
    return len(body.split(".", 1)[1]) if "." in body else 0


def _compare(printed_text, printed, exact, rule):
    """None if exact, printed to the same precision under the seed's rule ('round' half up, or
    'truncate'), gives the printed figure; otherwise what does give it: 'truncated',
    'rounded', or 'differs' (neither)."""
    q = Decimal(1).scaleb(-_decimals(printed_text))
    rounded = exact.quantize(q, rounding=ROUND_HALF_UP) == printed
    truncated = exact.quantize(q, rounding=ROUND_DOWN) == printed
    if (rounded and rule == "round") or (truncated and rule == "truncate"):
        return None
    return "truncated" if truncated else "rounded" if rounded else "differs"


def check_table(t, rule="round"):
    """[Finding] for every average that is not the mean of its runs and every ratio that is
    not the ratio of the printed averages (or figures), at the printed precision under the
    thread's rule for the last digit (rule: 'round' or 'truncate')."""
    out = []
    for row in t.rows:
        for key, _ in t.systems:
            runs = row.runs[key]
            if not runs:
                continue
            exact = sum(runs) / len(runs)
            text = _printed(row, key)
            kind = _compare(text, row.avg[key], exact, rule)
            if kind:
                out.append(Finding(t.name, row.point, f"{key}.avg", text, exact, kind))
        if row.ratio_text is None:
            continue
        num, den = t.ratio
        exact = row.avg[num] / row.avg[den]
        if row.ratio_text.endswith("%"):
            pct = Decimal(row.ratio_text.rstrip("%"))
            kind = _compare(row.ratio_text.rstrip("%"), pct, (exact - 1) * 100, rule)
        else:
            kind = _compare(row.ratio_text, Decimal(row.ratio_text), exact, rule)
        if kind:
            out.append(Finding(t.name, row.point, "ratio", row.ratio_text, exact, kind))
    return out


def _printed(row, key):
    """The printed average as text, with its trailing zeros (Decimal keeps them)."""
    return str(row.avg[key])


def check_seed(seed):
    """[Finding] over every table of the seed, under its 'rounding:' rule."""
    return [f for t in seed.tables for f in check_table(t, seed.rounding)]
