"""Does Fulcrum agree with a seed thread? The verdict of one experiment, point by point.

Each point has two ratios of the same form (the variant's figure over the
baseline's, as the thread divides them): the seed's and Fulcrum's. Each
ratio falls in one of three bands,

    up    ratio >  1 + EDGE          (the variant is more than 5% above)
    same  1 - EDGE <= ratio <= 1 + EDGE
    down  ratio <  1 - EDGE

with EDGE = 0.05, the edges themselves counting as "same". A point agrees
when both ratios fall in the same band. A point where either ratio is
missing (a failed run, a point the seed does not print, or one not
measured) is not judged and is counted apart. The summary line is

    seed 001: 7/8 points agree

followed by ", 2 not judged (no ratio)" when points were left out.
Whether "up" is good depends on the figure (time or rate); the verdict only
asks whether the two move the same way, so it needs no such knowledge.
"""
from dataclasses import dataclass

EDGE_PERCENT = 5
EDGE = EDGE_PERCENT / 100


def band(ratio, edge_percent=EDGE_PERCENT):
    """'up', 'down' or 'same' for a ratio; None for a missing one."""
    if ratio is None:
        return None
    # In percent, rounded to 1e-7 %, so that 0.95 and 1.05 (which binary floating point
    # cannot hold exactly) land on the edge they are written as.
    percent = round(float(ratio) * 1e9) / 1e7
    if percent > 100 + edge_percent:
        return "up"
    if percent < 100 - edge_percent:
        return "down"
    return "same"


@dataclass
class Point:
    label: str
    seed: float  # the seed's ratio, None if it gives none
    fulcrum: float  # Fulcrum's ratio, None if not measured

    @property
    def seed_band(self):
        return band(self.seed)

    @property
    def fulcrum_band(self):
        return band(self.fulcrum)

    @property
    def judged(self):
        return self.seed_band is not None and self.fulcrum_band is not None

    @property
    def agrees(self):
        """True or False for a judged point, None otherwise."""
        if not self.judged:
            return None
        return self.seed_band == self.fulcrum_band


@dataclass
class Verdict:
    seed: str  # "001"
    points: list  # [Point]

    @property
    def judged(self):
        return [p for p in self.points if p.judged]

    @property
    def agreeing(self):
        return [p for p in self.points if p.agrees]

    def summary(self):
        left = len(self.points) - len(self.judged)
        line = f"seed {self.seed}: {len(self.agreeing)}/{len(self.judged)} points agree"
        if left:
            line += f", {left} not judged (no ratio)"
        return line

    def lines(self):
        """A line per point, then the summary."""
        out = []
        width = max([5] + [len(p.label) for p in self.points])
        out.append(f"{'point'.ljust(width)}  {'seed':>7} {'band':5}  {'Fulcrum':>7} {'band':5}  verdict")
        for p in self.points:
            word = {True: "agree", False: "DISAGREE", None: "not judged"}[p.agrees]
            out.append(f"{p.label.ljust(width)}  {_r(p.seed):>7} {p.seed_band or '-':5}  "
                       f"{_r(p.fulcrum):>7} {p.fulcrum_band or '-':5}  {word}")
        out.append(self.summary())
        return out

    def to_json(self):
        return {"seed": self.seed, "edge": EDGE, "summary": self.summary(),
                "points": [{"point": p.label, "seed_ratio": None if p.seed is None else float(p.seed),
                            "fulcrum_ratio": p.fulcrum, "seed_band": p.seed_band,
                            "fulcrum_band": p.fulcrum_band, "agrees": p.agrees} for p in self.points]}


def _r(x):
    return "-" if x is None else f"{float(x):.3f}"


def verdict(seed, pairs):
    """Verdict of seed ('001') over [(label, seed ratio, Fulcrum ratio)]."""
    return Verdict(seed, [Point(str(label), s, f) for label, s, f in pairs])
