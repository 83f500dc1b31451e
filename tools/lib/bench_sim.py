"""tools/bench --sim: the simulator (build/tools/fulcrum-sim) as a benchmark system.

A simulated sweep is a folder of plain files, so that any engine that runs shell
commands can run it:

  sweep.json       what the sweep is: its experiments, systems, points, and one entry
                   per job (its number, experiment, point, system, run and command)
  jobs.txt         line N is job N's shell command: fulcrum-sim with the machine, the
                   variant's boot options and --seed RUN, then `echo "sim-exit $?"`, so
                   that the job's output records how it ended
  results/N.out    job N's output, written by whatever ran the job

GNU parallel runs jobs.txt here (--jobs N) or across machines (--sshloginfile FILE,
passed through to it); a Slurm job array runs line $SLURM_ARRAY_TASK_ID per task
(tools/sim/slurm-sweep.sh). load_runs() then reads whatever results/ holds into the
harness's tb.Run records; a job without a result file, or one that failed, is a run
with its error set, as a failed boot is.
"""
import json
import os
import re
import shlex
import shutil
import subprocess

import bench_parse
import bench_table as tb

MANIFEST = "sweep.json"
JOBS = "jobs.txt"
RESULTS = "results"
SIM_EXIT = re.compile(r"^sim-exit (\d+)$")


class SweepError(Exception):
    """A sweep folder that cannot be read or run; the message says why."""


def job_command(sim, machine, options, workload, args, seed):
    """The shell command of one job: one fulcrum-sim run whose output ends with its status."""
    argv = [sim, *machine, "--seed", str(seed), "schedstat", *options.split(), "--", workload,
            *args.split()]
    return f'{shlex.join(argv)} 2>&1; echo "sim-exit $?"'


def result_path(folder, number):
    return os.path.join(folder, RESULTS, f"{number}.out")


def write_sweep(folder, manifest, commands):
    """Writes sweep.json and jobs.txt (commands in job order, job 1 first) into folder and
    makes an empty results/; an old results/ is removed so no stale output is merged."""
    os.makedirs(folder, exist_ok=True)
    shutil.rmtree(os.path.join(folder, RESULTS), ignore_errors=True)
    os.makedirs(os.path.join(folder, RESULTS))
    with open(os.path.join(folder, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    with open(os.path.join(folder, JOBS), "w") as f:
        f.write("".join(c + "\n" for c in commands))


def read_manifest(folder):
    path = os.path.join(folder, MANIFEST)
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise SweepError(f"{path}: {e.strerror} (is {folder} a sweep folder of tools/bench --sim?)")
    except ValueError as e:
        raise SweepError(f"{path}: not JSON: {e}")


def parallel_argv(folder, jobs, sshloginfile=None):
    """GNU parallel's command line for the sweep in folder: job N's output (stdout) goes to
    results/N.out on this machine, wherever the job ran."""
    argv = ["parallel", "--will-cite", "--jobs", str(jobs), "--results",
            os.path.join(folder, RESULTS, "{#}.out"), "--joblog", os.path.join(folder, "joblog.txt")]
    if sshloginfile:
        argv += ["--sshloginfile", sshloginfile]
    return argv + ["::::", os.path.join(folder, JOBS)]


def gnu_parallel_missing():
    """None when GNU parallel is there, else why not (moreutils has a parallel of its own)."""
    path = shutil.which("parallel")
    if not path:
        return "GNU parallel is not installed (Debian package parallel; make deps)"
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as e:
        return f"{path} --version failed: {e}"
    if "GNU parallel" not in out:
        return f"{path} is not GNU parallel (moreutils'?): install Debian package parallel"
    return None


def run_parallel(folder, jobs, sshloginfile=None):
    """Runs every job of the sweep through GNU parallel; returns parallel's exit status
    (the number of failed jobs, capped at 101; a failed job is reported by the merge)."""
    why = gnu_parallel_missing()
    if why:
        raise SweepError(why)
    return subprocess.run(parallel_argv(folder, jobs, sshloginfile), stdin=subprocess.DEVNULL).returncode


def parse_output(text):
    """One job's output -> bench_parse.RunLog, or LogError saying what is wrong with it."""
    lines = text.splitlines()
    status = next((int(m.group(1)) for m in map(SIM_EXIT.match, reversed(lines)) if m), None)
    if status is None:
        raise bench_parse.LogError("no 'sim-exit N' line: the job was cut short or never ran")
    last = [ln.strip() for ln in lines if ln.strip() and not SIM_EXIT.match(ln)]
    if status != 0:
        said = next((ln for ln in last if "FAIL" in ln or ln.startswith("fulcrum-sim:")), None)
        tail = f"; it printed: {said or (last[-1] if last else 'nothing')}"
        raise bench_parse.LogError(f"fulcrum-sim exit status {status}{tail}")
    clean = bench_parse.clean_lines(text)
    starts = [i for i, ln in enumerate(clean) if ln.strip() == "version 15"]
    if not starts:
        raise bench_parse.LogError("no schedstat report at the end of the run (no 'version 15' line)")
    results = [bench_parse.parse_result(ln.strip(), n)
               for n, ln in enumerate(clean[:starts[0]], 1) if ln.strip().startswith("RESULT ")]
    if not results:
        raise bench_parse.LogError("fulcrum-sim exited with status 0 but printed no RESULT lines")
    sched = bench_parse.parse_schedstat(clean, starts[-1])
    return bench_parse.RunLog("fulcrum-sim", 0, results, None, sched, len(clean))


def load_runs(folder, manifest, figure_key):
    """Every job of the manifest as a tb.Run, its figures read from results/N.out.
    figure_key: RESULT line -> figure label (bench_workloads.figure_key)."""
    runs = []
    for job in manifest["jobs"]:
        path = result_path(folder, job["number"])
        point = tuple(tuple(kv) for kv in job["point"])
        rec = tb.Run(job["workload"], point, job["system"], job["run"], kernel="sim",
                     experiment=job["experiment"], log=os.path.relpath(path, folder))
        try:
            with open(path, errors="replace") as f:
                parsed = parse_output(f.read())
        except OSError:
            rec.error = f"no result file {rec.log} (the job did not run, or its output was not collected)"
        except bench_parse.LogError as e:
            rec.error = str(e)
        else:
            for r in parsed.results:
                rec.figures[figure_key(r)] = [r.value, r.unit]
            s = parsed.sched
            rec.sched = {"wasted_ms": None if s.wasted_ns is None else s.wasted_ns / 1e6,
                         "migrations": s.migrations, "pulled": s.pulled, "queued": s.queued_share}
        runs.append(rec)
    return runs
