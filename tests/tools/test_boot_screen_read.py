"""tests/boot/run.py's screen reads against a fake QEMU monitor: each failure says which case it
was (no answer, an answer not understood, an empty screen), a failed read is retried, and a
worker thread's screen from an earlier test never counts for the next one."""
import os
import socket
import tempfile
import threading
import unittest
from types import SimpleNamespace

from tests.tools.script import load_script


run = load_script("tests/boot/run.py", "boot_run_screen")


class FakeMonitor:
    """A Unix socket answering like QEMU's human monitor; answers[i] handles connection i:
    None closes at once, else a function (command) -> output, run before the prompt."""

    def __init__(self, path, answers):
        if os.path.exists(path):
            os.unlink(path)
        self.srv = socket.socket(socket.AF_UNIX)
        self.srv.bind(path)
        self.srv.listen(8)
        self.answers = list(answers)
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        for answer in self.answers:
            conn, _ = self.srv.accept()
            with conn:
                if answer is None:
                    continue
                conn.sendall(b"QEMU 10.0.2 monitor\r\n(qemu) ")
                line = b""
                while not line.endswith(b"\n"):
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    line += chunk
                conn.sendall(answer(line.decode().strip()).encode() + b"\r\n(qemu) ")
                conn.recv(1)  # until the client closes


class ScreenReads(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        os.makedirs(os.path.join(self.dir.name, "test-logs"))
        self.sock = os.path.join(self.dir.name, "mon.sock")
        self.test = SimpleNamespace(name="t", stop_marker="fulcrum: halted")
        self.proc = SimpleNamespace(poll=lambda: None)  # QEMU still up
        run.time.sleep = lambda s: None  # no pauses between attempts here

    def tearDown(self):
        self.dir.cleanup()

    def read(self, answers, log):
        FakeMonitor(self.sock, answers)
        return run.read_screen(self.test, self.sock, self.dir.name, log, self.proc)

    def test_no_answer(self):
        text, notes = self.read([None] * run.SCREEN_READS, "")
        self.assertEqual(text, "")
        self.assertEqual(len(notes), run.SCREEN_READS)
        self.assertTrue(all(n.startswith("no answer from the monitor") for n in notes), notes)

    def test_answer_not_understood(self):
        # screendump that writes no file (QEMU says why), then xp that prints junk
        text, notes = self.read([lambda cmd: "Could not open 'x': No such file"] * 3, "fbcon: 1")
        self.assertEqual(text, "")
        self.assertIn("screendump's answer not understood", notes[0])
        self.assertIn("Could not open", notes[0])
        text, notes = self.read([lambda cmd: "junk"] * 3, "no framebuffer")
        self.assertIn("xp's answer not understood (0 of 4000 bytes)", notes[0])

    def vga(self, chars):
        cells = "".join(f"0x{ord(c):02x} 0x07 " for c in chars.ljust(2000))
        return lambda cmd: f"{cmd}\r\n00000000000b8000: {cells}"

    def test_empty_then_retried(self):
        shown = "fulcrum: ready in 0.2 s".ljust(80) + "fulcrum: halted"
        text, notes = self.read([self.vga(""), self.vga(shown)], "no framebuffer")
        self.assertEqual(notes, ["an empty screen"])
        self.assertEqual(text.splitlines()[1], "fulcrum: halted".ljust(80))

    def test_read_again_until_the_stop_marker_shows(self):
        before = "fulcrum: ready in 0.2 s"
        text, notes = self.read([self.vga(before), self.vga(before + " " * 57 + "fulcrum: halted")],
                                "no framebuffer")
        self.assertEqual(notes, ["the screen lacked 'fulcrum: halted'"])
        self.assertIn("fulcrum: halted", text)

    def test_screen_shows_names_the_case(self):
        ctx = SimpleNamespace(screens={}, screen_notes={threading.current_thread().name: "an empty screen"})
        self.assertEqual(run.screen_shows("x")("", ctx), ["could not read the screen: an empty screen"])
        ctx.screen_notes = {}
        self.assertEqual(run.screen_shows("x")("", ctx), ["could not read the screen: never read"])


if __name__ == "__main__":
    unittest.main()
