"""tools/fuzz-minimise's call lists, and the option list the absurd-value probes are made from."""
import unittest

from tests.tools.script import load_script


class Ranges(unittest.TestCase):
    def test_runs_become_ranges(self):
        ranges = load_script("tools/fuzz-minimise", "fuzz_minimise").ranges
        self.assertEqual(ranges([0, 1, 2, 5, 7, 8]), "0-2,5,7-8")
        self.assertEqual(ranges([42]), "42")
        self.assertEqual(ranges(list(range(20000))), "0-19999")
        self.assertEqual(ranges([]), "")


class Options(unittest.TestCase):
    def test_every_registered_option_gets_an_absurd_value(self):
        run = load_script("tests/boot/run.py", "boot_run")
        names = dict(run.registered_options())
        for name, kind in (("loglevel", "INT"), ("user_mem_limit", "SIZE"), ("sched_features", "LIST"),
                           ("nosmp", "BOOL"), ("sched_select", "STRING")):
            self.assertEqual(names.get(name), kind)
        line = run.absurd_cmdline(0)
        self.assertIn("loglevel=999999999999999999999", line)
        self.assertIn("user_mem_limit=18446744073709551616K", line)
        self.assertNotIn("qemu_exit=", line)  # the run's own options stay usable
        # GRUB passes about 1,010 bytes: each value's words boot in two halves (options-absurd
        # and -2, options-absurd-negative and -2) that between them set every option.
        for which in (0, 1):
            halves = [run.absurd_cmdline(which, h) for h in (0, 1)]
            self.assertEqual(sorted(" ".join(halves).split()), sorted(run.absurd_cmdline(which).split()))
            for text in halves:
                self.assertLess(len(text), 1000)


if __name__ == "__main__":
    unittest.main()
