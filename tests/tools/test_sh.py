"""user/sh/ and user/init.c, built with musl-gcc as on Fulcrum, run on the host.

The shell runs with scripted input (`sh -c`, a script file, stdin, a
pseudo-terminal) and the host's programs on PATH (the shell honours PATH, so
/bin/echo, tr, sleep... stand in for Fulcrum's programs). The checks cover
quoting and $-expansion, PATH search, exit statuses, pipelines, redirections,
background jobs and wait, syntax errors (and random garbage: never a crash),
signals, and the built-ins; the /proc built-ins are checked both where the
files are missing and, in a private mount namespace, against files planted
where Fulcrum's procfs puts them.

init runs as an ordinary process (it then exits with the program's status
instead of powering off) and as pid 1 of a new pid namespace, where its
reboot(POWER_OFF) with the right magic numbers makes the kernel end the
namespace with SIGINT, and where it must reap orphans.

A missing musl-gcc fails these tests (`make test` needs musl-tools anyway);
the namespace tests are skipped only where unshare(1) cannot make namespaces.
"""
import glob
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import textwrap
import time
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HOST_PATH = "/usr/local/bin:/usr/bin:/bin"
CFLAGS = ["-static", "-O2", "-g", "-Wall", "-Wextra", "-Werror"]

BUILD = None   # the temporary directory holding the binaries
SH = INIT = None


def setUpModule():
    global BUILD, SH, INIT
    cc = shutil.which("musl-gcc")
    if not cc:
        raise RuntimeError("musl-gcc not found: install musl-tools (tools/install-deps)")
    BUILD = tempfile.mkdtemp(prefix="fulcrum-sh-test.")
    SH, INIT = os.path.join(BUILD, "sh"), os.path.join(BUILD, "init")
    sh_srcs = sorted(glob.glob(os.path.join(TOP, "user/sh/*.c")))
    for out, srcs in ((SH, sh_srcs), (INIT, [os.path.join(TOP, "user/init.c")])):
        subprocess.run([cc, *CFLAGS, "-o", out, *srcs], check=True)


def tearDownModule():
    if BUILD:
        shutil.rmtree(BUILD, ignore_errors=True)


def run_sh(*args, stdin=None, env=None, cwd=None, timeout=30):
    """Runs the shell; env defaults to the host's PATH only."""
    return subprocess.run([SH, *args], input=stdin, capture_output=True, text=True,
                          env={"PATH": HOST_PATH} if env is None else env, cwd=cwd,
                          timeout=timeout)


def can_unshare(*flags):
    try:
        return subprocess.run(["unshare", *flags, "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class Words(unittest.TestCase):
    def test_quoting(self):
        r = run_sh("-c", r"""echo 'a  b' "c  d" e\ f g\\h 'it''s' "q\"q" '$HOME' "" end""")
        self.assertEqual(r.stdout, 'a  b c  d e f g\\h its q"q $HOME  end\n')
        self.assertEqual(r.returncode, 0)

    def test_expansion(self):
        env = {"PATH": HOST_PATH, "GREETING": "hello there"}
        r = run_sh("-c", 'echo $GREETING "[$GREETING]" x$NOPE-y $NOPE "$NOPE" $ z', env=env)
        # No field splitting; an unquoted empty expansion is no word, a quoted one is "".
        self.assertEqual(r.stdout, "hello there [hello there] x-y  $ z\n")

    def test_status_is_expanded_when_its_pipeline_runs(self):
        r = run_sh("-c", "false; echo $?; true; echo $?; false || echo or $?; true && echo and $?")
        self.assertEqual(r.stdout, "1\n0\nor 1\nand 0\n")

    def test_and_or_chains(self):
        r = run_sh("-c", "false && echo no || echo yes; true || echo no && echo yes2")
        self.assertEqual(r.stdout, "yes\nyes2\n")

    def test_pid_variables(self):
        r = run_sh("-c", "echo $$; python3 -c 'import os; print(os.getppid())'; "
                         "sleep 0 & echo $!")
        lines = r.stdout.split()
        self.assertEqual(lines[0], lines[1])
        self.assertRegex(r.stderr, r"^\[1\] %s\n" % lines[2])

    def test_comments(self):
        r = run_sh("-c", "echo a # not this\n# nor this\necho b#c")
        self.assertEqual(r.stdout, "a\nb#c\n")


class Commands(unittest.TestCase):
    def test_path_search_honours_path(self):
        with tempfile.TemporaryDirectory() as d:
            prog = os.path.join(d, "fulcrum-hello")
            with open(prog, "w") as f:
                f.write("#!/bin/sh\necho hello from \"$0\" \"$@\"\n")
            os.chmod(prog, 0o755)
            r = run_sh("-c", "fulcrum-hello a 'b c'", env={"PATH": d + ":" + HOST_PATH})
            self.assertEqual(r.stdout, "hello from %s a b c\n" % prog)
            r = run_sh("-c", "true", env={"PATH": d})
            self.assertEqual((r.returncode, r.stderr), (127, "sh: true: not found\n"))

    def test_default_path_is_bin_and_tests(self):
        r = run_sh("-c", "sh -c 'exit 4'", env={})     # /bin/sh, found through /bin
        self.assertEqual(r.returncode, 4)

    def test_not_found(self):
        r = run_sh("-c", "no-such-command-xyz arg; echo $?")
        self.assertEqual(r.stderr, "sh: no-such-command-xyz: not found\n")
        self.assertEqual(r.stdout, "127\n")
        r = run_sh("-c", "/no/such/file")
        self.assertEqual((r.returncode, r.stderr), (127, "sh: /no/such/file: No such file or directory\n"))

    def test_exec_failure_is_126(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "plain")
            with open(path, "w") as f:
                f.write("echo never\n")
            os.chmod(path, 0o644)
            r = run_sh("-c", path)
            self.assertEqual((r.returncode, r.stderr), (126, "sh: %s: Permission denied\n" % path))
            r = run_sh("-c", "plain", env={"PATH": d})
            self.assertEqual((r.returncode, r.stderr), (126, "sh: plain: Permission denied\n"))

    def test_pipelines(self):
        r = run_sh("-c", "echo hello world | tr a-z A-Z | sed s/O/0/g")
        self.assertEqual(r.stdout, "HELL0 W0RLD\n")
        r = run_sh("-c", "printf '3\\n1\\n2\\n' | sort | head -n 2 | tr '\\n' , | cat | cat | cat | cat")
        self.assertEqual(r.stdout, "1,2,")      # 8 commands, the limit
        r = run_sh("-c", "true | false; echo $?; false | true; echo $?")
        self.assertEqual(r.stdout, "1\n0\n")
        r = run_sh("-c", "echo x | cat | cat | cat | cat | cat | cat | cat | cat")
        self.assertEqual((r.returncode, r.stderr), (2, "sh: pipeline too long (limit 8)\n"))

    def test_builtins_in_pipelines(self):
        r = run_sh("-c", "echo built in | tr a-z A-Z; help | grep -c '^  [a-z]'")
        self.assertEqual(r.stdout.split("\n")[0], "BUILT IN")
        self.assertGreaterEqual(int(r.stdout.split("\n")[1]), 10)

    def test_redirections(self):
        with tempfile.TemporaryDirectory() as d:
            r = run_sh("-c", "echo one > f; /bin/echo two >> f; tr a-z A-Z < f > g; cat g; "
                             "echo three > f; cat < f", cwd=d)
            self.assertEqual(r.stdout, "ONE\nTWO\nthree\n")
            r = run_sh("-c", "cat < missing; echo $?; echo x > /; echo $?", cwd=d)
            self.assertEqual(r.stdout, "1\n1\n")
            self.assertEqual(r.stderr, "sh: missing: No such file or directory\n"
                                       "sh: /: Is a directory\n")
            r = run_sh("-c", "help > /dev/null; echo quiet")
            self.assertEqual(r.stdout, "quiet\n")

    def test_semicolons_and_statuses(self):
        r = run_sh("-c", "echo a; echo b ;echo c;")
        self.assertEqual(r.stdout, "a\nb\nc\n")


class Jobs(unittest.TestCase):
    def test_background_jobs_run_concurrently(self):
        t0 = time.monotonic()
        r = run_sh("-c", "sleep 1 & sleep 1 & wait; echo waited")
        elapsed = time.monotonic() - t0
        self.assertEqual(r.stdout, "waited\n")
        self.assertRegex(r.stderr, r"^\[1\] \d+\n\[2\] \d+\n$")
        self.assertGreaterEqual(elapsed, 0.95)
        self.assertLess(elapsed, 1.9, "the two sleeps did not overlap")

    def test_wait_for_a_pid(self):
        r = run_sh("-c", "sh -c 'sleep 0.2; exit 7' &\nsh -c 'exit 3' &\nwait $!; echo $?\n"
                         "wait 1; echo $?\nwait; echo $?")
        self.assertEqual(r.stdout, "3\n127\n0\n")
        self.assertIn("sh: wait: 1: not a child of this shell\n", r.stderr)

    def test_wait_after_the_job_ended(self):
        r = run_sh("-c", "sh -c 'exit 5' &\nsleep 0.3\nwait $!; echo $?")
        self.assertEqual(r.stdout, "5\n")

    def test_background_stdin_is_dev_null(self):
        r = run_sh(stdin="cat &\nwait\necho after\n")
        self.assertEqual(r.stdout, "after\n")

    def test_programs_get_the_rest_of_the_input(self):
        # The shell reads a byte at a time, so dd finds "hello" unread.
        r = run_sh(stdin="dd bs=1 count=6 status=none\nhello\necho end\n")
        self.assertEqual(r.stdout, "hello\nend\n")

    def test_done_reported_at_the_prompt(self):
        # Each job outlives the line that starts it and ends during the next.
        r = run_sh("-i", stdin="sleep 0.2 &\nsleep 1\nsh -c 'sleep 0.2; exit 3' &\nsleep 1\n"
                               "sh -c 'sleep 0.2; kill $$' &\nsleep 1\n")
        self.assertRegex(r.stderr,
                         r"^fulcrum\$ \[1\] \d+\nfulcrum\$ \[1\] Done\tsleep 0\.2\n"
                         r"fulcrum\$ \[1\] \d+\nfulcrum\$ \[1\] Exit 3\tsh -c sleep 0\.2; exit 3\n"
                         r"fulcrum\$ \[1\] \d+\nfulcrum\$ \[1\] Terminated\tsh -c sleep 0\.2; kill \$\$\n"
                         r"fulcrum\$ exit\n$")

    def test_prompt_only_on_a_terminal(self):
        r = run_sh(stdin="echo hi\n")
        self.assertEqual((r.stdout, r.stderr), ("hi\n", ""))
        import pty
        master, slave = pty.openpty()
        try:
            p = subprocess.Popen([SH], stdin=slave, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env={"PATH": HOST_PATH})
            os.close(slave)
            slave = -1
            os.write(master, b"echo on a tty\nexit 6\n")
            out, err = p.communicate(timeout=20)
        finally:
            if slave >= 0:
                os.close(slave)
            os.close(master)
        self.assertEqual((out, p.returncode), (b"on a tty\n", 6))
        self.assertEqual(err, b"fulcrum$ fulcrum$ ")


class Exits(unittest.TestCase):
    def test_exit_codes(self):
        self.assertEqual(run_sh("-c", "exit 3; echo no").returncode, 3)
        self.assertEqual(run_sh("-c", "false; exit").returncode, 1)
        self.assertEqual(run_sh("-c", "exit 261").returncode, 5)
        r = run_sh("-c", "exit foo")
        self.assertEqual((r.returncode, r.stderr), (2, "sh: exit: foo: numeric argument required\n"))
        r = run_sh("-c", "exit 1 2; echo still here")
        self.assertEqual((r.stdout, r.stderr), ("still here\n", "sh: exit: too many arguments\n"))
        self.assertEqual(run_sh(stdin="false\n").returncode, 1)   # end of input: last status

    def test_script_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sh") as f:
            f.write("echo from script\nexit 9\necho not reached\n")
            f.flush()
            r = run_sh(f.name)
        self.assertEqual((r.stdout, r.returncode), ("from script\n", 9))
        r = run_sh("/no/such/script")
        self.assertEqual((r.returncode, r.stderr), (127, "sh: /no/such/script: No such file or directory\n"))
        self.assertEqual(run_sh("-x").returncode, 2)

    def test_signals(self):
        r = run_sh("-c", "python3 -c 'import os; os.kill(os.getpid(), 11)'; echo $?")
        self.assertEqual((r.stdout, r.stderr), ("139\n", "Segmentation fault\n"))
        r = run_sh("-c", "sh -c 'kill $$'")
        self.assertEqual((r.returncode, r.stderr), (143, "Terminated\n"))
        r = run_sh("-c", "yes | head -n 1; echo $?")     # SIGPIPE: silent
        self.assertEqual((r.stdout, r.stderr), ("y\n0\n", ""))


class Syntax(unittest.TestCase):
    ERRORS = [
        ("echo a |", "sh: syntax error: '|' at end of line"),
        ("| echo a", "sh: syntax error near '|'"),
        ("echo a | | b", "sh: syntax error near '|'"),
        ("echo 'abc", "sh: syntax error: unterminated quote"),
        ('echo "abc', "sh: syntax error: unterminated quote"),
        ("echo abc\\", "sh: syntax error: '\\' at end of line"),
        ("echo >", "sh: syntax error: '>' at end of line"),
        ("cat < ;", "sh: syntax error near ';'"),
        ("> f", "sh: syntax error: a redirection without a command"),
        (";", "sh: syntax error near ';'"),
        ("echo a && && b", "sh: syntax error near '&&'"),
        ("echo a ||", "sh: syntax error: '||' at end of line"),
        ("& echo", "sh: syntax error near '&'"),
        ("echo $NOPE | $NOPE", "sh: a command or file name expanded to nothing"),
    ]

    def test_errors_are_reported_and_the_shell_goes_on(self):
        for line, message in self.ERRORS:
            with self.subTest(line=line), tempfile.TemporaryDirectory() as d:
                r = run_sh(stdin=line + "\necho status $?\n", cwd=d)
                self.assertEqual(r.stderr, message + "\n")
                self.assertEqual(r.stdout, "status %d\n" % (1 if "expanded" in message else 2))
                self.assertEqual(os.listdir(d), [], "a rejected line ran")

    def test_limits(self):
        r = run_sh(stdin="echo " + "x" * 5000 + "\necho ok\n")
        self.assertEqual((r.stdout, r.stderr), ("ok\n", "sh: line too long (limit 4095)\n"))
        r = run_sh("-c", "echo" + " a" * 64)
        self.assertEqual((r.returncode, r.stderr), (2, "sh: too many arguments (limit 64)\n"))
        r = run_sh("-c", "true;" * 32 + "echo too many")
        self.assertEqual((r.returncode, r.stderr), (2, "sh: too many commands (limit 32)\n"))
        env = {"PATH": HOST_PATH, "BIG": "y" * 3000}
        r = run_sh("-c", "echo $BIG $BIG $BIG; echo $?", env=env)
        self.assertEqual(r.stdout, "1\n")
        self.assertEqual(r.stderr, "sh: line too long after expansion (limit 8192)\n")

    def test_random_garbage_never_crashes(self):
        rng = random.Random(5)
        alphabet = "qzx  |&;<>'\"\\$?#!-"
        lines = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
                 for _ in range(400)]
        with tempfile.TemporaryDirectory() as d:
            r = run_sh(stdin="\n".join(lines) + "\nwait\necho survived\n", cwd=d, timeout=120)
        self.assertGreaterEqual(r.returncode, 0, "the shell died of a signal")
        self.assertTrue(r.stdout.endswith("survived\n"), r.stdout[-200:])


class Builtins(unittest.TestCase):
    NAMES = ["cd", "echo", "exit", "help", "nice", "schedstat", "sysctl", "tasks", "taskset",
             "time", "topo", "trace", "wait"]

    def test_help_lists_every_builtin(self):
        r = run_sh("-c", "help")
        listed = re.findall(r"^  (\S+)", r.stdout, re.M)
        self.assertEqual(listed, self.NAMES)

    def test_cd(self):
        """cd changes the shell's own directory (programs after it start there); a bad one is an
        error with status 1 and the directory stays; no argument goes to $HOME."""
        with tempfile.TemporaryDirectory() as d:
            real = os.path.realpath(d)
            r = run_sh("-c", f"cd {real}; /bin/pwd; cd {real}/nosuch; echo $?; /bin/pwd")
            self.assertEqual(r.stdout, f"{real}\n1\n{real}\n")
            self.assertIn(f"sh: cd: {real}/nosuch: No such file or directory", r.stderr)
            r = run_sh("-c", "cd; /bin/pwd", env={"HOME": real, "PATH": "/bin:/usr/bin"})
            self.assertEqual(r.stdout, f"{real}\n")
        self.assertNotIn("There is no cd", run_sh("-c", "help").stdout)

    def test_echo_n(self):
        self.assertEqual(run_sh("-c", "echo -n a b; echo c").stdout, "a bc\n")

    def test_time(self):
        r = run_sh("-c", "time sleep 0.3")
        m = re.fullmatch(r"real (\d+)\.(\d{3})s  user \d+\.\d{3}s  sys \d+\.\d{3}s\n", r.stderr)
        self.assertIsNotNone(m, r.stderr)
        real = int(m.group(1)) + int(m.group(2)) / 1000
        self.assertGreaterEqual(real, 0.3)
        self.assertLess(real, 2.0)
        self.assertEqual(run_sh("-c", "time sh -c 'exit 3'").returncode, 3)
        self.assertEqual(run_sh("-c", "time echo timed").stdout, "timed\n")
        self.assertEqual(run_sh("-c", "time").returncode, 2)

    def test_nice(self):
        r = run_sh("-c", "nice 7 /usr/bin/nice; nice -3 echo ok")
        # -3 needs privilege; as root it works, else setpriority's error and 125.
        if os.geteuid() == 0:
            self.assertEqual(r.stdout, "7\nok\n")
        else:
            self.assertEqual(r.stdout, "7\n")
            self.assertIn("nice: setpriority: Permission denied", r.stderr)
        for bad in ("20", "-21", "x", "1x"):
            r = run_sh("-c", "nice %s true" % bad)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("not a nice value", r.stderr)
        self.assertEqual(run_sh("-c", "nice 5").returncode, 2)

    def test_taskset(self):
        for mask in ("1", "0x1", "0X0001"):
            r = run_sh("-c", "taskset %s grep Cpus_allowed_list /proc/self/status" % mask)
            self.assertEqual(r.stdout.split(), ["Cpus_allowed_list:", "0"], mask)
        r = run_sh("-c", "taskset 2 sh -c 'exit 4'")
        self.assertEqual(r.returncode, 4 if 1 in os.sched_getaffinity(0) else 125)
        for bad in ("0", "xyz", "0x", "1" + "0" * 300):
            r = run_sh("-c", "taskset %s true" % bad)
            self.assertEqual(r.returncode, 2, bad)
        r = run_sh("-c", "taskset 8000000000000000000000 true")   # CPU 87 only: not here
        self.assertEqual(r.returncode, 125)
        self.assertIn("taskset: sched_setaffinity: Invalid argument", r.stderr)

    def test_proc_files_missing(self):
        for cmd, path in (("topo", "/proc/fulcrum/topology"), ("tasks", "/proc/fulcrum/tasks")):
            r = run_sh("-c", cmd)
            self.assertEqual((r.returncode, r.stderr), (1, path + ": not available on this kernel\n"))
        r = run_sh("-c", "schedstat")
        if os.path.exists("/proc/schedstat"):
            self.assertEqual(r.returncode, 0)
            self.assertTrue(r.stdout.startswith("version"))
        else:
            self.assertEqual(r.stderr, "/proc/schedstat: not available on this kernel\n")
        r = run_sh("-c", "sysctl kernel.ostype; sysctl ostype; sysctl no_such_knob; echo $?; "
                         "sysctl ../x a/b kernel. ''; echo $?")
        self.assertEqual(r.stdout, "kernel.ostype = Linux\nostype = Linux\n1\n2\n")
        self.assertEqual(r.stderr, "sysctl: no_such_knob: not available on this kernel\n"
                                   "sysctl: ../x: bad name\nsysctl: a/b: bad name\n"
                                   "sysctl: kernel.: bad name\nsysctl: : bad name\n")

    @unittest.skipUnless(can_unshare("--mount"), "unshare --mount is not permitted here")
    def test_proc_files_present(self):
        """Plants Fulcrum's procfs files on a private tmpfs over /proc."""
        script = textwrap.dedent("""\
            set -e
            mount -t tmpfs fulcrum-test /proc
            mkdir -p /proc/fulcrum /proc/sys/kernel/sched_features
            printf 'cpu0 smt=1\\nnode 0\\n' > /proc/fulcrum/topology
            printf 'pid name cpu\\n1 init 0\\n' > /proc/fulcrum/tasks
            printf 'version 15\\n' > /proc/schedstat
            echo 1 > /proc/sys/kernel/sched_latency_ns
            echo s > /proc/sys/kernel/sched_select
            exec "$0" -c 'topo; tasks; schedstat; sysctl; echo $?
            sysctl sched_latency_ns=6000000 kernel.sched_select=sbm; echo $?
            sysctl sched_features=NO_X; echo $?'
            """)
        r = subprocess.run(["unshare", "--mount", "sh", "-c", script, SH], capture_output=True,
                           text=True, timeout=30, env={"PATH": HOST_PATH})
        self.assertEqual(r.stdout,
                         "cpu0 smt=1\nnode 0\npid name cpu\n1 init 0\nversion 15\n"
                         "sched_latency_ns = 1\nsched_select = s\n0\n"
                         "sched_latency_ns = 6000000\nkernel.sched_select = sbm\n0\n1\n")
        missing = ["sched_min_granularity_ns", "sched_wakeup_granularity_ns",
                   "sched_migration_cost_ns"]
        self.assertEqual(r.stderr,
                         "".join("sysctl: %s: not available on this kernel\n" % m for m in missing)
                         + "sysctl: sched_features: Is a directory\n"
                         + "sysctl: sched_model: not available on this kernel\n"
                         + "sysctl: sched_features: Is a directory\n")


class Init(unittest.TestCase):
    def run_init(self, *args, stdin=None, timeout=30):
        return subprocess.run([INIT, *args], input=stdin, capture_output=True, text=True,
                              timeout=timeout, env={"PATH": HOST_PATH})

    def test_program_with_arguments(self):
        # init="/bin/echo a  b" -- c d
        r = self.run_init("/bin/echo a  b", "c", "d")
        self.assertEqual(r.stdout, "a b c d\ninit: /bin/echo exited with status 0\n")
        self.assertEqual(r.returncode, 0)

    def test_bare_name_is_looked_up_in_bin(self):
        r = self.run_init("echo hi")
        self.assertEqual(r.stdout, "hi\ninit: echo exited with status 0\n")

    def test_environment(self):
        r = self.run_init("/usr/bin/env")
        self.assertEqual(r.stdout, "PATH=/bin:/tests\nHOME=/\nTERM=vt100\n"
                                   "init: /usr/bin/env exited with status 0\n")

    def test_exit_status(self):
        r = self.run_init("/usr/bin/python3 -c raise(SystemExit(7))")
        self.assertEqual((r.stdout, r.returncode), ("init: /usr/bin/python3 exited with status 7\n", 7))

    def test_exec_failure(self):
        r = self.run_init("/no/such/program")
        self.assertEqual(r.stderr, "init: /no/such/program: ENOENT (No such file or directory)\n")
        self.assertEqual(r.stdout, "init: /no/such/program exited with status 127\n")
        self.assertEqual(r.returncode, 127)
        with tempfile.NamedTemporaryFile("w") as f:
            r = self.run_init(f.name)
        self.assertEqual(r.stderr, "init: %s: EACCES (Permission denied)\n" % f.name)

    def test_killed_by_signal(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "segv")
            with open(path, "w") as f:
                f.write("#!/bin/sh\nkill -SEGV $$\n")
            os.chmod(path, 0o755)
            r = self.run_init(path)
        self.assertEqual(r.stdout, "init: %s killed by signal 11 (SIGSEGV)\n" % path)
        self.assertEqual(r.returncode, 128 + 11)

    def test_too_many_arguments(self):
        r = self.run_init("/bin/true" + " x" * 60, *["y"] * 4)
        self.assertEqual(r.stdout, "init: /bin/true: too many arguments (limit 64)\n")
        self.assertEqual(r.returncode, 126)
        r = self.run_init("/bin/true" + " x" * 60, *["y"] * 3)
        self.assertEqual(r.returncode, 0)

    def test_shell_without_a_program(self):
        for args in ((), ("",), ("  ",)):
            r = self.run_init(*args, stdin="echo from the shell\nexit 3\n")
            self.assertRegex(r.stdout, r"^init: \S+ .*: starting /bin/sh \('help' lists")
            self.assertTrue(r.stdout.endswith("from the shell\ninit: /bin/sh exited with status 3\n"),
                            r.stdout)
            self.assertEqual(r.returncode, 3)
        r = self.run_init("", "stray", stdin="exit 0\n")
        self.assertTrue(r.stdout.startswith("init: arguments after -- need init=PROGRAM; ignored\n"))

    @unittest.skipUnless(can_unshare("--pid", "--fork", "--mount-proc"),
                         "unshare --pid is not permitted here")
    def test_pid1_powers_off(self):
        r = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", INIT, "/bin/echo hi"],
                           capture_output=True, text=True, timeout=30)
        self.assertEqual(r.stdout, "hi\ninit: /bin/echo exited with status 0\ninit: powering off\n")
        # reboot(POWER_OFF) in a pid namespace ends its init with SIGINT; unshare passes it on.
        self.assertIn(r.returncode, (-signal.SIGINT, 128 + signal.SIGINT), r.stderr)

    @unittest.skipUnless(can_unshare("--pid", "--fork", "--mount-proc"),
                         "unshare --pid is not permitted here")
    def test_pid1_reaps_orphans(self):
        # The program's child forks a grandchild and exits at once; the
        # grandchild, now init's, exits too. Unless init reaps it, it stays a
        # zombie with an entry in /proc.
        prog = textwrap.dedent("""\
            import os, sys, time
            r, w = os.pipe()
            if os.fork() == 0:
                gpid = os.fork()
                if gpid == 0:
                    time.sleep(0.2)
                    os._exit(0)
                os.write(w, b"%d" % gpid)
                os._exit(0)
            os.wait()
            gpid = int(os.read(r, 32))
            for _ in range(100):
                if not os.path.exists("/proc/%d" % gpid):
                    print("orphan reaped")
                    sys.exit(0)
                time.sleep(0.05)
            print("orphan left a zombie")
            sys.exit(1)
            """)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "orphan.py")
            with open(path, "w") as f:
                f.write(prog)
            r = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", INIT,
                                "/usr/bin/python3 " + path], capture_output=True, text=True,
                               timeout=60)
        self.assertEqual(r.stdout, "orphan reaped\ninit: /usr/bin/python3 exited with status 0\n"
                                   "init: powering off\n", r.stderr)


if __name__ == "__main__":
    unittest.main()
