# The GRUB menu's "benchmark suite" entry (init="/bin/sh /etc/bench-suite.sh"):
# the workloads in turn, unattended, each printing its RESULT lines to every
# console; the machine powers off at the end. Sizes are those of tools/bench's
# quick suite, so a run on a real machine compares with the QEMU tables.
sysctl sched_select
/bin/hackbench -g 1 -l 20
/bin/hackbench -g 2 -l 20
/bin/hackbench -g 4 -l 20
/bin/pipebench -l 5000
/bin/compute -j 10
/bin/wakelat
