# Busybox applets on files of the initrd, run by busybox's shell (ash):
# tests/boot/run.py's busybox-script test boots Fulcrum with
# init="/bin/ash /tests/busybox.sh" and runs this same script on the host
# with the same busybox (BB_ROOT=user/rootfs, PATH a folder of applet
# links), then compares what the two print between BB-BEGIN and BB-END,
# line by line. Nothing here prints a pid, a time, a memory size or a CPU
# count: those are the documented differences, so the lines that touch
# ps, top, free, uptime and /proc keep only what both kernels must agree
# on (headers, field counts, names). Only files under $R are read, and
# nothing is written (the tree is read-only on Fulcrum).
R=${BB_ROOT:-}
echo BB-BEGIN
cd "$R/tests/bb" && pwd | sed "s|^$R||"
ls
ls -a | sort
ls sub
ls -R sub | sed "s|^$R||"
cat words.txt
cat -n numbers.txt
wc -l words.txt
wc -w < words.txt
wc -c abc.txt
head -n 2 words.txt
tail -n 2 words.txt
sort words.txt
sort -r words.txt
sort -n numbers.txt
sort -u dup.txt
sort dup.txt | uniq -c
grep -n an words.txt
grep -c a words.txt
grep -v e words.txt
grep -i APPLE words.txt
egrep 'ki|ch' words.txt
fgrep -x kiwi words.txt
sed -n 2p words.txt
sed 's/a/A/g' words.txt
sed -e '1d' -e '$d' words.txt
awk '{ print NR ": " $0 }' words.txt
awk -F: '{ print $1, $3 }' "$R/etc/passwd"
awk '{ s += $1 } END { print s }' numbers.txt
cut -c1-3 words.txt
cut -d: -f1,7 "$R/etc/passwd"
tr a-z A-Z < words.txt
rev words.txt
tac words.txt
nl words.txt
paste words.txt numbers.txt
fold -w 3 abc.txt
expand abc.txt
expr 6 \* 7
seq 3
seq 2 2 10
echo $((3 + 4))
printf '%s-%d\n' x 5
basename /a/b/c.txt .txt
dirname /a/b/c.txt
find . -name '*.txt' | sort
find . -type d | sort
find . -type l
echo words.txt numbers.txt | xargs wc -l
md5sum words.txt
sha1sum words.txt
sha256sum words.txt
od -c abc.txt
hexdump -C abc.txt
base64 words.txt
base64 words.txt | base64 -d | head -n 1
cmp words.txt words.txt && echo same
diff words.txt words2.txt; echo "diff: $?"
test -d sub && echo dir
[ -f words.txt ] && echo file
true; echo "true: $?"
false; echo "false: $?"
stat -c '%n %s %F %a' words.txt
stat -c '%F' sub
ls -l words.txt | awk '{ print $1, $5, $NF }'
readlink link
cat link
ls -l link | awk '{ print $(NF-2), $(NF-1), $NF }'
cd sub && pwd | sed "s|^$R||" && cd ..
cd deeper 2>/dev/null || echo "no ./deeper here"
env -i A=1 B=2 env | sort
yes | head -n 3
dd if=words.txt bs=6 count=1 2>/dev/null; echo
tee /dev/null < numbers.txt
id -u
id -g
whoami
uname -m
sh -c 'echo from sh'
ash -c 'exit 3'; echo "ash: $?"
less words.txt | head -n 1
vi --help 2>&1 | head -n 1 | cut -d' ' -f1,2
ps | head -n 1
top -b -n 1 | grep -c '^Mem:'
free | awk 'NR == 2 { print $1, NF }'
uptime | grep -c 'load average'
dmesg > /dev/null && echo 'dmesg: read the log'
readlink /proc/self/exe | xargs basename
awk '{ print $2, $3 }' /proc/self/stat
awk '/^Name:/ { print $2 }' /proc/self/status
cat /proc/self/cmdline | tr '\0' ' '; echo
cat /proc/self/comm
ls /proc/self/ | grep -c '^status$'
head -n 1 /proc/stat | awk '{ print $1 }'
awk '{ print NF }' /proc/loadavg
awk '{ print NF }' /proc/uptime
grep -c '^MemTotal:' /proc/meminfo
echo BB-END
