# sched_model=: the model as the sysctl and /proc show it, then every user
# test program under it (tests/boot/run.py's user-programs-linux-6.12 test).
sysctl sched_model
/bin/cat /proc/fulcrum/sched_model
/bin/sh /tests/all.sh
/tests/t_sched_attr
