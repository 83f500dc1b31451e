"""tools/lab: the regions are well formed, and a student tree holds every region's skeleton and
no line of its solution (nor the wrong solutions of tests/labs/, which quote it), while the
labs not handed out keep theirs."""
import os
import subprocess
import tempfile
import unittest

from tests.tools.script import load_script

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LAB = os.path.join(TOP, "tools", "lab")


lab = load_script("tools/lab", "lab_tool")


def distinctive(region, elsewhere):
    """The solution lines a grep can find: code of some length that neither the skeleton nor the
    file outside its regions has too (list_del() of the same node may well be both)."""
    out = []
    skeleton = "".join(region["skeleton"])
    for line in region["solution"]:
        s = line.strip()
        if len(s) < 12 or s.startswith(("/*", "*", "}")) or s in skeleton or s in elsewhere:
            continue
        out.append(s)
    return out


def outside_regions(text, path):
    return "".join(item for item in lab.parse(text, path) if isinstance(item, str))


class RegionParsing(unittest.TestCase):
    def test_regions_are_well_formed(self):
        found = lab.regions(TOP)
        labs = {r["lab"] for _, r in found}
        self.assertTrue({1, 2} <= labs, f"regions of labs {sorted(labs)}")
        for path, r in found:
            self.assertTrue(r["solution"] and r["skeleton"] and not r.get("handed"),
                            f"{path}:{r['line']} {r['name']}")

    def test_bad_regions_are_refused(self):
        cases = {
            "no skeleton": "/* LAB 1 BEGIN x */\ncode;\n   LAB 1 END */\n",
            "not closed": "/* LAB 1 BEGIN x */\ncode;\n/* LAB 1 SKELETON\nskel;\n",
            "other lab's end": "/* LAB 1 BEGIN x */\ncode;\n/* LAB 1 SKELETON\nskel;\n   LAB 2 END */\n",
            "comment in skeleton": "/* LAB 1 BEGIN x */\na;\n/* LAB 1 SKELETON\n/* no */\n   LAB 1 END */\n",
            "stray end": "code;\n   LAB 1 END */\n",
            "unknown lab": "/* LAB 9 BEGIN x */\na;\n/* LAB 9 SKELETON\nb;\n   LAB 9 END */\n",
        }
        for what, text in cases.items():
            with self.assertRaises(lab.RegionError, msg=what):
                lab.parse(text, what)

    def test_skeleton_replaces_solution(self):
        text = "int f(void)\n{\n\t/* LAB 1 BEGIN f */\n\treturn 42;\n\t/* LAB 1 SKELETON\n" \
               "\tTODO: the answer.\n\treturn 0;\n\t   LAB 1 END */\n}\n"
        items = lab.parse(text, "f.c")
        self.assertEqual(lab.render(items, {2}), text)
        self.assertEqual(lab.render(items, {1}), "int f(void)\n{\n\t/* LAB 1 BEGIN f */\n"
                         "\t/* TODO: the answer. */\n\treturn 0;\n\t/* LAB 1 END */\n}\n")

    def test_later_labs_follow(self):
        self.assertEqual(lab.handed_out(2), {2, 3, 4, 5, 6})
        self.assertEqual(lab.handed_out(1), {1})


class StudentTree(unittest.TestCase):
    """make lab for each lab with regions: a tree of HEAD; the checks read HEAD's regions."""

    def check_tree(self, n):
        committed = subprocess.run(["git", "-C", TOP, "show", "HEAD:tools/lab"], capture_output=True)
        if committed.returncode:
            self.skipTest("tools/lab is not committed yet")
        with tempfile.TemporaryDirectory() as tmp:
            dest = os.path.join(tmp, "tree")
            subprocess.run([LAB, "--lab", str(n), "--dest", dest], check=True, capture_output=True)
            found = lab.regions(dest)
            handed = lab.handed_out(n)
            self.assertFalse(os.path.exists(os.path.join(dest, "tests", "labs")))
            with open(os.path.join(dest, "README.md")) as f:
                self.assertIn(f"make grade LAB={n}", f.read())
            head = {}
            for path, r in lab.regions(TOP):
                head.setdefault(path, []).append(r)
            checked = 0
            for path, regions in head.items():
                with open(os.path.join(dest, path)) as f:
                    text = f.read()
                with open(os.path.join(TOP, path)) as f:
                    elsewhere = outside_regions(f.read(), path)
                for r in regions:
                    if r["lab"] in handed:
                        self.assertIn(f"/* LAB {r['lab']} BEGIN {r['name']} */", text)
                        self.assertNotIn(f"/* LAB {r['lab']} SKELETON", text)
                        for line in distinctive(r, elsewhere):
                            self.assertNotIn(line, text, f"{path}: region {r['name']}'s solution line")
                            checked += 1
                    else:
                        self.assertIn("".join(r["solution"]), text, f"{path}: {r['name']} lost its solution")
            self.assertGreater(checked, 5, "too few solution lines to grep for")
            # The handed-out regions are in the student's form (markers, no skeleton comment).
            self.assertTrue(all(bool(r.get("handed")) == (r["lab"] in handed) for _, r in found))

    def test_lab1_tree(self):
        self.check_tree(1)

    def test_lab2_tree(self):
        self.check_tree(2)

    def test_lab3_tree(self):
        self.check_tree(3)

    def test_lab4_tree(self):
        self.check_tree(4)

    def test_lab5_tree(self):
        self.check_tree(5)


if __name__ == "__main__":
    unittest.main()
