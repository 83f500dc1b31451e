# /sys/devices/system and /proc/cpuinfo as tools read them, one "path: value"
# line per file: tests/boot/run.py's sysfs-topology test boots the 2s machine
# (2 sockets x 2 cores x 2 threads, a node per socket, SLIT 21) with
# init="/bin/ash /tests/sysfs.sh" and compares the lines with that topology.
cd /sys/devices/system
for f in cpu/online cpu/possible cpu/present node/online cpu/cpu*/topology/* node/node*/cpulist \
	node/node*/distance; do
	echo "$f: $(cat $f)"
done
echo "cpuinfo processors: $(grep -c '^processor' /proc/cpuinfo)"
echo "cpuinfo packages: $(grep '^physical id' /proc/cpuinfo | sort -u | wc -l)"
grep -c 'MemTotal' node/node0/meminfo node/node1/meminfo
stat -f -c 'statfs %n: %T' /sys /proc /
