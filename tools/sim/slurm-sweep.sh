#!/bin/sh
# A tools/bench --sim sweep as a Slurm job array: array task N runs line N of the sweep
# folder's jobs.txt and writes its output to results/N.out, the file GNU parallel would
# have written. The folder must be on a file system every node sees, and the tree's
# build/tools/fulcrum-sim at the path jobs.txt names.
#
#   tools/bench --sim --sim-plan --out /shared/sweep1 --workload compute --sweep tasks=1,10,100 --runs 3
#   sbatch --array=1-$(wc -l < /shared/sweep1/jobs.txt) tools/sim/slurm-sweep.sh /shared/sweep1
#   tools/bench --merge /shared/sweep1        # when every task has ended
#
# A task that never ran leaves no results/N.out; the merge reports that run as failed.
#SBATCH --job-name=fulcrum-sim
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
#SBATCH --time=00:30:00
#SBATCH --output=/dev/null
set -eu

dir=${1:?usage: sbatch --array=1-N slurm-sweep.sh SWEEP-FOLDER}
n=${SLURM_ARRAY_TASK_ID:?not a Slurm array task (SLURM_ARRAY_TASK_ID is unset)}
cmd=$(sed -n "${n}p" "$dir/jobs.txt")
[ -n "$cmd" ] || { echo "slurm-sweep: $dir/jobs.txt has no line $n" >&2; exit 2; }
# Written whole under another name, then renamed, so the merge never reads half a file.
sh -c "$cmd" > "$dir/results/$n.out.part"
mv "$dir/results/$n.out.part" "$dir/results/$n.out"
