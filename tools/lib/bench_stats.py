"""The arithmetic of a benchmark table: averages, spread, ratios, which way is better.

Kept apart from the formatting so the unit tests can check the numbers
themselves. A failed run is None and counts in no average.
"""
import math


def mean(values):
    """Average of the values that are not None; None if there are none."""
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def stdev(values):
    """Sample standard deviation (n - 1); None with fewer than two values."""
    vals = [v for v in values if v is not None]
    if len(vals) < 2:
        return None
    m = sum(vals) / len(vals)
    return math.sqrt(sum((v - m) ** 2 for v in vals) / (len(vals) - 1))


def rel_spread(values):
    """Standard deviation as a share of the average (coefficient of variation)."""
    m, s = mean(values), stdev(values)
    if m is None or s is None or m == 0:
        return None
    return s / abs(m)


def ratio(value, base):
    """value / base, None when either is missing or base is zero."""
    if value is None or base is None or base == 0:
        return None
    return value / base


# Units where a smaller number is the better result; everything else (ops/sec, jobs/min,
# tps, ...) is taken as a rate, where bigger is better.
LOWER_UNITS = {"s", "sec", "secs", "seconds", "ms", "msec", "us", "usec", "usecs", "ns", "nsec",
               "cycles", "instructions"}


def lower_is_better(unit):
    """True for times and costs (s, usec, usecs/op, ns/call), False for rates."""
    u = unit.lower()
    if "/" in u:
        num, den = u.split("/", 1)
        # usecs/op, ns/call: a time per operation; ops/sec, jobs/min: a rate.
        return num in LOWER_UNITS and den not in LOWER_UNITS
    return u in LOWER_UNITS


def fmt(value, width=0, digits=4):
    """A figure with about `digits` significant digits; '-' for a missing one."""
    if value is None:
        return "-".rjust(width)
    if value == 0:
        text = "0"
    else:
        mag = math.floor(math.log10(abs(value)))
        decimals = max(0, digits - 1 - mag)
        text = f"{value:.{decimals}f}"
    return text.rjust(width)


def fmt_ratio(value, width=0):
    return ("-" if value is None else f"{value:.3f}").rjust(width)


def fmt_pct(value, width=0):
    return ("-" if value is None else f"{100 * value:.1f}%").rjust(width)
