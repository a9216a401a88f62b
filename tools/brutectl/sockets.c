// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * brutectl status: the listening TCP, MPTCP and Unix stream sockets of every network
 * namespace and who holds them, from /proc (services.h says which files). There is no
 * library for these files here: each line is checked field by field, what does not fit is
 * counted (never guessed at), and a Unix path is shown only when its line is certain.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "brutectl.h"
#include "services.h"

#define TCP_LISTEN 0x0a		/* include/net/tcp_states.h */
#define SO_ACCEPTCON 0x10000	/* __SO_ACCEPTCON: a listening Unix socket */
#define UNIX_STREAM 1		/* SOCK_STREAM as /proc/net/unix prints it */

/* Exactly n hex digits (upper or lower case) at s. */
static bool hex_n(const char *s, size_t n, uint32_t *out)
{
	uint32_t v = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else
			return false;
	}
	*out = v;
	return true;
}

/* ::ffff:a.b.c.d (IN6_IS_ADDR_V4MAPPED of bytes, whatever their alignment). */
static bool is_v4mapped(const unsigned char *a)
{
	static const unsigned char prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(a, prefix, sizeof(prefix));
}

/* A token of exactly n hex digits. */
static bool hex_tok(const char *t, size_t n, uint32_t *out)
{
	return strlen(t) == n && hex_n(t, n, out);
}

/*
 * "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout
 * inode ...": the kernel prints each 32-bit word of the address as the number it is in
 * memory (%08X of a __be32), the port as a number. Every line's inode goes to *inode. An
 * IPv6 listener bound to an IPv4-mapped address (::ffff:a.b.c.d; only IPv4 peers reach it)
 * is the IPv4 endpoint a.b.c.d, as the kernel's trusted list matches it (laddr= kept
 * IPv4-mapped, compared with the listener's address in that form).
 */
int parse_tcp_line(char *line, int family, struct listener *l, uint64_t *inode)
{
	size_t words = family == AF_INET ? 1 : 4, n = 0;
	char *tok[12], *save = NULL, *t, *colon;
	uint32_t w, port, st;
	uint64_t v;

	for (t = strtok_r(line, " \t", &save); t && n < 12; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if (n < 10)
		return -1;
	/* sl "N:" */
	colon = strchr(tok[0], ':');
	if (!colon || colon[1] || colon == tok[0])
		return -1;
	*colon = '\0';
	if (!parse_u64(tok[0], UINT64_MAX, &v))
		return -1;
	/* local and remote: ADDR:PORT */
	for (int k = 1; k <= 2; k++)
		if (strlen(tok[k]) != words * 8 + 5 || tok[k][words * 8] != ':' ||
		    !hex_n(tok[k] + words * 8 + 1, 4, &port))
			return -1;
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < words; i++) {
		if (!hex_n(tok[1] + 8 * i, 8, &w))
			return -1;
		memcpy(l->laddr + 4 * i, &w, 4);	/* back to the bytes it was printed from */
	}
	if (!hex_n(tok[1] + words * 8 + 1, 4, &port) || !hex_tok(tok[3], 2, &st) ||
	    !parse_u64(tok[7], UINT32_MAX, &v) || !parse_u64(tok[9], UINT64_MAX, inode))
		return -1;
	if (st != TCP_LISTEN)
		return 0;
	l->transport = L_TCP;
	l->family = family;
	if (family == AF_INET6 && is_v4mapped(l->laddr)) {
		memmove(l->laddr, l->laddr + 12, 4);
		memset(l->laddr + 4, 0, 12);
		l->family = AF_INET;
		l->mapped = true;
	}
	l->lport = port;
	l->inode = *inode;
	return 1;
}

/* Skips blanks, then the token at *p (up to a blank or the end) into [tok, tok+len). */
static bool next_tok(const char **p, const char **tok, size_t *len)
{
	const char *s = *p;

	while (*s == ' ')
		s++;
	*tok = s;
	while (*s && *s != ' ')
		s++;
	*len = (size_t)(s - *tok);
	*p = s;
	return *len > 0;
}

/*
 * "Num       RefCount Protocol Flags    Type St Inode Path": "%pK: %08X %08X %08X %04X %02X
 * %5lu", then " PATH" when the socket is bound (*named; its bytes as they are, NUL shown as
 * '@', abstract names start with '@', a newline in it ends the line early). Every line's
 * inode goes to *inode (the caller finds the inodes listed twice: a forged line). The path is
 * not copied here: l->path points into line.
 */
int parse_unix_line(const char *line, struct listener *l, uint64_t *inode, bool *named)
{
	const char *p = line, *t;
	uint32_t refcnt, proto, flags, type, st;
	char num[24];
	size_t len;

	if (!next_tok(&p, &t, &len) || len < 2 || t[len - 1] != ':')
		return -1;
	for (size_t i = 0; i + 1 < len; i++)
		if (!strchr("0123456789abcdefABCDEF", t[i]))
			return -1;
	if (!next_tok(&p, &t, &len) || len != 8 || !hex_n(t, 8, &refcnt) ||
	    !next_tok(&p, &t, &len) || len != 8 || !hex_n(t, 8, &proto) ||
	    !next_tok(&p, &t, &len) || len != 8 || !hex_n(t, 8, &flags) ||
	    !next_tok(&p, &t, &len) || len != 4 || !hex_n(t, 4, &type) ||
	    !next_tok(&p, &t, &len) || len != 2 || !hex_n(t, 2, &st) ||
	    !next_tok(&p, &t, &len) || len >= sizeof(num))
		return -1;
	memcpy(num, t, len);
	num[len] = '\0';
	if (!parse_u64(num, UINT64_MAX, inode))
		return -1;
	if (*p && *p != ' ')
		return -1;
	*named = *p == ' ';
	if (!(flags & SO_ACCEPTCON) || type != UNIX_STREAM)
		return 0;
	memset(l, 0, sizeof(*l));
	l->transport = L_UNIX;
	l->inode = *inode;
	if (*p == ' ' && p[1]) {
		l->path = (char *)(p + 1);
		l->path_len = strlen(p + 1);
	}
	return 1;
}

/* A systemd unit name as systemd makes them (unit_name_is_valid(): its characters, a
 * suffix of a unit that holds processes). */
static bool unit_name_ok(const char *s, size_t n)
{
	static const char *const suffixes[] = { ".service", ".scope", ".socket", ".mount", ".swap" };

	if (n == 0 || n > 255)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@",
			    s[i]))
			return false;
	for (size_t k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++) {
		size_t sl = strlen(suffixes[k]);

		if (n > sl && !memcmp(s + n - sl, suffixes[k], sl))
			return true;
	}
	return false;
}

/*
 * The unit of a cgroup v2 path: its first component that is not a slice (whatever is below
 * a unit's cgroup is that unit's: a unit with Delegate= may name its sub-cgroups as it
 * likes); under user@UID.service, the user manager's unit the same way.
 */
bool unit_of_cgroup(const char *path, struct listener *l)
{
	const char *p = path, *c;
	bool user = false;
	uint64_t uid = 0;

	l->unit_kind = U_NONE;
	l->unit[0] = '\0';
	while (*p) {
		size_t n;

		while (*p == '/')
			p++;
		c = p;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - c);
		if (n == 0)
			break;
		if (n > 6 && !memcmp(c + n - 6, ".slice", 6))
			continue;
		if (!unit_name_ok(c, n))
			return false;
		if (!user && n > 13 && !memcmp(c, "user@", 5) && !memcmp(c + n - 8, ".service", 8)) {
			char num[16];

			if (n - 13 < sizeof(num)) {
				memcpy(num, c + 5, n - 13);
				num[n - 13] = '\0';
				if (parse_u64(num, UINT32_MAX, &uid)) {
					/* the manager itself, unless one of its units is below */
					memcpy(l->unit, c, n);
					l->unit[n] = '\0';
					l->unit_kind = U_SYSTEM;
					user = true;
					continue;
				}
			}
		}
		memcpy(l->unit, c, n);
		l->unit[n] = '\0';
		l->unit_kind = user ? U_USER : U_SYSTEM;
		l->unit_uid = (uint32_t)uid;
		return true;
	}
	return l->unit_kind != U_NONE;
}

/* ---- the scan --------------------------------------------------------------------------- */

struct proc {
	pid_t pid;
	uint64_t netns;		/* 0: unknown */
	bool read_unit;		/* unit, comm and uid looked up */
	struct listener who;	/* its unit, comm, uid */
};

static int cmp_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_netns_pid(const void *a, const void *b)
{
	const struct proc *x = a, *y = b;

	if (x->netns != y->netns)
		return (x->netns > y->netns) - (x->netns < y->netns);
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

static int cmp_inode(const void *a, const void *b)
{
	const struct listener *x = a, *y = b;

	return (x->inode > y->inode) - (x->inode < y->inode);
}

/* BRUTE_SYSFS_ROOT + /proc/PID/what, malloc'd. */
static char *proc_path(pid_t pid, const char *what)
{
	char rel[96];

	snprintf(rel, sizeof(rel), "/proc/%d/%s", (int)pid, what);
	return sys_path(rel);
}

/* "PREFIX:[N]" (readlink of a /proc ns or fd link) into *n; false otherwise. */
static bool link_inode(const char *path, const char *prefix, uint64_t *n)
{
	char buf[64], num[24];
	size_t pl = strlen(prefix);
	ssize_t len = readlink(path, buf, sizeof(buf) - 1);

	if (len <= (ssize_t)pl + 2)
		return false;
	buf[len] = '\0';
	if (strncmp(buf, prefix, pl) || buf[pl] != '[' || buf[len - 1] != ']' ||
	    (size_t)len - pl - 2 >= sizeof(num))
		return false;
	memcpy(num, buf + pl + 1, (size_t)len - pl - 2);
	num[len - pl - 2] = '\0';
	return parse_u64(num, UINT64_MAX, n);
}

struct vec {
	void *v;
	size_t n, cap, size;
};

static void *vec_push(struct vec *a)
{
	if (a->n == a->cap) {
		size_t ncap = a->cap ? 2 * a->cap : 64;
		void *nv = realloc(a->v, ncap * a->size);

		if (!nv)
			return NULL;
		a->v = nv;
		a->cap = ncap;
	}
	return (char *)a->v + a->size * a->n++;
}

/* A path continued on the next line (a newline in the path): "\n" and that line appended. */
static int append_path(struct listener *l, const char *more)
{
	size_t n = strlen(more);
	char *p = realloc(l->path, l->path_len + n + 2);

	if (!p)
		return -ENOMEM;
	p[l->path_len] = '\n';
	memcpy(p + l->path_len + 1, more, n + 1);
	l->path = p;
	l->path_len += n + 1;
	return 0;
}

/* A Unix line's inode, and the listener of the line before it when that line ended with a
 * path (a forged line there means that path went on: it is not shown either). */
struct uline {
	uint64_t inode;
	size_t prev;	/* index in the listeners, or SIZE_MAX */
};

static int push_u64(struct vec *v, uint64_t x)
{
	uint64_t *u = vec_push(v);

	if (!u)
		return -ENOMEM;
	*u = x;
	return 0;
}

/* Appends l (its path copied) to the listeners. */
static int push_listener(struct vec *ls, struct listener *l)
{
	struct listener *nl;

	if (l->path) {
		char *copy = malloc(l->path_len + 1);

		if (!copy)
			return -ENOMEM;
		memcpy(copy, l->path, l->path_len + 1);
		l->path = copy;
	}
	nl = vec_push(ls);
	if (!nl) {
		free(l->path);
		return -ENOMEM;
	}
	*nl = *l;
	return 0;
}

/*
 * The sockets of one namespace: pid's /proc/PID/net/{tcp,tcp6,unix}. Listeners go to ls,
 * every line's inode to inodes, every Unix line to ulines; lines not understood are counted
 * in *bad, but for the rest of a path with a newline in it, which goes back onto its path.
 */
static int read_netns(pid_t pid, uint64_t netns, struct vec *ls, struct vec *inodes,
		      struct vec *ulines, size_t *bad)
{
	static const char *const files[] = { "net/tcp", "net/tcp6", "net/unix" };
	char *line = NULL;
	size_t alloc = 0;
	int ret = 0;

	for (size_t k = 0; k < 3 && !ret; k++) {
		char *path = proc_path(pid, files[k]);
		FILE *f = fopen(path, "re");
		bool header = true, named = false;	/* the last line ended with a path */
		size_t last = SIZE_MAX;	/* the listener of the last line */
		ssize_t len;

		free(path);
		if (!f)
			continue;	/* no IPv6, say */
		while (!ret && (len = getline(&line, &alloc, f)) >= 0) {
			struct listener l;
			struct uline *u;
			uint64_t ino = 0;
			bool was_named = named;
			int r;

			if (len > 0 && line[len - 1] == '\n')
				line[--len] = '\0';
			if (header) {
				header = false;
				if (!strncmp(line, k == 2 ? "Num " : "  sl ", k == 2 ? 4 : 5))
					continue;
			}
			if (strlen(line) != (size_t)len) {
				(*bad)++;	/* a NUL byte: not the kernel's format */
				named = false;
				continue;
			}
			if (k < 2) {
				r = parse_tcp_line(line, k == 0 ? AF_INET : AF_INET6, &l, &ino);
			} else {
				r = parse_unix_line(line, &l, &ino, &named);
				if (r < 0 && was_named) {
					/* the rest of the last line's path, after a newline in it */
					named = true;
					if (last != SIZE_MAX)
						ret = append_path(&((struct listener *)ls->v)[last], line);
					continue;
				}
			}
			if (r < 0) {
				(*bad)++;
				named = false;
				last = SIZE_MAX;
				continue;
			}
			ret = push_u64(inodes, ino);
			if (!ret && k == 2) {
				u = vec_push(ulines);
				if (!u) {
					ret = -ENOMEM;
					break;
				}
				u->inode = ino;
				u->prev = was_named ? last : SIZE_MAX;
			}
			last = SIZE_MAX;
			if (ret || r == 0)
				continue;
			l.netns = netns;
			l.pid = -1;
			ret = push_listener(ls, &l);
			last = ls->n - 1;
		}
		fclose(f);
	}
	free(line);
	return ret;
}

/* comm, user and unit of a process. */
static void read_who(struct proc *p)
{
	char *path, buf[4096];
	struct stat st;
	FILE *f;

	p->read_unit = true;
	path = proc_path(p->pid, "comm");
	if (read_small(path, p->who.comm, sizeof(p->who.comm)))
		snprintf(p->who.comm, sizeof(p->who.comm), "?");
	free(path);
	path = proc_path(p->pid, "");
	if (!stat(path, &st))
		p->who.pid_uid = st.st_uid;
	free(path);
	path = proc_path(p->pid, "cgroup");
	f = fopen(path, "re");
	free(path);
	if (!f)
		return;
	/* cgroup v2 ("0::PATH"), else v1's systemd hierarchy ("N:name=systemd:PATH") */
	while (fgets(buf, sizeof(buf), f)) {
		char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		buf[strcspn(buf, "\n")] = '\0';
		if (!strncmp(buf, "0::", 3)) {
			unit_of_cgroup(c2 + 1, &p->who);
			break;
		}
		if (!strncmp(c1, ":name=systemd:", 14))
			unit_of_cgroup(c2 + 1, &p->who);
	}
	fclose(f);
}

/* Whether the socket at /proc/PID/fd/N is an MPTCP one (sockfs' system.sockprotoname). */
static bool is_mptcp(const char *fdpath)
{
	char name[32];
	ssize_t n = getxattr(fdpath, "system.sockprotoname", name, sizeof(name) - 1);

	if (n <= 0)
		return false;
	name[n] = '\0';
	return !strncmp(name, "MPTCP", 5);
}

/* Whether a unit is systemd itself holding a socket for a service (socket activation). */
static bool is_init(const struct listener *who)
{
	return who->unit_kind == U_SYSTEM && !strcmp(who->unit, "init.scope");
}

int scan_listeners(struct scan *s)
{
	struct vec procs = { .size = sizeof(struct proc) }, ls = { .size = sizeof(struct listener) };
	struct vec inodes = { .size = sizeof(uint64_t) }, ulines = { .size = sizeof(struct uline) };
	char *dir = sys_path("/proc");
	struct listener *lv;
	struct proc *pv;
	struct dirent *d;
	DIR *dp;
	int ret = 0;

	memset(s, 0, sizeof(*s));
	dp = opendir(dir);
	free(dir);
	if (!dp)
		return -errno;
	while ((d = readdir(dp))) {
		struct proc *p;
		uint64_t pid;
		char *path;

		if (!parse_u64(d->d_name, INT32_MAX, &pid) || pid == 0)
			continue;
		p = vec_push(&procs);
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		memset(p, 0, sizeof(*p));
		p->pid = (pid_t)pid;
		path = proc_path(p->pid, "ns/net");
		if (!link_inode(path, "net:", &p->netns))
			p->netns = 0;
		free(path);
	}
	closedir(dp);
	if (ret)
		goto out;
	pv = procs.v;
	if (procs.n)
		qsort(pv, procs.n, sizeof(*pv), cmp_pid);
	s->pids = procs.n;
	/* each namespace's sockets, once, through its first process (by pid) */
	if (procs.n) {
		struct proc *byns = malloc(procs.n * sizeof(*byns));

		if (!byns) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(byns, pv, procs.n * sizeof(*byns));
		qsort(byns, procs.n, sizeof(*byns), cmp_netns_pid);
		for (size_t i = 0; i < procs.n && !ret; i++) {
			if (byns[i].netns == 0 || (i && byns[i - 1].netns == byns[i].netns))
				continue;
			s->netns++;
			ret = read_netns(byns[i].pid, byns[i].netns, &ls, &inodes, &ulines,
					 &s->bad_lines);
		}
		free(byns);
	}
	if (ret)
		goto out;
	lv = ls.v;
	if (!ls.n)
		goto out;	/* nothing listens: no holder to look for */
	/*
	 * An inode on two lines (of any of the files) of a Unix socket: one of them was forged by
	 * a path with a newline in it (TCP lines have no text of a user's). Neither shows its
	 * path, nor does the line before a forged one, whose path went on into it.
	 */
	qsort(inodes.v, inodes.n, sizeof(uint64_t), cmp_u64);
	for (size_t i = 0; i < ulines.n; i++) {
		const struct uline *u = &((struct uline *)ulines.v)[i];
		uint64_t *hit = bsearch(&u->inode, inodes.v, inodes.n, sizeof(uint64_t), cmp_u64);
		uint64_t *first = inodes.v, *end = first + inodes.n;

		if (!hit)
			continue;
		if (!((hit > first && hit[-1] == u->inode) || (hit + 1 < end && hit[1] == u->inode)))
			continue;
		for (size_t k = 0; k < ls.n; k++)
			if (lv[k].transport == L_UNIX && lv[k].inode == u->inode)
				lv[k].ambiguous = true;
		if (u->prev != SIZE_MAX)
			lv[u->prev].ambiguous = true;
	}
	qsort(lv, ls.n, sizeof(*lv), cmp_inode);
	/* one listener per inode (a forged line's copy goes, a TCP one stays) */
	for (size_t i = 1, k = 0; i <= ls.n; i++) {
		if (i < ls.n && lv[i].inode == lv[k].inode) {
			if (lv[k].transport == L_UNIX && lv[i].transport != L_UNIX) {
				struct listener keep = lv[i];

				lv[i] = lv[k];
				lv[k] = keep;
			}
			free(lv[i].path);
			continue;
		}
		if (i < ls.n)
			lv[++k] = lv[i];
		else
			ls.n = k + 1;
	}
	/* who holds each listener */
	for (size_t i = 0; i < procs.n; i++) {
		char *path = proc_path(pv[i].pid, "fd");
		DIR *fd = opendir(path);
		bool denied = false;

		if (!fd) {
			if (errno == EACCES || errno == EPERM)
				s->unreadable++;
			free(path);
			continue;
		}
		while ((d = readdir(fd))) {
			struct listener key, *l;
			char *link;

			if (d->d_name[0] == '.')
				continue;
			if (asprintf(&link, "%s/%s", path, d->d_name) < 0) {
				ret = -ENOMEM;
				break;
			}
			errno = 0;
			if (!link_inode(link, "socket:", &key.inode)) {
				if ((errno == EACCES || errno == EPERM) && !denied) {
					denied = true;	/* another user namespace's, say */
					s->unreadable++;
				}
				free(link);
				continue;
			}
			l = bsearch(&key, lv, ls.n, sizeof(*lv), cmp_inode);
			if (!l) {
				free(link);
				continue;
			}
			if (l->holders++ == 0 && l->transport == L_TCP && is_mptcp(link))
				l->transport = L_MPTCP;
			if (!pv[i].read_unit)
				read_who(&pv[i]);
			/* listed under the first holder's unit; systemd's own (socket activation)
			 * only when no service holds it */
			if (l->pid < 0 || (is_init(l) && !is_init(&pv[i].who))) {
				l->pid = pv[i].pid;
				memcpy(l->comm, pv[i].who.comm, sizeof(l->comm));
				l->pid_uid = pv[i].who.pid_uid;
				l->unit_kind = pv[i].who.unit_kind;
				l->unit_uid = pv[i].who.unit_uid;
				memcpy(l->unit, pv[i].who.unit, sizeof(l->unit));
			}
			free(link);
		}
		closedir(fd);
		free(path);
		if (ret)
			break;
	}
out:
	free(procs.v);
	free(inodes.v);
	free(ulines.v);
	s->v = ls.v;
	s->n = ls.n;
	if (ret)
		scan_free(s);
	return ret;
}

void scan_free(struct scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
