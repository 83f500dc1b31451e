# Every user test program in turn, then the placement variant in use:
# what tests/boot/run.py's seam-proof test runs under another class
# (init="/bin/sh /tests/all.sh"). The list is SEAM_PROGRAMS there.
/tests/t_basic
/tests/t_proc
/tests/t_pipe
/tests/t_socket
/tests/t_thread
/tests/t_fault
/tests/t_limits
/tests/t_files
/tests/t_efault
/tests/t_userland
/tests/t_timers
/tests/t_tmpfs
/tests/t_eventfds
/tests/t_ptimers
/tests/t_misc
/tests/t_shmem
/tests/t_rlimits
sysctl sched_select
