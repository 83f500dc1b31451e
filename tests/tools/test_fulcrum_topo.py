"""tools/fulcrum-topo on real firmware: every machine in tests/data/acpi-corpus.

Each machine directory holds binary ACPI tables and expected.json, decoded by
ACPICA's disassembler (not by our parsers). For every machine the tool's
--json output must agree with it: every MADT processor entry in MADT order,
the enabled CPUs' APIC IDs, each CPU's NUMA node, the disabled and
online-capable entry counts, the duplicate APIC IDs, the SRAT counts and
memory ranges, and the distance matrix (the SLIT, or 10 local / 20 remote
where there is none).

Given an APIC-ID bit layout the tool also builds the sched domains and the
balance map with the kernel's own code. For the QEMU machine (2 sockets x 2
cores x 2 threads, 2 nodes at SLIT distance 21) the test works out what they
must be from that shape alone (Domains) and checks the JSON and the boot-log
text against it. Every machine's JSON is checked against the schema the
README documents (Schema), and garbage never crashes the tool (Errors).

`make test` builds build/tools/fulcrum-topo first; a missing binary or a
missing corpus fails these tests rather than skipping them, since CI has
both.
"""
import json
import os
import random
import re
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(TOP, "build", "tools", "fulcrum-topo")
CORPUS = os.path.normpath(os.path.join(TOP, "tests", "data", "acpi-corpus"))

LOCAL, REMOTE = 10, 20  # distances when there is no SLIT (kernel/machine.h)


def machines():
    if not os.path.isdir(CORPUS):
        return []
    return sorted(d for d in os.listdir(CORPUS)
                  if os.path.isfile(os.path.join(CORPUS, d, "expected.json")))


def run_tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, errors="replace",
                          timeout=60)


def used(cpus):
    """The "cpus" entries the kernel would use (the rest are disabled or left out)."""
    return [c for c in cpus if c["cpu"] is not None]


def node_domains(exp):
    """The proximity domains that become nodes, in node order.

    fulcrum-topo numbers nodes like the kernel (kernel/acpi/topology.h):
    the SRAT's domains with an enabled CPU or memory entry, densely, in
    ascending domain order, so node i is the i-th smallest domain. Without
    an SRAT there is one node. expected.json's all_domains is that set.
    """
    srat = exp.get("srat")
    if not srat:
        return [0]
    return sorted(srat["all_domains"])


def expected_cpus(exp):
    """(apic_id, domain) of each CPU the kernel would use, in MADT order.

    The tool takes the first enabled MADT entry as the boot CPU, so CPU
    order is MADT order. A repeated APIC ID is used once.
    """
    ids = exp["madt"]["enabled_apic_ids"]
    domains = exp.get("enabled_cpu_domains_in_madt_order") or [0] * len(ids)
    seen, out = set(), []
    for apic_id, dom in zip(ids, domains):
        if apic_id not in seen:
            seen.add(apic_id)
            out.append((apic_id, dom))
    return out


def expected_distances(exp, domains):
    """The SLIT is indexed by domain; re-index it by node, or 10/20 without one."""
    slit = exp.get("slit")
    if not slit or not exp.get("srat"):
        n = len(domains)
        return [[LOCAL if i == j else REMOTE for j in range(n)] for i in range(n)]
    m = slit["matrix"]
    return [[m[di][dj] for dj in domains] for di in domains]


class Corpus(unittest.TestCase):
    """The tool against ACPICA's decoding of eight real machines' tables."""

    @classmethod
    def setUpClass(cls):
        cls.results = {}
        if not os.path.isfile(TOOL) or not os.path.isdir(CORPUS):
            return
        for name in machines():
            proc = run_tool("--json", os.path.join(CORPUS, name))
            cls.results[name] = proc

    def setUp(self):
        self.assertTrue(os.path.isdir(CORPUS),
                        f"ACPI corpus missing: expected it at {CORPUS}")
        self.assertTrue(os.access(TOOL, os.X_OK),
                        f"{TOOL} missing: run `make {os.path.relpath(TOOL, TOP)}`")
        self.assertGreaterEqual(len(machines()), 8, f"fewer machines than expected in {CORPUS}")

    def each(self):
        """Yields (name, expected, output) for each machine, under a subTest."""
        for name in machines():
            with self.subTest(machine=name):
                with open(os.path.join(CORPUS, name, "expected.json")) as f:
                    exp = json.load(f)
                proc = self.results[name]
                self.assertEqual(proc.returncode, 0,
                                 f"{name}: exit {proc.returncode}\n{proc.stderr}")
                yield name, exp, json.loads(proc.stdout)

    def test_enabled_apic_ids_in_madt_order(self):
        for name, exp, out in self.each():
            self.assertEqual(out["madt"]["enabled_apic_ids"], exp["madt"]["enabled_apic_ids"])
            self.assertEqual([c["apic_id"] for c in used(out["cpus"])],
                             [a for a, _ in expected_cpus(exp)])
            self.assertEqual([c["cpu"] for c in used(out["cpus"])],
                             list(range(len(used(out["cpus"])))))

    def test_every_madt_entry_in_madt_order(self):
        # "cpus" lists every processor entry, disabled ones too, as ACPICA decodes them.
        for name, exp, out in self.each():
            rev = exp["madt"]["table"]["revision"]
            want = [(p["apic_id"], bool(p["flags"] & 1),
                     bool(not p["flags"] & 1 and p["flags"] & 2 and rev >= 5))
                    for p in exp["madt"]["processors"]]
            got = [(c["apic_id"], c["enabled"], c["online_capable"])
                   for c in out["cpus"] if c["in_madt"]]
            self.assertEqual(got, want)
            self.assertTrue(all(c["cpu"] is None for c in out["cpus"] if not c["enabled"]))

    def test_cpu_nodes(self):
        for name, exp, out in self.each():
            domains = node_domains(exp)
            want = [domains.index(dom) for _, dom in expected_cpus(exp)]
            self.assertEqual([c["node"] for c in used(out["cpus"])], want)
            self.assertEqual([n["proximity_domain"] for n in out["nodes"]], domains)
            self.assertEqual([n["id"] for n in out["nodes"]], list(range(len(domains))))

    def test_disabled_and_online_capable_counts(self):
        for name, exp, out in self.each():
            madt = exp["madt"]
            self.assertEqual(out["madt"]["disabled_entry_count"], madt["disabled_entry_count"])
            self.assertEqual(out["madt"]["online_capable_disabled_count"],
                             madt["online_capable_disabled_count"])
            self.assertEqual(out["madt"]["enabled_count"], madt["enabled_cpu_count"])

    def test_duplicates(self):
        # Disabled placeholders sharing an ID (all 0, or all 0xFF) are not CPUs; only
        # usable entries can be duplicates.
        for name, exp, out in self.each():
            self.assertEqual(sorted(out["madt"]["duplicate_apic_ids"]),
                             sorted(exp["madt"]["duplicate_enabled_apic_ids"]))

    def test_madt_details(self):
        for name, exp, out in self.each():
            madt = exp["madt"]
            counts = madt["subtable_counts"]
            override = madt["lapic_address_override"]
            want_lapic = int(override if override else madt["local_apic_address"], 16)
            self.assertEqual(out["madt"]["lapic_address"], want_lapic)
            self.assertEqual(out["madt"]["x2apic_count"],
                             counts.get("09 Processor Local x2APIC", 0))
            self.assertEqual(len(out["madt"]["io_apics"]), counts.get("01 I/O APIC", 0))
            self.assertEqual(out["madt"]["interrupt_overrides"],
                             counts.get("02 Interrupt Source Override", 0))
            self.assertEqual(out["madt"]["nmis"],
                             counts.get("04 Local APIC NMI", 0)
                             + counts.get("0A Local x2APIC NMI", 0))
            self.assertEqual(out["madt"]["unknown_entry_count"], len(madt["unknown_subtables"]))
            self.assertFalse(out["madt"]["truncated"])

    def test_srat_counts_and_memory(self):
        for name, exp, out in self.each():
            srat = exp.get("srat")
            if not srat:
                self.assertIsNone(out["srat"])
                self.assertEqual(len(out["nodes"]), 1)
                continue
            for key in ("enabled_cpu_affinity_count", "disabled_cpu_affinity_count",
                        "disabled_memory_entry_count", "hotplug_memory_range_count"):
                self.assertEqual(out["srat"][key], srat[key], key)
            for node in out["nodes"]:
                ranges = srat["memory_ranges_by_domain"].get(str(node["proximity_domain"]), [])
                want = [[int(r["base"], 16), int(r["length"], 16)] for r in ranges]
                self.assertEqual(node["memory"], want, f"node {node['id']}")

    def test_distances(self):
        for name, exp, out in self.each():
            want = expected_distances(exp, node_domains(exp))
            self.assertEqual(out["distances"], want)
            self.assertEqual(out["distances_from_slit"], bool(exp.get("slit") and exp.get("srat")))
            if exp.get("slit"):
                self.assertEqual(out["slit"]["matrix"], exp["slit"]["matrix"])


class Chain(unittest.TestCase):
    """The QEMU machine's whole chain, RSDP -> RSDT -> tables, from a memory image."""

    QEMU = "qemu72-q35-2s-2c-2t-numa"

    def test_memdump_follows_rsdp(self):
        src = os.path.join(CORPUS, self.QEMU)
        self.assertTrue(os.path.isdir(src), f"ACPI corpus missing: {src}")
        self.assertTrue(os.access(TOOL, os.X_OK), f"{TOOL} missing")

        def read(name):
            with open(os.path.join(src, name), "rb") as f:
                return f.read()

        rsdt = read("rsdt.dat")
        entries = [int.from_bytes(rsdt[i:i + 4], "little") for i in range(36, len(rsdt), 4)]
        rsdt_phys = int.from_bytes(read("rsdp.dat")[16:20], "little")
        tables = {read(n)[:4]: read(n) for n in ("facp.dat", "apic.dat", "srat.dat", "slit.dat")}
        with tempfile.TemporaryDirectory() as tmp:
            image = os.path.join(tmp, "mem.img")
            # A sparse image of the guest's low 2 GiB: the RSDP in the BIOS ROM
            # area, the RSDT and the tables at the addresses the RSDT gives.
            # Tables we do not have (HPET, MCFG, ...) read as zeros: the walker
            # must report and skip them.
            with open(image, "wb") as f:
                f.truncate(rsdt_phys + len(rsdt) + 4096)
                f.seek(0xF5A40)
                f.write(read("rsdp.dat"))
                f.seek(rsdt_phys)
                f.write(rsdt)
                placed = 0
                # Lay the known tables out where the RSDT points: QEMU puts them
                # back to back, so each entry's size is the gap to the next one.
                gaps = [b - a for a, b in zip(entries, entries[1:] + [rsdt_phys])]
                for phys, gap in zip(entries, gaps):
                    for data in tables.values():
                        if len(data) == gap:
                            f.seek(phys)
                            f.write(data)
                            placed += 1
                            break
            self.assertEqual(placed, len(tables), "could not place every corpus table in the image")
            proc = run_tool("--json", "--memdump", image)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = json.loads(proc.stdout)
        with open(os.path.join(src, "expected.json")) as f:
            exp = json.load(f)
        self.assertEqual([c["apic_id"] for c in used(out["cpus"])],
                         exp["madt"]["enabled_apic_ids"])
        self.assertEqual([c["node"] for c in used(out["cpus"])],
                         exp["enabled_cpu_domains_in_madt_order"])
        self.assertEqual(out["distances"], exp["slit"]["matrix"])
        sigs = {t["signature"]: t for t in out["tables"]}
        self.assertEqual(sigs["RSDT"]["phys"], rsdt_phys)  # revision 0: RSDT, no XSDT
        for sig in ("FACP", "APIC", "SRAT", "SLIT"):
            self.assertTrue(sigs[sig]["checksum_ok"], sig)
        self.assertIn("skipped", proc.stderr)  # the HPET, MCFG and WAET we have no bytes for


class Errors(unittest.TestCase):
    """Bad input: a clear message and a non-zero exit, never a crash."""

    def setUp(self):
        self.assertTrue(os.access(TOOL, os.X_OK), f"{TOOL} missing")
        self.assertTrue(os.path.isdir(CORPUS), f"ACPI corpus missing: {CORPUS}")
        with open(os.path.join(CORPUS, "hp-proliant-dl165-g7", "apic.dat"), "rb") as f:
            self.apic = f.read()

    def write(self, data):
        fd, path = tempfile.mkstemp(suffix=".dat")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        self.addCleanup(os.unlink, path)
        return path

    def test_unreadable_file(self):
        proc = run_tool("/nonexistent/apic.dat")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("/nonexistent/apic.dat", proc.stderr)

    def test_every_truncation_of_a_real_madt(self):
        # Cut the file short at every length: the header's length then lies.
        for n in range(0, len(self.apic), 7):
            proc = run_tool("--json", self.write(self.apic[:n]))
            self.assertIn(proc.returncode, (0, 1) if n < 4 else (1,), f"cut at {n}: {proc.stderr}")
            self.assertNotIn("Sanitizer", proc.stderr)
            if n >= 4:
                self.assertIn("fulcrum-topo:", proc.stderr)

    def test_zero_length_entry_stops_the_walk(self):
        data = bytearray(self.apic)
        data[44 + 8 * 3 + 1] = 0  # the fourth entry's length
        data[9] = (data[9] - (sum(data) & 0xFF)) & 0xFF  # fix the checksum
        proc = run_tool("--json", self.write(bytes(data)))
        self.assertEqual(proc.returncode, 1)
        self.assertIn("walk stopped", proc.stderr)
        out = json.loads(proc.stdout)
        self.assertEqual(len(used(out["cpus"])), 3)  # the entries before the break are used

    def test_bad_checksum_used_or_refused(self):
        data = bytearray(self.apic)
        data[9] ^= 0x55
        path = self.write(bytes(data))
        proc = run_tool("--json", path)
        self.assertEqual(proc.returncode, 0)
        self.assertIn("bad checksum", proc.stderr)
        self.assertEqual(len(used(json.loads(proc.stdout)["cpus"])), 16)
        proc = run_tool("--json", "--cmdline", "acpi_bad_checksum=refuse", path)
        self.assertEqual(proc.returncode, 0)
        cpus = json.loads(proc.stdout)["cpus"]
        self.assertEqual(len(cpus), 1)  # no MADT: the boot CPU only
        self.assertFalse(cpus[0]["in_madt"])

    def test_boot_options(self):
        src = os.path.join(CORPUS, "hp-proliant-dl165-g7")
        out = json.loads(run_tool("--json", "--cmdline", "numa=off maxcpus=4", src).stdout)
        self.assertEqual(len(used(out["cpus"])), 4)
        self.assertEqual(len(out["nodes"]), 1)
        self.assertEqual(out["distances"], [[10]])
        proc = run_tool("--json", "--boot-apic-id", "0x24", "--cmdline", "nosmp", src)
        out = json.loads(proc.stdout)
        self.assertEqual([(c["apic_id"], c["node"]) for c in used(out["cpus"])], [(0x24, 2)])


# ---------------------------------------------------------------- domains

# Linux 3.8's constants (include/linux/sched.h, topology.h), which the kernel keeps.
POWER_SCALE = 1024  # one full CPU
SMT_GAIN = 1178  # a whole SMT core: ~15% more than one thread
RECLAIM_DISTANCE = 30  # NUMA levels at most this far balance exec/fork and are wake-affine

# What every level has, and what each kind adds (Linux 3.8's SD_*_INIT and sd_numa_init).
ALWAYS = {"SD_LOAD_BALANCE", "SD_BALANCE_NEWIDLE"}
NEAR = {"SD_BALANCE_EXEC", "SD_BALANCE_FORK", "SD_WAKE_AFFINE"}
OWN_FLAGS = {
    "SMT": {"SD_SHARE_CPUCAPACITY", "SD_SHARE_PKG_RESOURCES"},
    "MC": {"SD_SHARE_PKG_RESOURCES"},
    "PKG": set(),
    "NODE": set(),
    "NUMA": {"SD_NUMA", "SD_SERIALIZE", "SD_OVERLAP"},
}


def cpulist(cpus):
    """Linux's CPU list: "0-3,8"."""
    out, cpus = [], sorted(cpus)
    i = 0
    while i < len(cpus):
        j = i
        while j + 1 < len(cpus) and cpus[j + 1] == cpus[j] + 1:
            j += 1
        out.append(str(cpus[i]) if i == j else f"{cpus[i]}-{cpus[j]}")
        i = j + 1
    return ",".join(out)


def parse_cpulist(text):
    cpus = []
    for part in filter(None, text.split(",")):
        a, _, b = part.partition("-")
        cpus.extend(range(int(a), int(b or a) + 1))
    return cpus


class Model:
    """The domains a machine must get, worked out from its shape alone.

    The machine: `sockets` x `cores` x `threads`, one node per socket, nodes
    `distance` apart, APIC IDs package << (threads_bits + cores_bits) |
    core << threads_bits | thread, listed in that order (as QEMU numbers and
    lists them). llc_bits: the CPUs sharing an LLC differ only below it.

    Levels, as in Linux: SMT (a core's threads), MC (an LLC), PKG, NODE, then
    one NUMA level per SLIT distance beyond local. A CPU keeps a level only
    if it spans more CPUs than the level it kept below it; level numbers are
    positions in that table, so a chain may skip some.
    """

    def __init__(self, sockets, cores, threads, threads_bits, cores_bits, distance,
                 llc_bits=None):
        shift = threads_bits + cores_bits
        llc_bits = shift if llc_bits is None else llc_bits
        self.cpus = [dict(apic=s << shift | c << threads_bits | t, package=s, core=c, thread=t,
                          node=s)
                     for s in range(sockets) for c in range(cores) for t in range(threads)]
        for cpu in self.cpus:
            cpu["llc"] = cpu["apic"] >> llc_bits
        self.threads, self.sockets, self.cores = threads, sockets, cores
        same = {
            "SMT": lambda a, b: (a["package"], a["core"]) == (b["package"], b["core"]),
            "MC": lambda a, b: a["llc"] == b["llc"],
            "PKG": lambda a, b: a["package"] == b["package"],
            "NODE": lambda a, b: a["node"] == b["node"],
        }
        dist = lambda a, b: 10 if a["node"] == b["node"] else distance
        self.levels = [(name, same[name], None) for name in ("SMT", "MC", "PKG", "NODE")]
        if sockets > 1:
            self.levels.append(("NUMA", lambda a, b: dist(a, b) <= distance, distance))
        self.chains = [self._chain(i) for i in range(len(self.cpus))]

    def _span(self, cpu, level):
        test = self.levels[level][1]
        return [j for j, other in enumerate(self.cpus) if test(self.cpus[cpu], other)]

    def flags(self, level):
        name, _, distance = self.levels[level]
        flags = ALWAYS | OWN_FLAGS[name]
        if distance is None or distance <= RECLAIM_DISTANCE:
            flags |= NEAR
        return flags

    def power(self, cpus):
        one = SMT_GAIN // self.threads if self.threads > 1 else POWER_SCALE
        return one * len(cpus)

    def _chain(self, cpu):
        chain, below = [], [cpu]
        for level in range(len(self.levels)):
            span = self._span(cpu, level)
            if len(span) <= len(below):
                continue
            # Groups: the spans of the kept level below, one per CPU of the span
            # (single CPUs at the base), listed from the CPU's own, in CPU order.
            child = chain[-1]["level"] if chain else None
            groups = []
            for other in span:
                g = self._span(other, child) if child is not None else [other]
                if g not in groups:
                    groups.append(g)
            groups.sort()
            own = next(i for i, g in enumerate(groups) if cpu in g)
            groups = groups[own:] + groups[:own]
            chain.append(dict(level=level, name=self.levels[level][0], span=span,
                              groups=groups))
            below = span
        return chain

    def balance(self, cpu, flag):
        """[level] -> the level's name where the CPU's chain has flag there, else None."""
        out = [None] * len(self.levels)
        for sd in self.chains[cpu]:
            if flag in self.flags(sd["level"]):
                out[sd["level"]] = sd["name"]
        return out

    def affine(self, cpu, other):
        """The lowest wake-affine domain of cpu spanning other, as (level, name), or None."""
        for sd in self.chains[cpu]:
            if "SD_WAKE_AFFINE" in self.flags(sd["level"]) and other in sd["span"]:
                return sd["level"], sd["name"]
        return None

    def log(self):
        """The sched_debug boot log's lines, from the level table to the summary line."""
        names = [f"{i}:{n}" + (f"({d})" if d else "") for i, (n, _, d) in enumerate(self.levels)]
        lines = ["sched-domain levels (generation 1): " + " ".join(names)]
        for cpu, chain in enumerate(self.chains):
            lines.append(f"CPU{cpu} attaching sched-domain(s):")
            for pos, sd in enumerate(chain):
                lines.append(f"{' ' * pos} domain-{pos}: span={cpulist(sd['span'])} "
                             f"level={sd['name']}")
                groups = []
                for g in sd["groups"]:
                    cap = "" if self.power(g) == POWER_SCALE else f" cap={self.power(g)}"
                    groups.append(f"{g[0]}:{{ span={cpulist(g)}{cap} }}")
                lines.append(f"{' ' * (pos + 1)} groups: " + ", ".join(groups))
            kinds = []
            for kind, flag in (("exec", "SD_BALANCE_EXEC"), ("fork", "SD_BALANCE_FORK"),
                               ("wake", "SD_BALANCE_WAKE")):
                got = [f"{lv}:{n}" for lv, n in enumerate(self.balance(cpu, flag)) if n]
                kinds.append(f"{kind}=" + (",".join(got) or "none"))
            lines.append(f"CPU{cpu} balance map: " + " ".join(kinds))
            parts = []
            for sd in chain:
                cpus = [o for o in range(len(self.cpus))
                        if self.affine(cpu, o) == (sd["level"], sd["name"])]
                if cpus:
                    parts.append(f"{cpulist(cpus)} {sd['level']}:{sd['name']}")
            lines.append(f"CPU{cpu} affine map: " + ", ".join(parts))
        s = lambda n, word: f"{n} {word}" + ("" if n == 1 else "s")
        llcs = len({c["llc"] for c in self.cpus})
        llc = "LLC per package" if llcs == self.sockets else (
            "LLC per core" if llcs == self.sockets * self.cores else f"{llcs} LLCs")
        lines.append(f"topology: {s(self.sockets, 'package')}, {s(self.sockets, 'node')}, "
                     f"{s(self.sockets * self.cores, 'core')}, "
                     f"{s(len(self.cpus), 'thread')}, {llc}")
        return lines


class Domains(unittest.TestCase):
    """The QEMU machine's domains and balance map against the model of its shape.

    The corpus machine was made with -smp 8,sockets=2,cores=2,threads=2 and
    one NUMA node per socket at SLIT distance 21: APIC IDs 0-7, a thread
    bit and a core bit. Other layouts are what a user would see giving
    other bits for the same tables.
    """

    QEMU = os.path.join(CORPUS, "qemu72-q35-2s-2c-2t-numa")
    SHAPE = dict(sockets=2, cores=2, threads=2, threads_bits=1, cores_bits=1, distance=21)

    def setUp(self):
        self.assertTrue(os.access(TOOL, os.X_OK), f"{TOOL} missing")
        self.assertTrue(os.path.isdir(self.QEMU), f"ACPI corpus missing: {self.QEMU}")

    def tool_json(self, *layout):
        proc = run_tool("--json", *layout, self.QEMU)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertNotIn("Sanitizer", proc.stderr)
        return json.loads(proc.stdout)

    def check_json(self, model, out):
        for c, want in zip(used(out["cpus"]), model.cpus):
            self.assertEqual(c["apic_id"], want["apic"])
            self.assertEqual((c["package"], c["core"], c["thread"], c["node"]),
                             (want["package"], want["core"], want["thread"], want["node"]),
                             f"APIC ID {c['apic_id']}")
        self.assertEqual([(lv["name"], lv["distance"]) for lv in out["levels"]],
                         [(n, d) for n, _, d in model.levels])
        self.assertEqual([d["cpu"] for d in out["domains"]], list(range(len(model.cpus))))
        for cpu, (got, chain) in enumerate(zip(out["domains"], model.chains)):
            with self.subTest(cpu=cpu):
                self.assertEqual([(sd["level"], sd["name"], sd["span"]) for sd in got["levels"]],
                                 [(sd["level"], sd["name"], sd["span"]) for sd in chain])
                for sd, want in zip(got["levels"], chain):
                    self.assertEqual(sd["cpulist"], cpulist(want["span"]))
                    self.assertEqual([g["span"] for g in sd["groups"]], want["groups"])
                    self.assertEqual([g["power"] for g in sd["groups"]],
                                     [model.power(g) for g in want["groups"]])
                    self.assertEqual([g["capacity"] for g in sd["groups"]],
                                     [max(1, (model.power(g) + POWER_SCALE // 2) // POWER_SCALE)
                                      for g in want["groups"]])
                    flags, must = set(sd["flags"]), model.flags(want["level"])
                    self.assertLessEqual(must, flags, sd["name"])
                    # SD_PREFER_SIBLING may come down from a removed level; nothing else may.
                    self.assertLessEqual(flags - must, {"SD_PREFER_SIBLING"}, sd["name"])
        for cpu, got in enumerate(out["balance_map"]):
            with self.subTest(cpu=cpu):
                self.assertEqual(got["cpu"], cpu)
                for kind, flag in (("exec", "SD_BALANCE_EXEC"), ("fork", "SD_BALANCE_FORK"),
                                   ("wake", "SD_BALANCE_WAKE")):
                    self.assertEqual([e and e["name"] for e in got[kind]],
                                     model.balance(cpu, flag), kind)
                self.assertEqual([e and (e["level"], e["name"]) for e in got["affine"]],
                                 [model.affine(cpu, o) for o in range(len(model.cpus))])

    def test_cpu0_levels_and_balance_map(self):
        # Spelled out for CPU 0, so a reader sees the answer without the model.
        out = self.tool_json("--threads-bits", "1", "--cores-bits", "1")
        cpu0 = out["domains"][0]["levels"]
        self.assertEqual([(sd["name"], sd["cpulist"]) for sd in cpu0],
                         [("SMT", "0-1"), ("MC", "0-3"), ("NUMA", "0-7")])  # PKG, NODE = MC
        self.assertEqual([[g["cpulist"] for g in sd["groups"]] for sd in cpu0],
                         [["0", "1"], ["0-1", "2-3"], ["0-3", "4-7"]])
        sbm = out["balance_map"][0]
        self.assertEqual([e and e["name"] for e in sbm["exec"]], ["SMT", "MC", None, None, "NUMA"])
        self.assertEqual([e and e["name"] for e in sbm["wake"]], [None] * 5)
        self.assertEqual([e["name"] for e in sbm["affine"]], ["SMT"] * 2 + ["MC"] * 2 + ["NUMA"] * 4)
        self.assertEqual(out["summary"], {"packages": 2, "nodes": 2, "cores": 4, "threads": 8,
                                          "llcs": 2, "llc": "per package"})

    def test_qemu_shape(self):
        self.check_json(Model(**self.SHAPE), self.tool_json("--threads-bits", "1", "--cores-bits", "1"))

    def test_llc_per_core(self):
        # --llc-bits 1: each core its own LLC, so MC = SMT goes and PKG stays.
        model = Model(**self.SHAPE, llc_bits=1)
        self.assertEqual([sd["name"] for sd in model.chains[0]], ["SMT", "PKG", "NUMA"])
        self.check_json(model, self.tool_json("--threads-bits", "1", "--cores-bits", "1",
                                              "--llc-bits", "1"))

    def test_no_smt(self):
        # The same IDs read as 4 cores of one thread per package: no SMT level, full-power CPUs.
        model = Model(sockets=2, cores=4, threads=1, threads_bits=0, cores_bits=2, distance=21)
        self.check_json(model, self.tool_json("--threads-bits", "0", "--cores-bits", "2"))

    def test_text_is_the_boot_log(self):
        # The lines sched_debug prints at boot, without timestamps, from the level table to
        # the summary.
        for layout, model in ((("--threads-bits", "1", "--cores-bits", "1"), Model(**self.SHAPE)),
                              (("--threads-bits", "0", "--cores-bits", "2"),
                               Model(sockets=2, cores=4, threads=1, threads_bits=0, cores_bits=2,
                                     distance=21))):
            with self.subTest(layout=layout):
                proc = run_tool(*layout, self.QEMU)
                self.assertEqual(proc.returncode, 0, proc.stderr)
                lines = proc.stdout.splitlines()
                start = lines.index(model.log()[0])
                self.assertEqual(lines[start:start + len(model.log())], model.log())
                self.assertNotRegex(proc.stdout, r"\[\s*\d+\.\d{6}\]")  # no printk timestamps
                pkg_shift = int(layout[1]) + int(layout[3])
                self.assertIn(f"cpu topology (command line): APIC ID = package << {pkg_shift} ",
                              proc.stdout)

    def test_no_layout_no_domains(self):
        out = self.tool_json()
        self.assertIsNone(out["layout"])
        for key in ("domains", "balance_map", "levels", "summary"):
            self.assertNotIn(key, out)
        self.assertTrue(all("package" not in c for c in out["cpus"]))
        proc = run_tool(self.QEMU)
        self.assertNotIn("attaching sched-domain", proc.stdout)
        self.assertIn("--threads-bits", proc.stdout)  # says how to get them


# ---------------------------------------------------------------- schema

LAYOUT = ("--threads-bits", "1", "--cores-bits", "5")
LEVEL_REF = (type(None), dict)


class Schema(unittest.TestCase):
    """Every corpus machine's JSON, with and without a bit layout: keys, types, consistency."""

    def setUp(self):
        self.assertTrue(os.access(TOOL, os.X_OK), f"{TOOL} missing")
        self.assertGreaterEqual(len(machines()), 8, f"ACPI corpus missing: {CORPUS}")

    def keys(self, obj, spec, where):
        """spec: {key: type or tuple of types}; every key present with such a value."""
        self.assertIsInstance(obj, dict, where)
        for key, types in spec.items():
            self.assertIn(key, obj, f"{where}: no {key}")
            self.assertIsInstance(obj[key], types, f"{where}.{key} = {obj[key]!r}")
            if types is int or types == (int, type(None)):
                self.assertNotIsInstance(obj[key], bool, f"{where}.{key}")

    def int_list(self, v, where):
        self.assertIsInstance(v, list, where)
        self.assertTrue(all(isinstance(x, int) and not isinstance(x, bool) for x in v), where)

    def check_machine(self, out, layout):
        opt = (int, type(None))
        self.keys(out, {"cpus": list, "nodes": list, "distances": list,
                        "distances_from_slit": bool, "madt": (dict, type(None)),
                        "srat": (dict, type(None)), "slit": (dict, type(None)),
                        "layout": (dict, type(None))}, "top")
        cpu_keys = {"cpu": opt, "apic_id": int, "acpi_uid": opt, "enabled": bool,
                    "online_capable": bool, "x2apic": bool, "in_madt": bool, "node": opt}
        if layout:
            cpu_keys.update(package=opt, core=opt, thread=opt, llc=opt)
        for i, c in enumerate(out["cpus"]):
            self.keys(c, cpu_keys, f"cpus[{i}]")
            if layout:  # placed exactly when the kernel uses the CPU
                self.assertEqual(c["package"] is None, c["cpu"] is None, f"cpus[{i}]")
        nodes = out["nodes"]
        for i, n in enumerate(nodes):
            self.keys(n, {"id": int, "proximity_domain": int, "cpus": list, "memory": list},
                      f"nodes[{i}]")
            self.assertEqual(n["id"], i)
            self.int_list(n["cpus"], f"nodes[{i}].cpus")
            for r in n["memory"]:
                self.int_list(r, f"nodes[{i}].memory")
                self.assertEqual(len(r), 2)
        self.assertEqual(sorted(a for n in nodes for a in n["cpus"]),
                         sorted(c["apic_id"] for c in used(out["cpus"])))
        self.assertEqual(len(out["distances"]), len(nodes))
        for row in out["distances"]:
            self.int_list(row, "distances")
            self.assertEqual(len(row), len(nodes))
        if not layout:
            self.assertIsNone(out["layout"])
            self.assertNotIn("domains", out)
            return
        self.keys(out["layout"], {"threads_bits": int, "cores_bits": int,
                                  "package_shift": int, "llc_bits": int}, "layout")
        self.keys(out, {"levels": list, "summary": dict, "domains": list,
                        "balance_map": list}, "top")
        nr_levels, nr_cpus = len(out["levels"]), len(used(out["cpus"]))
        for lv in out["levels"]:
            self.keys(lv, {"level": int, "name": str, "distance": opt}, "levels[]")
        self.keys(out["summary"], {"packages": int, "nodes": int, "cores": int, "threads": int,
                                   "llcs": int, "llc": str}, "summary")
        self.assertEqual(out["summary"]["threads"], nr_cpus)
        self.assertEqual([d["cpu"] for d in out["domains"]], list(range(nr_cpus)))
        for d in out["domains"]:
            where = f"domains[{d['cpu']}]"
            below = [d["cpu"]]
            for sd in d["levels"]:
                self.keys(sd, {"level": int, "name": str, "span": list, "cpulist": str,
                               "flags": list, "flags_value": int, "imbalance_pct": int,
                               "min_interval": int, "max_interval": int, "busy_factor": int,
                               "cache_nice_tries": int, "groups": list}, where)
                self.int_list(sd["span"], where)
                self.assertEqual(parse_cpulist(sd["cpulist"]), sd["span"], where)
                self.assertTrue(set(below) < set(sd["span"]), f"{where}: span grows")
                self.assertTrue(all(isinstance(f, str) for f in sd["flags"]), where)
                covered = []
                for g in sd["groups"]:
                    self.keys(g, {"cpu": int, "span": list, "cpulist": str, "power": int,
                                  "capacity": int}, f"{where} group")
                    self.assertEqual(parse_cpulist(g["cpulist"]), g["span"])
                    covered += g["span"]
                self.assertIn(d["cpu"], sd["groups"][0]["span"], f"{where}: own group first")
                self.assertEqual(sorted(set(covered)), sd["span"], f"{where}: groups cover")
                below = sd["span"]
        self.assertEqual([b["cpu"] for b in out["balance_map"]], list(range(nr_cpus)))
        for b in out["balance_map"]:
            self.keys(b, {"cpu": int, "exec": list, "fork": list, "wake": list,
                          "top_level": dict, "affine": list}, "balance_map[]")
            for kind in ("exec", "fork", "wake"):
                self.assertEqual(len(b[kind]), nr_levels)
                for e in b[kind]:
                    self.assertIsInstance(e, LEVEL_REF)
                self.assertIsInstance(b["top_level"][kind], int)
            self.assertEqual(len(b["affine"]), nr_cpus)
            for e in b["affine"]:
                self.assertIsInstance(e, LEVEL_REF)
                if e:
                    self.keys(e, {"level": int, "name": str}, "affine[]")

    def test_every_machine(self):
        for name in machines():
            for layout in ((), LAYOUT):
                with self.subTest(machine=name, layout=layout):
                    proc = run_tool("--json", *layout, os.path.join(CORPUS, name))
                    self.assertEqual(proc.returncode, 0, proc.stderr)
                    self.assertNotIn("Sanitizer", proc.stderr)
                    self.check_machine(json.loads(proc.stdout), bool(layout))


# ---------------------------------------------------------------- garbage


class Garbage(unittest.TestCase):
    """Files that are not (whole) ACPI tables: a message, a non-zero exit, no crash."""

    def setUp(self):
        self.assertTrue(os.access(TOOL, os.X_OK), f"{TOOL} missing")
        self.qemu = os.path.join(CORPUS, "qemu72-q35-2s-2c-2t-numa")
        self.assertTrue(os.path.isdir(self.qemu), f"ACPI corpus missing: {self.qemu}")
        self.rng = random.Random(3)  # the same "random" files every run

    def table_path(self, name):
        return os.path.join(self.qemu, name)

    def table(self, name):
        with open(self.table_path(name), "rb") as f:
            return f.read()

    def write(self, data, suffix=".dat", folder=None):
        fd, path = tempfile.mkstemp(suffix=suffix, dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        self.addCleanup(os.unlink, path)
        return path

    def rejected(self, *args, status=(1,)):
        """Runs the tool (with and without JSON and a layout); each run must fail cleanly."""
        for extra in ((), ("--json",), ("--json",) + LAYOUT, LAYOUT):
            proc = run_tool(*extra, *args)
            with self.subTest(args=extra + args):
                self.assertIn(proc.returncode, status, proc.stderr)
                self.assertIn("fulcrum-topo:", proc.stderr)
                self.assertNotIn("Sanitizer", proc.stderr)
                self.assertNotIn("runtime error", proc.stderr)
                if "--json" in extra:
                    json.loads(proc.stdout)  # still one valid object

    def test_random_bytes(self):
        for size in (0, 1, 3, 35, 36, 100, 4096):
            self.rejected(self.write(bytes(self.rng.randrange(256) for _ in range(size))))

    def test_text_file(self):
        self.rejected(self.write(b"this is not an ACPI table\n" * 3, suffix=".txt"))

    def test_signature_then_garbage(self):
        for sig in (b"APIC", b"SRAT", b"SLIT"):
            for size in (4, 20, 36, 44, 300):
                body = bytes(self.rng.randrange(256) for _ in range(size - 4))
                self.rejected(self.write(sig + body))

    def test_truncated_tables_with_layout(self):
        for name in ("apic.dat", "srat.dat", "slit.dat"):
            data = self.table(name)
            for n in range(4, len(data), 11):
                path = self.write(data[:n])
                proc = run_tool("--json", *LAYOUT, path)
                self.assertEqual(proc.returncode, 1, f"{name} cut at {n}: {proc.stderr}")
                self.assertIn(path, proc.stderr)
                self.assertNotIn("Sanitizer", proc.stderr)
                json.loads(proc.stdout)

    def test_lying_lengths(self):
        # Fixed checksums, so only the lengths are wrong: a zero-length SRAT entry, a SLIT
        # claiming more localities than it holds.
        srat = bytearray(self.table("srat.dat"))
        srat[48 + 1] = 0
        srat[9] = (srat[9] - (sum(srat) & 0xFF)) & 0xFF
        slit = bytearray(self.table("slit.dat"))
        slit[36:44] = (200).to_bytes(8, "little")
        slit[9] = (slit[9] - (sum(slit) & 0xFF)) & 0xFF
        for data in (srat, slit):
            self.rejected(self.write(bytes(data)), self.table_path("apic.dat"))

    def test_garbage_in_a_directory(self):
        folder = tempfile.mkdtemp()
        self.addCleanup(os.rmdir, folder)
        for name in ("apic.dat", "srat.dat", "slit.dat"):
            with open(os.path.join(folder, name), "wb") as f:
                f.write(self.table(name))
            self.addCleanup(os.unlink, os.path.join(folder, name))
        self.write(bytes(self.rng.randrange(256) for _ in range(200)), folder=folder)
        self.rejected(folder)

    def test_bad_layout_options(self):
        for args in (("--threads-bits", "1"), ("--cores-bits", "1"), ("--llc-bits", "2"),
                     ("--threads-bits", "40", "--cores-bits", "1"),
                     ("--threads-bits", "20", "--cores-bits", "20"),
                     ("--threads-bits", "x", "--cores-bits", "1"),
                     ("--threads-bits",)):
            with self.subTest(args=args):
                proc = run_tool(*args, self.qemu)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn("fulcrum-topo:", proc.stderr)
                self.assertEqual(proc.stdout, "")


if __name__ == "__main__":
    unittest.main()
