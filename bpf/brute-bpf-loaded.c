// SPDX-License-Identifier: GPL-2.0
/*
 * brute-bpf-loaded: loads Brute's BPF LSM programs (brute.bpf.c), pins them and their maps
 * under /sys/fs/bpf/brute, and writes an audit record for each event of their ring buffer.
 *
 *   brute-bpf-loaded            load (reusing the pinned maps: their state survives), attach,
 *                               pin, then serve the ring buffer until SIGTERM or SIGINT;
 *                               the programs stay attached when it ends
 *   brute-bpf-loaded --status   the pinned state: counters, hierarchies, generation
 *   brute-bpf-loaded --unload   detach the programs and remove every pin (state is lost)
 *
 * Environment (tests): BRUTE_BPF_PIN_DIR (/sys/fs/bpf/brute), BRUTE_BPF_LSM_FILE
 * (/sys/kernel/security/lsm), BRUTE_BPF_BTF_FILE (/sys/kernel/btf/vmlinux).
 * Exit status: 0, 1 on an error, 2 when this kernel cannot run it (no BPF LSM, no BTF).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/types.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <libaudit.h>
#include "brute_bpf.h"
#include "brute.skel.h"

#define BPF_FS_MAGIC 0xcafe4a11
#define PROG "brute-bpf-loaded"

static volatile sig_atomic_t stop;
static int audit_fd = -1;

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/*
 * The BPF LSM must be active: "bpf" in the comma-separated list of the lsm file. Else say
 * which lsm= to boot with: the active list with bpf added.
 */
static int check_lsm(const char *path)
{
	char list[4096], *tok, *save, *copy;
	bool found = false;
	size_t n;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, PROG ": cannot read %s: %s (is securityfs mounted? "
			"mount -t securityfs securityfs /sys/kernel/security)\n",
			path, strerror(errno));
		return -1;
	}
	n = fread(list, 1, sizeof(list) - 1, f);
	fclose(f);
	list[n] = '\0';
	list[strcspn(list, "\n")] = '\0';
	copy = strdup(list);
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, "bpf"))
			found = true;
	free(copy);
	if (found)
		return 0;
	fprintf(stderr,
		PROG ": the BPF LSM is not active: %s is \"%s\", without bpf.\n"
		PROG ": boot with lsm=%s%sbpf (a kernel built with CONFIG_BPF_LSM=y; Debian's is)\n",
		path, list, list, *list ? "," : "");
	return -1;
}

static int check_btf(const char *path)
{
	if (access(path, R_OK) == 0)
		return 0;
	fprintf(stderr, PROG ": the kernel's BTF is missing: %s: %s (a kernel built with "
		"CONFIG_DEBUG_INFO_BTF=y is needed: Brute's programs are CO-RE)\n",
		path, strerror(errno));
	return -1;
}

/* bpffs on the pin directory's parent (/sys/fs/bpf), mounted if it is not there. */
static int ensure_bpffs(const char *dir)
{
	char parent[PATH_MAX], *slash;
	struct statfs sfs;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (statfs(parent, &sfs) == 0 && sfs.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", parent, "bpf", 0, "mode=0700")) {
		fprintf(stderr, PROG ": %s is not a bpf filesystem and mounting one failed: %s\n",
			parent, strerror(errno));
		return -1;
	}
	return 0;
}

static int mkdir_p(const char *path)
{
	if (mkdir(path, 0700) && errno != EEXIST) {
		fprintf(stderr, PROG ": mkdir %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static const char *boundary_names(__u32 b)
{
	return (b & BRUTE_BOUNDARY_SETID) ? "setid" : "none";
}

/* "NAME=VALUE" with VALUE encoded as audit encodes untrusted strings (quoted, or hex). */
static char *encoded(const char *name, const char *value)
{
	char *s = audit_encode_nv_string(name, value, 0);

	return s ? s : strdup("?");
}

static void report(const char *what, int type, const char *msg)
{
	printf("%s %s\n", what, msg);
	fflush(stdout);
	if (audit_fd < 0)
		return;
	if (audit_log_user_message(audit_fd, type, msg, NULL, NULL, NULL, 1) <= 0)
		fprintf(stderr, PROG ": audit_log_user_message(%d): %s\n", type, strerror(errno));
}

static int handle_event(void *ctx, void *data, size_t size)
{
	const struct brute_event *e = data;
	char comm[BRUTE_COMM_LEN + 1], path[BRUTE_PATH_LEN + 1], msg[1024];
	char *ocomm, *opath;

	(void)ctx;
	if (size < sizeof(*e))
		return 0;
	memcpy(comm, e->comm, BRUTE_COMM_LEN);
	comm[BRUTE_COMM_LEN] = '\0';
	memcpy(path, e->path, BRUTE_PATH_LEN);
	path[BRUTE_PATH_LEN] = '\0';
	ocomm = encoded("ocomm", comm);
	switch (e->type) {
	case BRUTE_EV_CRASH:
		snprintf(msg, sizeof(msg),
			 "brute_hierarchy=%llu sig=%d si_code=%d faults=%u boundaries=%s "
			 "total=%llu%s opid=%u oppid=%u ouid=%u oeuid=%u osuid=%u ogid=%u "
			 "oegid=%u oauid=%u oses=%u %s",
			 (unsigned long long)e->hierarchy, e->sig, e->si_code, e->faults,
			 boundary_names(e->boundaries), (unsigned long long)e->total,
			 e->handled == BRUTE_HANDLED_EXIT ? " handled=exit" : "", e->tgid,
			 e->ppid, e->uid, e->euid, e->suid, e->gid, e->egid, e->auid, e->ses, ocomm);
		report("crash", BRUTE_BPF_AUDIT_CRASH, msg);
		break;
	case BRUTE_EV_BOUNDARY:
		opath = encoded("opath", path);
		snprintf(msg, sizeof(msg),
			 "brute_hierarchy=%llu boundary=%s opid=%u oppid=%u ouid=%u oeuid=%u "
			 "osuid=%u ogid=%u oegid=%u oauid=%u oses=%u %s %s",
			 (unsigned long long)e->hierarchy, boundary_names(e->boundaries), e->tgid,
			 e->ppid, e->uid, e->euid, e->suid, e->gid, e->egid, e->auid, e->ses,
			 ocomm, opath);
		free(opath);
		report("boundary", BRUTE_BPF_AUDIT_BOUNDARY, msg);
		break;
	}
	free(ocomm);
	return 0;
}

/* DIR/NAME into path (PATH_MAX bytes); -1 (ENAMETOOLONG) when it does not fit. */
static int join(char *path, const char *dir, const char *name)
{
	int n = snprintf(path, PATH_MAX, "%s/%s", dir, name);

	if (n < 0 || n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * One loader per pin directory: a lock on the directory itself, held until exit. Two would
 * share the ring buffer's consumer position and write records twice or lose them.
 */
static int lock_dir(const char *dir, const char *busy)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno == EWOULDBLOCK)
			fprintf(stderr, PROG ": another brute-bpf-loaded serves %s: %s\n", dir, busy);
		else
			fprintf(stderr, PROG ": flock %s: %s\n", dir, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int pinned_fd(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if (join(path, dir, name))
		return -1;
	return bpf_obj_get(path);
}

static int status(const char *dir)
{
	int sfd = pinned_fd(dir, "state"), cfd = pinned_fd(dir, "control");
	int hfd = pinned_fd(dir, "hierarchies");
	struct brute_state st;
	__u64 gen = 0, key, next;
	__u32 zero = 0;
	unsigned long n = 0;
	bool first = true;

	if (sfd < 0 || cfd < 0 || hfd < 0) {
		fprintf(stderr, PROG ": nothing pinned under %s (not loaded): %s\n", dir,
			strerror(errno));
		return 1;
	}
	if (bpf_map_lookup_elem(sfd, &zero, &st) || bpf_map_lookup_elem(cfd, &zero, &gen)) {
		fprintf(stderr, PROG ": reading the pinned maps: %s\n", strerror(errno));
		return 1;
	}
	while (bpf_map_get_next_key(hfd, first ? NULL : &key, &next) == 0) {
		key = next;
		first = false;
		n++;
	}
	printf("generation=%llu crashes=%llu crashes_unbounded=%llu boundaries=%llu "
	       "hierarchies=%lu next_hierarchy=%llu lost_events=%llu untracked=%llu\n",
	       (unsigned long long)gen, (unsigned long long)st.crashes,
	       (unsigned long long)st.crashes_unbounded, (unsigned long long)st.boundaries, n,
	       (unsigned long long)st.next_hierarchy, (unsigned long long)st.lost_events,
	       (unsigned long long)st.untracked);
	return 0;
}

static int unload(const char *dir)
{
	char path[PATH_MAX], links[PATH_MAX];
	struct dirent *d;
	DIR *dp;
	int rc = 0;

	if (join(links, dir, "links"))
		return 1;
	if (access(dir, F_OK))
		return 0;	/* nothing loaded */
	if (lock_dir(dir, "stop it first") < 0)
		return 1;
	for (int pass = 0; pass < 2; pass++) {
		const char *where = pass ? dir : links;

		dp = opendir(where);
		if (!dp)
			continue;
		while ((d = readdir(dp))) {
			if (d->d_name[0] == '.' || !strcmp(d->d_name, "links"))
				continue;
			if (join(path, where, d->d_name) || unlink(path)) {
				fprintf(stderr, PROG ": unlink %s: %s\n", path, strerror(errno));
				rc = 1;
			}
		}
		closedir(dp);
	}
	rmdir(links);
	if (rmdir(dir) && errno != ENOENT) {
		fprintf(stderr, PROG ": rmdir %s: %s\n", dir, strerror(errno));
		rc = 1;
	}
	return rc;
}

/* Attach one program, pin its link where the previous generation's was; *old gets that
 * one's descriptor (-1: none), closed once the new generation is active. */
static int attach_pin(struct bpf_program *prog, struct bpf_link **link, const char *links,
		      int *old)
{
	char path[PATH_MAX];

	if (join(path, links, bpf_program__name(prog)))
		return -1;
	*link = bpf_program__attach(prog);
	if (!*link) {
		fprintf(stderr, PROG ": attaching %s: %s\n", bpf_program__name(prog),
			strerror(errno));
		return -1;
	}
	*old = bpf_obj_get(path);
	if (*old >= 0 && unlink(path)) {
		fprintf(stderr, PROG ": unlink %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (bpf_link__pin(*link, path)) {
		fprintf(stderr, PROG ": pinning %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !getenv("BRUTE_BPF_DEBUG"))
		return 0;
	return vfprintf(stderr, fmt, args);
}

static int run(const char *dir)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = dir);
	struct bpf_program *progs[4];
	struct bpf_link **links[4];
	struct ring_buffer *rb = NULL;
	struct brute_state st;
	char linkdir[PATH_MAX];
	struct brute *skel;
	int old[4] = { -1, -1, -1, -1 };
	__u64 gen = 0, rnd = 0;
	__u32 zero = 0;
	int fd, err = 1;

	if (ensure_bpffs(dir) || mkdir_p(dir) || lock_dir(dir, "not starting a second one") < 0)
		return 1;
	if (join(linkdir, dir, "links") || mkdir_p(linkdir))
		return 1;
	fd = pinned_fd(dir, "control");
	if (fd >= 0) {
		bpf_map_lookup_elem(fd, &zero, &gen);
		close(fd);
	}
	gen++;

	skel = brute__open_opts(&opts);
	if (!skel) {
		fprintf(stderr, PROG ": opening the BPF object: %s\n", strerror(errno));
		return 1;
	}
	skel->rodata->generation = gen;
	if (brute__load(skel)) {
		fprintf(stderr, PROG ": loading the BPF programs failed (the verifier's log is "
			"above; BRUTE_BPF_DEBUG=1 for libbpf's). If libbpf could not reuse a map "
			"pinned under %s, it was made by another version: " PROG " --unload "
			"removes it, and the state with it\n", dir);
		goto out;
	}
	/* Maps created now (not reused): hierarchy identifiers start above 2^32, at random. */
	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.state), &zero, &st))
		goto out;
	if (st.next_hierarchy == 0) {
		if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
			rnd = (__u64)getpid() << 16;
		memset(&st, 0, sizeof(st));
		st.next_hierarchy = (1ULL << 32) + (rnd & 0x7fffffffULL);
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.state), &zero, &st, BPF_ANY))
			goto out;
	}

	progs[0] = skel->progs.brute_task_alloc;
	links[0] = &skel->links.brute_task_alloc;
	progs[1] = skel->progs.brute_bprm_committing_creds;
	links[1] = &skel->links.brute_bprm_committing_creds;
	progs[2] = skel->progs.brute_signal_deliver;
	links[2] = &skel->links.brute_signal_deliver;
	progs[3] = skel->progs.brute_sched_process_exit;
	links[3] = &skel->links.brute_sched_process_exit;
	for (int i = 0; i < 4; i++)
		if (attach_pin(progs[i], links[i], linkdir, &old[i]))
			goto out;
	/* The new generation acts from here; the previous one's programs return at once,
	 * and are detached as their links close. */
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.control), &zero, &gen, BPF_ANY)) {
		fprintf(stderr, PROG ": activating generation %llu: %s\n",
			(unsigned long long)gen, strerror(errno));
		goto out;
	}
	for (int i = 0; i < 4; i++)
		if (old[i] >= 0) {
			close(old[i]);
			old[i] = -1;
		}

	audit_fd = audit_open();
	if (audit_fd < 0)
		fprintf(stderr, PROG ": audit_open: %s: events go to standard output only\n",
			strerror(errno));
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), handle_event, NULL, NULL);
	if (!rb) {
		fprintf(stderr, PROG ": ring buffer: %s\n", strerror(errno));
		goto out;
	}
	printf("ready generation=%llu pinned=%s\n", (unsigned long long)gen, dir);
	fflush(stdout);
	while (!stop) {
		int n = ring_buffer__poll(rb, 1000);

		if (n < 0 && n != -EINTR) {
			fprintf(stderr, PROG ": ring buffer: %s\n", strerror(-n));
			goto out;
		}
	}
	err = 0;
out:
	for (int i = 0; i < 4; i++)
		if (old[i] >= 0)
			close(old[i]);
	ring_buffer__free(rb);
	/* Closes our descriptors only: the pinned links keep the programs attached. */
	brute__destroy(skel);
	if (audit_fd >= 0)
		audit_close(audit_fd);
	return err;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [--status | --unload]\n");
}

int main(int argc, char **argv)
{
	const char *dir = env_or("BRUTE_BPF_PIN_DIR", "/sys/fs/bpf/brute");
	struct sigaction sa = { .sa_handler = on_signal };

	libbpf_set_print(libbpf_print);
	if (argc > 2) {
		usage(stderr);
		return 1;
	}
	if (argc == 2) {
		if (!strcmp(argv[1], "--status"))
			return status(dir);
		if (!strcmp(argv[1], "--unload"))
			return unload(dir);
		if (!strcmp(argv[1], "--help")) {
			usage(stdout);
			return 0;
		}
		usage(stderr);
		return 1;
	}
	if (check_lsm(env_or("BRUTE_BPF_LSM_FILE", "/sys/kernel/security/lsm")) ||
	    check_btf(env_or("BRUTE_BPF_BTF_FILE", "/sys/kernel/btf/vmlinux")))
		return 2;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	return run(dir);
}
