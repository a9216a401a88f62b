/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What brute.bpf.c and brute-bpf-loaded share: the events of the ring buffer and the
 * state kept in the pinned "state" map. Included by the BPF object (after vmlinux.h) and
 * by the loader (after <linux/types.h>).
 */
#ifndef BRUTE_BPF_H
#define BRUTE_BPF_H

/* Audit record types of the BPF flavour: user-space messages (2100-2999) mirroring the
 * kernel flavour's 1710-1719 (docs/bpf-flavour.md). */
#define BRUTE_BPF_AUDIT_BOUNDARY 2711
#define BRUTE_BPF_AUDIT_CRASH    2712

enum brute_event_type {
	BRUTE_EV_BOUNDARY = 1,	/* an execve() crossed a privilege boundary */
	BRUTE_EV_CRASH = 2,	/* a crash counted */
};

/* Privilege boundaries, as a bit mask (Brute.rst, "Privilege boundaries"). */
#define BRUTE_BOUNDARY_SETID (1U << 0)

/* How the crash ended its process. */
enum brute_handled {
	BRUTE_HANDLED_NO = 0,	/* the signal's default action */
	BRUTE_HANDLED_EXIT = 1,	/* a handler caught the fault, the process then exit()ed */
};

#define BRUTE_COMM_LEN 16
#define BRUTE_PATH_LEN 128

struct brute_event {
	__u32 type;		/* enum brute_event_type */
	__u32 boundaries;	/* the hierarchy's, BRUTE_BOUNDARY_* */
	__u64 hierarchy;	/* never reused: the state map's counter */
	__u64 total;		/* crashes counted since the maps were created */
	__u32 faults;		/* the hierarchy's counted crashes, this one included */
	__s32 sig;
	__s32 si_code;
	__u32 handled;		/* enum brute_handled */
	__u32 pid, tgid, ppid;	/* the subject, as the initial PID namespace numbers it */
	__u32 uid, euid, suid, gid, egid, auid, ses;
	char comm[BRUTE_COMM_LEN];
	char path[BRUTE_PATH_LEN];	/* boundary: the file executed */
};

/* The single element of the "state" array map. */
struct brute_state {
	__u64 next_hierarchy;	/* next hierarchy identifier (starts above 2^32) */
	__u64 crashes;		/* crashes counted */
	__u64 crashes_unbounded; /* fatal faults of hierarchies that crossed no boundary */
	__u64 boundaries;	/* boundaries crossed */
	__u64 lost_events;	/* events the ring buffer had no room for */
	__u64 untracked;	/* hierarchies the hierarchies map had no room for */
};

#endif
