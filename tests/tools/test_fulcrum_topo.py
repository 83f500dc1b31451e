"""tools/fulcrum-topo on real firmware: every machine in ../shared/acpi-corpus.

Each machine directory holds binary ACPI tables and expected.json, decoded by
ACPICA's disassembler (not by our parsers). For every machine the tool's
--json output must agree with it: the enabled CPUs' APIC IDs in MADT order,
each CPU's NUMA node, the disabled and online-capable entry counts, the
duplicate APIC IDs, the SRAT counts and memory ranges, and the distance
matrix (the SLIT, or 10 local / 20 remote where there is none).

`make test` builds build/tools/fulcrum-topo first; a missing binary or a
missing corpus fails these tests rather than skipping them, since CI has
both.
"""
import json
import os
import subprocess
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(TOP, "build", "tools", "fulcrum-topo")
CORPUS = os.path.normpath(os.path.join(TOP, "..", "shared", "acpi-corpus"))

LOCAL, REMOTE = 10, 20  # distances when there is no SLIT (kernel/machine.h)


def machines():
    if not os.path.isdir(CORPUS):
        return []
    return sorted(d for d in os.listdir(CORPUS)
                  if os.path.isfile(os.path.join(CORPUS, d, "expected.json")))


def run_tool(*args):
    return subprocess.run([TOOL, *args], capture_output=True, text=True, timeout=60)


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
                        f"ACPI corpus missing: expected it at {CORPUS} (shared/ beside the clone)")
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
            self.assertEqual([c["apic_id"] for c in out["cpus"]],
                             [a for a, _ in expected_cpus(exp)])
            self.assertEqual([c["cpu"] for c in out["cpus"]], list(range(len(out["cpus"]))))

    def test_cpu_nodes(self):
        for name, exp, out in self.each():
            domains = node_domains(exp)
            want = [domains.index(dom) for _, dom in expected_cpus(exp)]
            self.assertEqual([c["node"] for c in out["cpus"]], want)
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
        self.assertEqual([c["apic_id"] for c in out["cpus"]], exp["madt"]["enabled_apic_ids"])
        self.assertEqual([c["node"] for c in out["cpus"]], exp["enabled_cpu_domains_in_madt_order"])
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
        self.assertEqual(len(out["cpus"]), 3)  # the entries before the break are used

    def test_bad_checksum_used_or_refused(self):
        data = bytearray(self.apic)
        data[9] ^= 0x55
        path = self.write(bytes(data))
        proc = run_tool("--json", path)
        self.assertEqual(proc.returncode, 0)
        self.assertIn("bad checksum", proc.stderr)
        self.assertEqual(len(json.loads(proc.stdout)["cpus"]), 16)
        proc = run_tool("--json", "--cmdline", "acpi_bad_checksum=refuse", path)
        self.assertEqual(proc.returncode, 0)
        self.assertEqual(len(json.loads(proc.stdout)["cpus"]), 1)  # no MADT: boot CPU only

    def test_boot_options(self):
        src = os.path.join(CORPUS, "hp-proliant-dl165-g7")
        out = json.loads(run_tool("--json", "--cmdline", "numa=off maxcpus=4", src).stdout)
        self.assertEqual(len(out["cpus"]), 4)
        self.assertEqual(len(out["nodes"]), 1)
        self.assertEqual(out["distances"], [[10]])
        proc = run_tool("--json", "--boot-apic-id", "0x24", "--cmdline", "nosmp", src)
        out = json.loads(proc.stdout)
        self.assertEqual([(c["apic_id"], c["node"]) for c in out["cpus"]], [(0x24, 2)])


if __name__ == "__main__":
    unittest.main()
