#!/bin/sh
# PID 1 of the AppArmor guest (test/kernels/apparmor.test.ts): busybox only. Loads the policies
# compiled on the host (apparmor_parser -S) through securityfs, starts a target under each
# profile, and reads its /proc/PID/{maps,exe,ns/pid,environ} from a process confined by
# runner-profiler (and, for comparison, from an unconfined one), all through aa-probe (a static
# program: busybox runs applets without execve, and AppArmor changes profile only at execve).
/bin/busybox --install -s /bin
export PATH=/bin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t securityfs securityfs /sys/kernel/security
mount -t tmpfs -o mode=1777 tmpfs /tmp
exec </dev/null
M=@@apparmor
echo "$M kernel $(uname -r) $(uname -m)"
echo "$M enabled $(cat /sys/module/apparmor/parameters/enabled 2>/dev/null || echo absent)"
for p in /opt/aa/*.bin; do
	if cat "$p" > /sys/kernel/security/apparmor/.load 2>/dev/null; then echo "$M loaded ${p##*/}"; else echo "$M load-failed ${p##*/}"; fi
done
P=/opt/aa/aa-probe
for t in unconfined docker-default cri-containerd.apparmor.d target-readby; do
	if [ $t = unconfined ]; then $P pause & else $P exec $t $P pause & fi
	pid=$!; n=0
	# until the exec into the profile has happened (the probe writes attr/exec, then execs)
	while [ $t != unconfined ] && ! grep -q "^$t " /proc/$pid/attr/current 2>/dev/null && [ $n -lt 100 ]; do sleep 0.1; n=$((n + 1)); done
	echo "$M target $t $(cat /proc/$pid/attr/current)"
	$P exec runner-profiler $P read $pid | sed "s/^/$M read runner-profiler $t /"
	$P read $pid | sed "s/^/$M read unconfined $t /"
	kill $pid
done
dmesg | grep 'apparmor="DENIED"' | sed "s/^/$M dmesg /" | head -20
echo "$M done"
poweroff -f
