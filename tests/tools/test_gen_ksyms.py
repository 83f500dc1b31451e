"""tools/gen-ksyms: nm output in, the kernel's C symbol table out."""
import io
import os
import subprocess
import sys
import tempfile
import unittest

from tests.tools.script import load_script

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(TOP, "tools", "gen-ksyms")


NM = """\
ffffffff80101000 0000000000000040 T kernel_main
ffffffff80101040 T isr_stub_0
ffffffff80101050 T isr_stub_1
ffffffff80101060 0000000000000010 t helper
ffffffff80101060 0000000000000010 t helper_alias
ffffffff80102000 0000000000000100 D some_data
ffffffff80102000 r rodata_label
                 U undefined_thing
ffffffff80101070 0000000000000020 W weak_fn
0000000000100000 T _start
"""


class GenKsyms(unittest.TestCase):
    def setUp(self):
        self.mod = load_script("tools/gen-ksyms", "gen_ksyms")

    def test_keeps_text_symbols_sorted_with_sizes(self):
        syms = self.mod.read_symbols(NM.splitlines())
        names = [s[2] for s in syms]
        # _start, in the low boot stub below the higher half, is left out
        self.assertEqual(names, ["kernel_main", "isr_stub_0", "isr_stub_1", "helper", "weak_fn"])
        sizes = {s[2]: s[1] for s in syms}
        self.assertEqual(sizes["kernel_main"], 0x40)
        self.assertEqual(sizes["isr_stub_0"], 0x10)  # no size from nm: up to the next symbol
        self.assertEqual(sizes["isr_stub_1"], 0x10)
        self.assertEqual(sizes["weak_fn"], 0x20)

    def test_check_accepts_same_and_refuses_moved(self):
        with tempfile.TemporaryDirectory() as d:
            table = os.path.join(d, "t.c")
            with open(table, "w") as f:
                subprocess.run([sys.executable, GEN], input=NM, text=True, stdout=f, check=True)
            same = subprocess.run([sys.executable, GEN, "--check", table], input=NM, text=True,
                                  capture_output=True)
            self.assertEqual(same.returncode, 0, same.stderr)
            moved = NM.replace("ffffffff80101060 0000000000000010 t helper\n",
                               "ffffffff80101064 0000000000000010 t helper\n")
            diff = subprocess.run([sys.executable, GEN, "--check", table], input=moved, text=True,
                                  capture_output=True)
            self.assertEqual(diff.returncode, 1)
            self.assertIn("moved", diff.stderr)

    def test_empty_table_is_valid_c_shape(self):
        out = io.StringIO()
        self.mod.emit([], out)
        text = out.getvalue()
        self.assertIn(".count = 0", text)
        self.assertIn("ksym_kernel_table", text)

    def test_no_symbols_is_an_error(self):
        r = subprocess.run([sys.executable, GEN], input="garbage\n", text=True, capture_output=True)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no text symbols", r.stderr)


if __name__ == "__main__":
    unittest.main()
