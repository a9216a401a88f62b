// SPDX-License-Identifier: GPL-2.0
/*
 * Brute as BPF LSM programs (the BPF flavour's foundation, docs/bpf-flavour.md): fork
 * hierarchies in task local storage, the set-ID privilege boundary at execve(), crashes as
 * Brute.rst defines them ("What counts as a crash"), and a ring buffer of events that
 * brute-bpf-loaded turns into audit records. CO-RE: vmlinux.h comes from the BTF of
 * Debian's stock linux-image-6.12.
 *
 * Every map is pinned by brute-bpf-loaded and reused when it starts again; the programs it
 * loads act only once it makes their generation the control map's (so that a restart never
 * runs two generations at once, nor none).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "brute_bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGBUS 7
#define SIGFPE 8
#define SIGSEGV 11
#define SIGSYS 31
#define SI_USER 0
#define SI_TKILL (-6)
#define PF_KTHREAD 0x00200000
#define MAX_GROUPS 64

/* Set by the loader before loading: the generation these programs belong to. */
const volatile __u64 generation = 0;

struct task_state {
	__u64 hierarchy;	/* 0: not known yet (a task from before the load) */
	__s32 handled_sig;	/* a fault delivered to a handler, remembered; 0: none */
	__s32 handled_code;
	__u32 crashed;		/* group leader's: this process's crash was counted */
	__u32 pad;
};

struct hierarchy {
	__u32 tasks;		/* tasks in it (exits and execs leave it) */
	__u32 faults;		/* crashes counted */
	__u32 boundaries;	/* BRUTE_BOUNDARY_* crossed */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_state);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} task_states SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct hierarchy);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} hierarchies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct brute_state);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} state SEC(".maps");

/* The active generation, apart from the counters: the loader writes it whole. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} control SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} events SEC(".maps");

/* The state, when this generation is the active one. */
static __always_inline struct brute_state *active(void)
{
	__u32 key = 0;
	__u64 *gen = bpf_map_lookup_elem(&control, &key);

	if (!gen || *gen != generation)
		return NULL;
	return bpf_map_lookup_elem(&state, &key);
}

static __u64 new_hierarchy(struct brute_state *st, __u32 boundaries)
{
	struct hierarchy h = { .tasks = 1, .boundaries = boundaries };
	__u64 id = __sync_fetch_and_add(&st->next_hierarchy, 1);

	if (bpf_map_update_elem(&hierarchies, &id, &h, BPF_NOEXIST))
		__sync_fetch_and_add(&st->untracked, 1);
	return id;
}

static void leave_hierarchy(__u64 id)
{
	struct hierarchy *h = bpf_map_lookup_elem(&hierarchies, &id);

	if (h && __sync_sub_and_fetch(&h->tasks, 1) == 0)
		bpf_map_delete_elem(&hierarchies, &id);
}

/*
 * A task's state; a task from before the load gets its process's hierarchy (its group
 * leader's, which gets a new one).
 */
static struct task_state *task_state(struct task_struct *task, struct brute_state *st)
{
	struct task_state *ts, *lts;
	struct task_struct *leader;
	struct hierarchy *h;

	ts = bpf_task_storage_get(&task_states, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ts || ts->hierarchy)
		return ts;
	leader = task->group_leader;
	if (leader && leader != task) {
		lts = bpf_task_storage_get(&task_states, leader, 0,
					   BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (lts) {
			if (!lts->hierarchy)
				lts->hierarchy = new_hierarchy(st, 0);
			h = bpf_map_lookup_elem(&hierarchies, &lts->hierarchy);
			if (h)
				__sync_fetch_and_add(&h->tasks, 1);
			ts->hierarchy = lts->hierarchy;
			return ts;
		}
	}
	ts->hierarchy = new_hierarchy(st, 0);
	return ts;
}

static void fill_subject(struct brute_event *e, struct task_struct *task)
{
	const struct cred *cred = BPF_CORE_READ(task, cred);

	e->pid = BPF_CORE_READ(task, pid);
	e->tgid = BPF_CORE_READ(task, tgid);
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->uid = BPF_CORE_READ(cred, uid.val);
	e->euid = BPF_CORE_READ(cred, euid.val);
	e->suid = BPF_CORE_READ(cred, suid.val);
	e->gid = BPF_CORE_READ(cred, gid.val);
	e->egid = BPF_CORE_READ(cred, egid.val);
	e->auid = BPF_CORE_READ(task, loginuid.val);
	e->ses = BPF_CORE_READ(task, sessionid);
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), task->comm);
}

/* Counts the crash of the current process (once per process: threads that fault together
 * are one crash) if its hierarchy crossed a boundary, and reports it. */
static __always_inline void count_crash(struct task_struct *task, struct task_state *ts,
			struct brute_state *st, int sig, int code, __u32 handled)
{
	struct task_struct *leader = task->group_leader;
	struct task_state *lts = ts;
	struct brute_event *e;
	struct hierarchy *h;
	__u32 faults;

	if (leader && leader != task) {
		lts = bpf_task_storage_get(&task_states, leader, 0,
					   BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!lts)
			return;
	}
	if (__sync_val_compare_and_swap(&lts->crashed, 0, 1) != 0)
		return;
	h = bpf_map_lookup_elem(&hierarchies, &ts->hierarchy);
	if (!h)
		return;
	if (!h->boundaries) {
		__sync_fetch_and_add(&st->crashes_unbounded, 1);
		return;
	}
	faults = __sync_add_and_fetch(&h->faults, 1);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&st->crashes, 1);
		__sync_fetch_and_add(&st->lost_events, 1);
		return;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->type = BRUTE_EV_CRASH;
	e->boundaries = h->boundaries;
	e->hierarchy = ts->hierarchy;
	e->total = __sync_add_and_fetch(&st->crashes, 1);
	e->faults = faults;
	e->sig = sig;
	e->si_code = code;
	e->handled = handled;
	fill_subject(e, task);
	bpf_ringbuf_submit(e, 0);
}

static __always_inline bool fault_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGTRAP || sig == SIGSYS;
}

/* The number the task's own PID namespace gives its process (what the kernel puts in
 * si_pid of a signal the process sends itself). */
static int own_tgid_vnr(struct task_struct *task)
{
	struct pid *pid = BPF_CORE_READ(task, group_leader, thread_pid);
	unsigned int level = BPF_CORE_READ(pid, level);
	int nr = 0;

	if (level > 32)
		return -1;
	bpf_probe_read_kernel(&nr, sizeof(nr),
			      (void *)pid + bpf_core_field_offset(struct pid, numbers) +
			      level * sizeof(struct upid) + bpf_core_field_offset(struct upid, nr));
	return nr;
}

/*
 * A signal about to be delivered, in the receiving task. A crash's signal (Brute.rst, "What
 * counts as a crash"): a fault signal the kernel raised (si_code > 0, SI_KERNEL included),
 * or one of those or SIGABRT the process sent itself (SI_USER, SI_TKILL from its own thread
 * group). With the default action it kills the process: a crash. To a handler: remembered,
 * judged when the process ends.
 */
SEC("tp_btf/signal_deliver")
int BPF_PROG(brute_signal_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct brute_state *st;
	struct task_state *ts;
	unsigned long handler;
	int code, si_pid;

	if (!fault_signal(sig) && sig != SIGABRT)
		return 0;
	if (!info || !ka)
		return 0;
	st = active();
	if (!st)
		return 0;
	code = BPF_CORE_READ(info, si_code);
	if (code <= 0 || sig == SIGABRT) {
		if (code != SI_USER && code != SI_TKILL)
			return 0;
		si_pid = BPF_CORE_READ(info, _sifields._kill._pid);
		if (si_pid != own_tgid_vnr(task))
			return 0;
	}
	handler = (unsigned long)BPF_CORE_READ(ka, sa.sa_handler);
	if (handler == 1)	/* SIG_IGN */
		return 0;
	ts = task_state(task, st);
	if (!ts)
		return 0;
	if (handler == 0) {	/* SIG_DFL: the process dies of it */
		count_crash(task, ts, st, sig, code, BRUTE_HANDLED_NO);
	} else {
		ts->handled_sig = sig;
		ts->handled_code = code;
	}
	return 0;
}

/*
 * A task ends. A fault it handled counts when its process exit()s with the fault's signal
 * still blocked (it never left the handler) or with a non-zero status; a process killed by a
 * signal is the fatal path's. Then the task leaves its hierarchy.
 */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(brute_sched_process_exit, struct task_struct *task)
{
	struct brute_state *st = active();
	struct task_state *ts;
	unsigned long blocked;
	int code, sig;

	if (!st)
		return 0;
	ts = bpf_task_storage_get(&task_states, task, 0, 0);
	if (!ts || !ts->hierarchy)
		return 0;
	sig = ts->handled_sig;
	if (sig > 0 && sig <= 64) {
		code = BPF_CORE_READ(task, exit_code);
		blocked = BPF_CORE_READ(task, blocked.sig[0]);
		if (!(code & 0x7f) &&
		    ((blocked & (1UL << (sig - 1))) || ((code >> 8) & 0xff)))
			count_crash(task, ts, st, sig, ts->handled_code, BRUTE_HANDLED_EXIT);
	}
	leave_hierarchy(ts->hierarchy);
	ts->hierarchy = 0;
	return 0;
}

/* A task is forked: it joins its parent's hierarchy. */
SEC("lsm/task_alloc")
int BPF_PROG(brute_task_alloc, struct task_struct *task, unsigned long clone_flags)
{
	struct task_struct *parent = bpf_get_current_task_btf();
	struct task_state *pts, *ts;
	struct brute_state *st;
	struct hierarchy *h;

	st = active();
	if (!st || (parent->flags & PF_KTHREAD))
		return 0;
	pts = task_state(parent, st);
	if (!pts)
		return 0;
	ts = bpf_task_storage_get(&task_states, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!ts)
		return 0;
	ts->hierarchy = pts->hierarchy;
	ts->handled_sig = 0;
	ts->crashed = 0;
	h = bpf_map_lookup_elem(&hierarchies, &pts->hierarchy);
	if (h)
		__sync_fetch_and_add(&h->tasks, 1);
	return 0;
}

/* Whether the user of @old could take gid @gid by itself: one of its own. */
static bool own_group(const struct cred *old, __u32 gid)
{
	struct group_info *gi = BPF_CORE_READ(old, group_info);
	int i, n = BPF_CORE_READ(gi, ngroups);
	__u32 g;

	if (gid == BPF_CORE_READ(old, gid.val) || gid == BPF_CORE_READ(old, egid.val) ||
	    gid == BPF_CORE_READ(old, sgid.val))
		return true;
	for (i = 0; i < MAX_GROUPS && i < n; i++) {
		g = 0;
		bpf_probe_read_kernel(&g, sizeof(g), &gi->gid[i]);
		if (g == gid)
			return true;
	}
	return false;
}

/*
 * An execve() past its point of no return: the task gets a new hierarchy (the kernel
 * flavour's exec parents and restarts of a task alone are not done here yet); an image
 * started with a user or group ID its user could not take by itself crossed the setid
 * boundary.
 */
SEC("lsm/bprm_committing_creds")
int BPF_PROG(brute_bprm_committing_creds, const struct linux_binprm *bprm)
{
	struct task_struct *task = bpf_get_current_task_btf();
	const struct cred *old = BPF_CORE_READ(task, cred);
	const struct cred *new = BPF_CORE_READ(bprm, cred);
	struct brute_state *st = active();
	struct brute_event *e;
	struct task_state *ts;
	__u32 boundaries = 0;
	__u64 old_hierarchy;
	__u32 euid, egid;

	if (!st)
		return 0;
	ts = task_state(task, st);
	if (!ts)
		return 0;
	euid = BPF_CORE_READ(new, euid.val);
	egid = BPF_CORE_READ(new, egid.val);
	if (BPF_CORE_READ(old, euid.val) != 0) {
		if (euid != BPF_CORE_READ(old, uid.val) && euid != BPF_CORE_READ(old, euid.val) &&
		    euid != BPF_CORE_READ(old, suid.val))
			boundaries |= BRUTE_BOUNDARY_SETID;
		else if (!own_group(old, egid))
			boundaries |= BRUTE_BOUNDARY_SETID;
	}
	old_hierarchy = ts->hierarchy;
	ts->hierarchy = new_hierarchy(st, boundaries);
	ts->handled_sig = 0;
	ts->crashed = 0;
	leave_hierarchy(old_hierarchy);
	if (!boundaries)
		return 0;
	__sync_fetch_and_add(&st->boundaries, 1);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&st->lost_events, 1);
		return 0;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->type = BRUTE_EV_BOUNDARY;
	e->boundaries = boundaries;
	e->hierarchy = ts->hierarchy;
	fill_subject(e, task);
	/* the subject's IDs after the execve() */
	e->euid = euid;
	e->egid = egid;
	e->suid = BPF_CORE_READ(new, suid.val);
	bpf_probe_read_kernel_str(e->path, sizeof(e->path), BPF_CORE_READ(bprm, filename));
	bpf_ringbuf_submit(e, 0);
	return 0;
}
