/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gen-stream - write an audit.log-like stream of N records, 1 in 100 of
 * them brute's (hierarchies that cross a boundary, crash, get attacked and
 * killed, deallocate), the rest typical syscall events.
 *   gen-stream RECORDS [OPEN_HIERARCHIES [EVERY]]
 * EVERY: one record in EVERY is brute's (default 100; 1: a stream of brute
 * records only).
 * With OPEN_HIERARCHIES, write that many allocated+boundary hierarchies
 * that are never deallocated (memory benchmark) instead.
 */
#include <stdio.h>
#include <stdlib.h>

#define SUBJ "ppid=1 pid=%u auid=1000 uid=1000 gid=1000 euid=0 suid=0 fsuid=0 egid=1000 sgid=1000 fsgid=1000 tty=pts0 ses=3 comm=\"victim\" exe=\"/usr/local/bin/victim\""

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000;
	unsigned long open_h = argc > 2 ? strtoul(argv[2], NULL, 10) : 0;
	unsigned long every = argc > 3 ? strtoul(argv[3], NULL, 10) : 100;
	unsigned long long h = 4294967296ull + 1000;
	unsigned long serial = 1000, i = 0, t = 1700000000;
	unsigned step = 0;

	if (open_h) {
		for (unsigned long k = 0; k < open_h; k++, h++) {
			printf("type=UNKNOWN[1710] msg=audit(%lu.000:%lu): brute_hierarchy=%llu status=allocated exec_parent=0 " SUBJ "\n",
			       t + k / 1000, serial++, h, (unsigned)(k % 60000));
			printf("type=UNKNOWN[1711] msg=audit(%lu.000:%lu): brute_hierarchy=%llu boundary=network old_uid=0 old_euid=0 old_suid=0 old_fsuid=0 old_gid=0 old_egid=0 old_sgid=0 old_fsgid=0 " SUBJ "\n",
			       t + k / 1000, serial++, h, (unsigned)(k % 60000));
		}
		return 0;
	}
	while (i < n) {
		unsigned ms = (unsigned)(serial % 1000);

		if (every <= 1 || i % every == every - 1) {
			/* the brute record sequence of one hierarchy, 10 records */
			switch (step++ % 10) {
			case 0:
				printf("type=UNKNOWN[1710] msg=audit(%lu.%03u:%lu): brute_hierarchy=%llu status=allocated exec_parent=0 " SUBJ "\n", t, ms, serial, h, 100u);
				break;
			case 1:
				printf("type=UNKNOWN[1711] msg=audit(%lu.%03u:%lu): brute_hierarchy=%llu boundary=setid old_uid=1000 old_euid=1000 old_suid=1000 old_fsuid=1000 old_gid=1000 old_egid=1000 old_sgid=1000 old_fsgid=1000 " SUBJ "\n", t, ms, serial, h, 100u);
				break;
			case 2: case 3: case 4: case 5: case 6:
				printf("type=UNKNOWN[1712] msg=audit(%lu.%03u:%lu): brute_hierarchy=%llu origin=%llu sig=11 code=1 faults=%u period_ms=100 ema_ms=100 " SUBJ "\n", t, ms, serial, h, h, (step - 1) % 10 - 1, 101u);
				break;
			case 7:
				printf("type=UNKNOWN[1713] msg=audit(%lu.%03u:%lu): brute_hierarchy=%llu origin=%llu attack=fork speed=fast faults=5 ema_ms=100 threshold_ms=30000 max_faults=200 brute_mode=2 mitigation=kill " SUBJ "\n", t, ms, serial, h, h, 102u);
				break;
			case 8:
				printf("type=UNKNOWN[1714] msg=audit(%lu.%03u:%lu): brute_hierarchy=%llu opid=100 ouid=1000 oauid=1000 oses=3 ocomm=\"victim\" oexe=\"/usr/local/bin/victim\"\n", t, ms, serial, h);
				break;
			case 9:
				printf("type=UNKNOWN[1710] msg=audit(%lu.%03u:%lu): brute_hierarchy=%llu status=deallocated faults=5 attacks=1 killed=1 boundaries=setid\n", t, ms, serial, h);
				h++;
				break;
			}
			serial++;
			i++;
			continue;
		}
		/* a typical 4-record syscall event */
		switch (i % 4) {
		case 0:
			printf("type=SYSCALL msg=audit(%lu.%03u:%lu): arch=c000003e syscall=257 success=yes exit=3 a0=ffffff9c a1=7ffd2c1e0b10 a2=0 a3=0 items=1 ppid=812 pid=%lu auid=1000 uid=1000 gid=1000 euid=1000 suid=1000 fsuid=1000 egid=1000 sgid=1000 fsgid=1000 tty=pts0 ses=3 comm=\"cat\" exe=\"/usr/bin/cat\" subj=unconfined key=\"etc-read\"\n", t, ms, serial, 2000 + i % 30000);
			break;
		case 1:
			printf("type=CWD msg=audit(%lu.%03u:%lu): cwd=\"/home/user\"\n", t, ms, serial);
			break;
		case 2:
			printf("type=PATH msg=audit(%lu.%03u:%lu): item=0 name=\"/etc/hosts\" inode=1835033 dev=fd:01 mode=0100644 ouid=0 ogid=0 rdev=00:00 nametype=NORMAL cap_fp=0 cap_fi=0 cap_fe=0 cap_fver=0 cap_frootid=0\n", t, ms, serial);
			break;
		case 3:
			printf("type=PROCTITLE msg=audit(%lu.%03u:%lu): proctitle=636174002F6574632F686F737473\n", t, ms, serial);
			serial++;
			if (serial % 1000 == 0)
				t++;
			break;
		}
		i++;
	}
	return 0;
}
