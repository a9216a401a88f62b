/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * brute-peer-nft - brute-reportd's shipped peer ban action: Brute's peer bans
 * in an nftables set with timeouts, so that the host's firewall (or, with
 * the same set on a router, the edge) drops the banned peer's packets too.
 * Run by brute-peer-nft@.service, which brute-reportd starts for each peer
 * ban and each ban's end (brute-reportd(8), "PEER BAN ACTIONS"), with the
 * event in its environment:
 *
 *   BRUTE_EVENT=ban    add PEER . LPORT to the set, timeout BRUTE_TIMEOUT_S (the ban's
 *                      time left), replacing an element of an earlier ban
 *   BRUTE_EVENT=unban  delete it (an element that timed out already is fine)
 *
 * The table (once, under a lock, so that its rules are never doubled):
 *
 *   table inet brute {
 *     set peers4 { type ipv4_addr . inet_service; flags interval,timeout; }
 *     set peers6 { type ipv6_addr . inet_service; flags interval,timeout; }
 *     chain input { type filter hook input priority filter - 10; policy accept;
 *       ip saddr . tcp dport @peers4 counter drop
 *       ip6 saddr . tcp dport @peers6 counter drop } }
 *
 * as the kernel's ban: the peer (an address or a prefix) at the listener's
 * port, in the network namespace the action runs in (the host's unless its
 * unit says otherwise).  BRUTE_NFT_TABLE names another table.  nft is run
 * with its arguments as an argument vector, never through a shell; every
 * value is checked first (inet_pton, numbers).  Exit 0 done, 1 nft failed,
 * 2 the event is not one this program takes (a message says why).
 * BRUTE_NFT: another nft binary (tests).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#define NFT_DEFAULT "/usr/sbin/nft"
#define TIMEOUT_MAX 4294967295ull	/* the kernel's ban_s is 32 bits */

static const char *nft_path;

static void die(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("brute-peer-nft: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	if (!v || !*v)
		die(2, "%s is not set (this program is run by brute-peer-nft@.service)", name);
	return v;
}

static bool digits(const char *v)
{
	return *v && strspn(v, "0123456789") == strlen(v) && strlen(v) <= 20;
}

/*
 * nft ARGS... with script (may be NULL) on its standard input; its own
 * messages to stderr unless quiet.  The exit status (0: done).
 */
static int nft(const char *script, bool quiet, const char *const *args)
{
	const char *argv[32];
	int in[2], st, n = 0;
	pid_t pid;

	argv[n++] = "nft";
	for (; *args && n < 31; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	if (pipe2(in, O_CLOEXEC) < 0)
		die(1, "pipe: %m");
	pid = fork();
	if (pid < 0)
		die(1, "fork: %m");
	if (pid == 0) {
		static char *const envp[] = { "LC_ALL=C", NULL };
		int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		dup2(in[0], 0);
		if (quiet && null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execve(nft_path, (char *const *)argv, envp);
		fprintf(stderr, "brute-peer-nft: %s: %m\n", nft_path);
		_exit(127);
	}
	close(in[0]);
	if (script && write(in[1], script, strlen(script)) != (ssize_t)strlen(script))
		fprintf(stderr, "brute-peer-nft: writing to nft: %m\n");
	close(in[1]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die(1, "waitpid: %m");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void ensure_table(const char *table)
{
	char script[1024];
	const char *list[] = { "list", "table", "inet", table, NULL };
	const char *file[] = { "-f", "-", NULL };

	if (nft(NULL, true, list) == 0)
		return;
	snprintf(script, sizeof(script),
		 "table inet %s {\n"
		 "\tset peers4 { type ipv4_addr . inet_service; flags interval,timeout; }\n"
		 "\tset peers6 { type ipv6_addr . inet_service; flags interval,timeout; }\n"
		 "\tchain input {\n"
		 "\t\ttype filter hook input priority filter - 10; policy accept;\n"
		 "\t\tip saddr . tcp dport @peers4 counter drop\n"
		 "\t\tip6 saddr . tcp dport @peers6 counter drop\n"
		 "\t}\n"
		 "}\n", table);
	if (nft(script, false, file) != 0)
		die(1, "cannot create the nftables table inet %s", table);
}

int main(void)
{
	const char *event = env("BRUTE_EVENT"), *peer = env("BRUTE_PEER"), *lport = env("BRUTE_LPORT");
	const char *table = getenv("BRUTE_NFT_TABLE"), *set, *slash;
	unsigned char buf[16];
	char addr[64], elem[160], with_timeout[200];
	unsigned long long port, timeout = 0;
	unsigned long len;
	bool ban, v6;
	int lock;

	nft_path = getenv("BRUTE_NFT") && *getenv("BRUTE_NFT") ? getenv("BRUTE_NFT") : NFT_DEFAULT;
	if (!table || !*table)
		table = "brute";
	if (strlen(table) > 32 || strspn(table, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(table))
		die(2, "BRUTE_NFT_TABLE=%s: a table name is [a-z0-9_], 32 characters at most", table);
	if (!strcmp(event, "ban"))
		ban = true;
	else if (!strcmp(event, "unban"))
		ban = false;
	else
		die(2, "BRUTE_EVENT=%s: expected ban or unban", event);
	/* the peer: ADDR/LEN, an address (not uid:N, a local user) */
	slash = strchr(peer, '/');
	if (!slash || (size_t)(slash - peer) >= sizeof(addr) || !digits(slash + 1))
		die(2, "BRUTE_PEER=%s: not an address prefix (a local user has no network address)", peer);
	memcpy(addr, peer, (size_t)(slash - peer));
	addr[slash - peer] = '\0';
	len = strtoul(slash + 1, NULL, 10);
	if (inet_pton(AF_INET, addr, buf) == 1 && len <= 32)
		v6 = false;
	else if (inet_pton(AF_INET6, addr, buf) == 1 && len <= 128)
		v6 = true;
	else
		die(2, "BRUTE_PEER=%s: not an IPv4 or IPv6 address prefix", peer);
	if (!digits(lport) || (port = strtoull(lport, NULL, 10)) < 1 || port > 65535)
		die(2, "BRUTE_LPORT=%s: not a port", lport);
	if (ban) {
		const char *t = env("BRUTE_TIMEOUT_S");

		if (!digits(t) || (timeout = strtoull(t, NULL, 10)) < 1 || timeout > TIMEOUT_MAX)
			die(2, "BRUTE_TIMEOUT_S=%s: expected the ban's time left in seconds", t);
	}
	set = v6 ? "peers6" : "peers4";
	snprintf(elem, sizeof(elem), "%s/%lu . %llu", addr, len, port);
	snprintf(with_timeout, sizeof(with_timeout), "%s timeout %llus", elem, timeout);

	/* one at a time: the table is made once, a delete and its add are not split */
	lock = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX) < 0)
		die(1, "cannot lock: %m");
	ensure_table(table);
	{
		const char *del[] = { "delete", "element", "inet", table, set, "{", elem, "}", NULL };
		const char *get[] = { "get", "element", "inet", table, set, "{", elem, "}", NULL };
		const char *add[] = { "add", "element", "inet", table, set, "{", with_timeout, "}", NULL };

		if (ban) {
			/* a ban of a peer whose element is still there: the new timeout */
			nft(NULL, true, del);
			if (nft(NULL, false, add) != 0)
				die(1, "cannot add %s to inet %s %s", elem, table, set);
			printf("banned %s from port %llu for %llu s (nftables inet %s %s)\n", peer, port,
			       timeout, table, set);
		} else if (nft(NULL, true, del) == 0) {
			printf("ban of %s on port %llu ended (%s): deleted from inet %s %s\n", peer, port,
			       getenv("BRUTE_REASON") ? getenv("BRUTE_REASON") : "?", table, set);
		} else if (nft(NULL, true, get) == 0) {
			die(1, "cannot delete %s from inet %s %s", elem, table, set);
		} else {
			printf("ban of %s on port %llu ended (%s): not in inet %s %s (timed out)\n", peer,
			       port, getenv("BRUTE_REASON") ? getenv("BRUTE_REASON") : "?", table, set);
		}
	}
	return 0;
}
