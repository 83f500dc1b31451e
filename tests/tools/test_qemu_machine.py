"""tools/lib/qemu_machine.py: presets, accelerator choice, QEMU command lines."""
import os
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


if __name__ == "__main__":
    unittest.main()
