"""tools/lib/qemu_machine.py: presets, accelerator choice, QEMU command lines."""
import os
import re
import subprocess
import sys
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tools", "lib"))
import qemu_machine as qm  # noqa: E402


class QemuMachine(unittest.TestCase):
    def test_default_preset_is_2s_2c_2t_2_nodes(self):
        p = qm.PRESETS["default"]
        self.assertEqual((p.sockets, p.cores, p.threads, p.nodes, p.cpus), (2, 2, 2, 2, 8))

    def test_argv_has_topology_numa_and_exit_device(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            argv = qm.Run(qm.PRESETS["default"], "x.iso").argv()
        s = " ".join(argv)
        self.assertIn("-smp 8,sockets=2,cores=2,threads=2", s)
        self.assertIn("-accel tcg", s)
        self.assertIn("-numa cpu,node-id=0,socket-id=0", s)
        self.assertIn("-numa cpu,node-id=1,socket-id=1", s)
        self.assertIn("isa-debug-exit,iobase=0xf4", s)
        self.assertIn("size=256M", s)

    def test_trace_channel_only_when_asked(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            plain = " ".join(qm.Run(qm.PRESETS["2s"], "x.iso").argv())
            traced = " ".join(qm.Run(qm.PRESETS["2s"], "x.iso", trace="/tmp/o.trace").argv())
        self.assertNotIn("isa-debugcon", plain)
        self.assertIn("-chardev file,id=fulcrum-trace,path=/tmp/o.trace", traced)
        self.assertIn("-device isa-debugcon,iobase=0xe9,chardev=fulcrum-trace", traced)

    def test_pvh_boots_the_elf_by_kernel_without_a_disk(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            argv = qm.Run(qm.PRESETS["2s"], "k.elf", icount=True, media="pvh", initrd="i.cpio",
                          append="qemu_exit init=/bin/fairshare -- -t 9").argv()
        i = argv.index("-kernel")
        self.assertEqual(argv[i + 1], "k.elf")
        self.assertEqual(argv[argv.index("-initrd") + 1], "i.cpio")
        self.assertEqual(argv[argv.index("-append") + 1], "qemu_exit init=/bin/fairshare -- -t 9")
        self.assertNotIn("-cdrom", argv)
        self.assertNotIn("-drive", argv)

    def test_memory_override_splits_over_nodes(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            argv = qm.Run(qm.PRESETS["default"], "x.iso", memory_mib=8192).argv()
        s = " ".join(argv)
        self.assertIn("-m 8192M", s)
        self.assertIn("size=4096M", s)

    def test_kvm_only_with_vmx_or_svm(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            self.assertEqual(qm.choose_accel("auto"), "tcg")
        with mock.patch.object(qm, "host_has_hw_virt", return_value=True), \
                mock.patch.object(qm.os, "access", return_value=True):
            self.assertEqual(qm.choose_accel("auto"), "kvm")
        self.assertEqual(qm.choose_accel("tcg"), "tcg")

    def test_old_qemu_notes(self):
        self.assertTrue(qm.version_notes((7, 2, 0)))
        self.assertEqual(qm.version_notes((10, 0, 2)), [])


def argv_of(name, **kw):
    with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
        return qm.Run(qm.PRESETS[name], "x.iso", **kw).argv()


def numa_cpu_specs(argv):
    return [argv[i + 1] for i, a in enumerate(argv) if a == "-numa" and argv[i + 1].startswith("cpu,")]


class Presets(unittest.TestCase):
    """The presets of issue 3 item 9 and the QEMU options they give."""

    def test_every_preset_is_there_and_sound(self):
        self.assertEqual([p.name for p in qm.PRESET_LIST],
                         ["up", "smt", "2s", "2s16", "2s12", "4n", "asym", "x2apic", "amd"])
        for p in qm.PRESET_LIST:
            with self.subTest(preset=p.name):
                self.assertEqual(qm.preset_problems(p), [])
                self.assertTrue(p.summary and p.purpose)
                self.assertEqual(sum(qm.node_memory(p)), p.memory_mib)

    def test_default_is_an_alias_of_2s(self):
        self.assertIs(qm.PRESETS["default"], qm.PRESETS["2s"])
        p = qm.PRESETS["2s"]
        self.assertEqual((p.sockets, p.cores, p.threads, p.nodes, p.distances), (2, 2, 2, 2, {(0, 1): 21}))
        s = " ".join(argv_of("default"))
        self.assertIn("-numa dist,src=0,dst=1,val=21 -numa dist,src=1,dst=0,val=21", s)

    def test_shapes(self):
        shapes = {p.name: (p.sockets, p.cores, p.threads, p.nodes, p.cpus) for p in qm.PRESET_LIST}
        self.assertEqual(shapes["up"], (1, 1, 1, 1, 1))
        self.assertEqual(shapes["smt"], (1, 2, 2, 1, 4))
        self.assertEqual(shapes["2s16"], (2, 4, 2, 2, 16))
        self.assertEqual(shapes["2s12"], (2, 3, 2, 2, 12))
        self.assertEqual(shapes["4n"], (4, 2, 2, 4, 16))
        self.assertEqual(shapes["amd"], shapes["2s"])
        self.assertNotIn("-numa", argv_of("up") + argv_of("smt"))  # one node: QEMU builds no SRAT

    def test_apic_mode_and_vendor_in_cpu_option(self):
        for p in qm.PRESET_LIST:
            with self.subTest(preset=p.name):
                want_tcg = p.cpu + ("" if p.name == "x2apic" else ",-x2apic")
                self.assertEqual(qm.cpu_option(p, "tcg"), want_tcg)
                self.assertEqual(qm.cpu_option(p, "kvm"), "host" + ("" if p.x2apic else ",-x2apic"))
                self.assertEqual(p.vendor, "AMD" if p.name == "amd" else "Intel")
        argv = argv_of("amd")
        self.assertEqual(argv[argv.index("-cpu") + 1], "max,-x2apic")
        argv = argv_of("x2apic")
        self.assertEqual(argv[argv.index("-cpu") + 1], "max,vendor=GenuineIntel")

    def test_x2apic_needs_qemu_8_1_under_tcg(self):
        x2 = qm.PRESETS["x2apic"]
        self.assertIn("8.1", qm.unavailable(x2, (7, 2, 0), "tcg"))
        self.assertIsNone(qm.unavailable(x2, (8, 1, 0), "tcg"))
        self.assertIsNone(qm.unavailable(x2, (7, 2, 0), "kvm"))
        for p in qm.PRESET_LIST:
            if p is not x2:
                self.assertIsNone(qm.unavailable(p, (7, 2, 0), "tcg"))

    def test_asym_places_cores_on_nodes_and_leaves_one_memory_only(self):
        p = qm.PRESETS["asym"]
        self.assertEqual(numa_cpu_specs(argv_of("asym")), [
            "cpu,node-id=0,socket-id=0,core-id=0,thread-id=0", "cpu,node-id=2,socket-id=0,core-id=1,thread-id=0",
            "cpu,node-id=0,socket-id=0,core-id=2,thread-id=0", "cpu,node-id=2,socket-id=0,core-id=3,thread-id=0",
            "cpu,node-id=3,socket-id=1"])
        self.assertEqual([c.node for c in qm.expected_cpus(p)], [0, 2, 0, 2, 3, 3, 3, 3])
        self.assertEqual(qm.memory_only_nodes(p), [1])
        s = " ".join(argv_of("asym"))
        for n in range(4):
            self.assertIn(f"-numa node,nodeid={n},memdev=mem{n}", s)
        self.assertEqual(s.count("-numa dist,"), 12)  # every pair, both ways

    def test_memory_override_keeps_placement(self):
        argv = argv_of("asym", memory_mib=1000)
        s = " ".join(argv)
        self.assertIn("-m 1000M", s)
        self.assertIn("id=mem0,size=250M", s)
        self.assertEqual(len(numa_cpu_specs(argv)), 5)
        self.assertEqual(qm.node_memory(qm.Preset("t", 3, 1, 1, 3, 512, "t"), 512), [172, 170, 170])

    def test_preset_problems(self):
        twice = qm.Preset("t", 1, 2, 1, 2, 256, "t", placement=((0, 0, None, None), (1, 0, 1, None)))
        self.assertTrue(any("placed 2 times" in x for x in qm.preset_problems(twice)))
        missing = qm.Preset("t", 1, 2, 1, 2, 256, "t", placement=((0, 0, 0, None),))
        self.assertTrue(any("placed 0 times" in x for x in qm.preset_problems(missing)))
        bad_key = qm.Preset("t", 2, 1, 1, 2, 256, "t", distances={(1, 0): 20})
        self.assertTrue(qm.preset_problems(bad_key))
        self.assertTrue(qm.preset_problems(qm.Preset("t", 1, 1, 1, 1, 256, "t", distances={(0, 1): 20})))


class ExpectedCpus(unittest.TestCase):
    """APIC IDs, packages, cores, threads and nodes as QEMU lays the CPUs out."""

    def test_2s(self):
        cpus = qm.expected_cpus(qm.PRESETS["2s"])
        self.assertEqual(cpus[0], (0, 0, 0, 0, 0, 0))
        self.assertEqual(cpus[5], qm.ExpectedCpu(apic_id=5, package=1, core=0, thread=1, node=1, llc=1))

    def test_sparse_apic_ids_with_three_cores(self):
        cpus = qm.expected_cpus(qm.PRESETS["x2apic"])
        self.assertEqual([c.apic_id for c in cpus], [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13])
        self.assertEqual([c.core for c in cpus], [0, 0, 1, 1, 2, 2] * 2)

    def test_4n_nodes_follow_sockets(self):
        self.assertEqual([c.node for c in qm.expected_cpus(qm.PRESETS["4n"])],
                         [n for n in range(4) for _ in range(4)])

    def test_one_cpu(self):
        self.assertEqual(qm.expected_cpus(qm.PRESETS["up"]), [(0, 0, 0, 0, 0, 0)])


def spans(p, cpu):
    return [(lv.index, lv.name, qm.cpulist(span)) for lv, span in qm.expected_domains(p, cpu)]


class ExpectedDomains(unittest.TestCase):
    """The domain rules applied to the presets, checked against hand-worked answers."""

    def test_cpulist(self):
        self.assertEqual(qm.cpulist([]), "")
        self.assertEqual(qm.cpulist([3]), "3")
        self.assertEqual(qm.cpulist({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11")

    def test_levels(self):
        self.assertEqual(qm.levels_line(qm.PRESETS["up"]),
                         "sched-domain levels (generation 1): 0:SMT 1:MC 2:PKG 3:NODE")
        self.assertTrue(qm.levels_line(qm.PRESETS["4n"]).endswith("3:NODE 4:NUMA(20) 5:NUMA(30)"))
        self.assertTrue(qm.levels_line(qm.PRESETS["2s16"]).endswith("4:NUMA(20)"))  # no SLIT: 10/20
        self.assertTrue(qm.levels_line(qm.PRESETS["asym"]).endswith("4:NUMA(11) 5:NUMA(21) 6:NUMA(31)"))

    def test_up_has_no_domains(self):
        p = qm.PRESETS["up"]
        self.assertEqual(qm.expected_domains(p, 0), [])
        self.assertEqual(qm.balance_map_line(p, 0), "CPU0 balance map: exec=none fork=none wake=none")
        self.assertEqual(qm.affine_map_line(p, 0), "CPU0 affine map: 0 none")

    def test_2s(self):
        p = qm.PRESETS["2s"]
        self.assertEqual(spans(p, 0), [(0, "SMT", "0-1"), (1, "MC", "0-3"), (4, "NUMA", "0-7")])
        self.assertEqual(spans(p, 6), [(0, "SMT", "6-7"), (1, "MC", "4-7"), (4, "NUMA", "0-7")])
        self.assertEqual(qm.affine_map_line(p, 6), "CPU6 affine map: 6-7 0:SMT, 4-5 1:MC, 0-3 4:NUMA")

    def test_4n_two_numa_levels(self):
        p = qm.PRESETS["4n"]
        self.assertEqual(spans(p, 0), [(0, "SMT", "0-1"), (1, "MC", "0-3"), (4, "NUMA", "0-7,12-15"),
                                       (5, "NUMA", "0-15")])
        self.assertEqual(spans(p, 9)[2], (4, "NUMA", "4-15"))
        self.assertEqual(qm.balance_map_line(p, 9),
                         "CPU9 balance map: exec=0:SMT,1:MC,4:NUMA,5:NUMA fork=0:SMT,1:MC,4:NUMA,5:NUMA wake=none")
        self.assertEqual(qm.affine_map_line(p, 0),
                         "CPU0 affine map: 0-1 0:SMT, 2-3 1:MC, 4-7,12-15 4:NUMA, 8-11 5:NUMA")

    def test_asym(self):
        p = qm.PRESETS["asym"]
        # CPU 0 (node 0): node 2 is 11 away and shares the package; all nodes are within 21.
        self.assertEqual(spans(p, 0), [(1, "MC", "0-3"), (5, "NUMA", "0-7")])
        # CPU 1 (node 2): socket 1 is 31 away, beyond RECLAIM_DISTANCE.
        self.assertEqual(spans(p, 1), [(1, "MC", "0-3"), (6, "NUMA", "0-7")])
        self.assertEqual(qm.balance_map_line(p, 1), "CPU1 balance map: exec=1:MC fork=1:MC wake=none")
        self.assertEqual(qm.affine_map_line(p, 1), "CPU1 affine map: 0-3 1:MC, 4-7 none")
        # CPU 4 (node 3): node 0's CPUs 0 and 2 are within 21, node 2's are not.
        self.assertEqual(spans(p, 4), [(1, "MC", "4-7"), (5, "NUMA", "0,2,4-7"), (6, "NUMA", "0-7")])
        self.assertEqual(qm.balance_map_line(p, 4),
                         "CPU4 balance map: exec=1:MC,5:NUMA fork=1:MC,5:NUMA wake=none")
        self.assertEqual(qm.affine_map_line(p, 4), "CPU4 affine map: 4-7 1:MC, 0,2 5:NUMA, 1,3 none")

    def test_chain_stops_at_the_whole_machine(self):
        chain = qm.built_chain(qm.PRESETS["smt"], 0)
        self.assertEqual([lv.name for lv, _ in chain], ["SMT", "MC"])

    def test_summary_lines(self):
        self.assertEqual(qm.topology_line(qm.PRESETS["up"]),
                         "topology: 1 package, 1 node, 1 core, 1 thread, LLC per package")
        self.assertEqual(qm.topology_line(qm.PRESETS["asym"]),
                         "topology: 2 packages, 4 nodes, 8 cores, 8 threads, LLC per package")
        self.assertEqual(qm.acpi_line(qm.PRESETS["2s16"]),
                         "ACPI: MADT 16 CPUs (0 disabled), SRAT 2 nodes, no SLIT (distances 10/20); using 16 CPUs")
        self.assertEqual(qm.acpi_line(qm.PRESETS["up"]),
                         "ACPI: MADT 1 CPUs (0 disabled), no SRAT (1 node), no SLIT (distances 10/20); using 1 CPUs")
        self.assertEqual(qm.apic_mode_line(qm.PRESETS["x2apic"]), "apic: x2APIC mode")
        self.assertEqual(qm.apic_mode_line(qm.PRESETS["2s"]), "apic: xAPIC mode")


class QemuRunList(unittest.TestCase):
    def test_list_names_every_preset_and_the_alias(self):
        out = subprocess.run([sys.executable, os.path.join(TOP, "tools", "qemu-run"), "--list"],
                             capture_output=True, text=True, check=True).stdout
        for name in list(qm.PRESETS):
            self.assertRegex(out, rf"(?m)^  {re.escape(name)} ")



class Icount(unittest.TestCase):
    def test_icount_needs_new_qemu_for_several_cpus(self):
        self.assertTrue(qm.icount_supported((7, 2, 0), 1))
        self.assertFalse(qm.icount_supported((7, 2, 0), 8))
        self.assertTrue(qm.icount_supported((8, 1, 0), 8))

    def test_icount_never_in_x2apic_mode(self):
        self.assertIn("8.1", qm.icount_unavailable(qm.PRESETS["2s"], (7, 2, 0)))
        self.assertIsNone(qm.icount_unavailable(qm.PRESETS["2s"], (8, 1, 0)))
        self.assertIsNone(qm.icount_unavailable(qm.PRESETS["up"], (7, 2, 0)))
        self.assertIn("x2APIC", qm.icount_unavailable(qm.PRESETS["x2apic"], (10, 0, 2)))

    def test_icount_arguments_under_tcg_only(self):
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            s = " ".join(qm.Run(qm.PRESETS["2s"], "x.iso", icount=True).argv())
        self.assertIn("-accel tcg,thread=single", s)
        self.assertIn("-icount " + qm.ICOUNT, s)
        with mock.patch.object(qm, "host_has_hw_virt", return_value=False):
            s = " ".join(qm.Run(qm.PRESETS["2s"], "x.iso").argv())
        self.assertNotIn("-icount", s)

if __name__ == "__main__":
    unittest.main()
