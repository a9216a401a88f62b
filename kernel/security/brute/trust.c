// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Trusted peers: proxies, load balancers, NAT gateways
 *
 * Everything behind a reverse proxy, a load balancer or a NAT gateway
 * reaches a service from the proxy's address, and everything a local proxy
 * relays (nginx in front of PHP-FPM) comes from the proxy's user.  A crash
 * after such input is charged to nobody: the proxy is never banned, the
 * crash counts for the service's backstop only, and the records name the
 * proxy.  Trusted are:
 *
 * - root, and the users up to trusted_uid_max (999: Debian's system
 *   accounts, such as www-data, postfix and dovenull, which run the fronts
 *   of Debian's own services), as local peers;
 * - what the operator lists in /sys/kernel/security/brute/trusted: address
 *   prefixes and user ID ranges, everywhere or in a network namespace, or
 *   at an endpoint (a listener's port, and bound address).
 *
 * The list is small and read on the crash path only: it is an array,
 * replaced whole (RCU) by each write, which is one transaction.
 */

#include <linux/ctype.h>
#include <linux/inet.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <net/ipv6.h>

#include "common.h"
#include "trust.h"

static struct brute_trust __rcu *brute_trusted;
static DEFINE_MUTEX(brute_trust_mutex);

/* An address as the list keeps it: IPv4 in the first 32 bits. */
static void brute_trust_mask(struct brute_trust_entry *e)
{
	struct in6_addr masked;

	if (e->family == AF_INET) {
		e->addr.s6_addr32[0] &= e->prefix ?
					htonl(~0U << (32 - e->prefix)) : 0;
		return;
	}
	ipv6_addr_prefix(&masked, &e->addr, e->prefix);
	e->addr = masked;
}

/* Two entries are one: the same prefix or range, in the same scope. */
static bool brute_trust_same(const struct brute_trust_entry *a,
			     const struct brute_trust_entry *b)
{
	return a->family == b->family && a->prefix == b->prefix &&
	       ipv6_addr_equal(&a->addr, &b->addr) &&
	       a->uid_first == b->uid_first && a->uid_last == b->uid_last &&
	       a->netns == b->netns && a->lport == b->lport &&
	       a->laddr_set == b->laddr_set &&
	       ipv6_addr_equal(&a->laddr, &b->laddr);
}

/**
 * brute_trust_parse_prefix() - Parse an address prefix
 * @s: "ADDR[/LEN]", NUL-terminated; the slash is overwritten.
 * @family: AF_INET or AF_INET6.
 * @prefix: LEN, or the address's length without one.
 * @addr: The address: an IPv4 one in its first word, the rest zero.
 * @allow_len: A "/LEN" is allowed.
 *
 * An IPv4-mapped address is the IPv4 one, as peers and entries keep it,
 * and its LEN counts IPv6 bits (::ffff:10.0.0.0/104 is 10.0.0.0/8).  LEN
 * is decimal digits that fit.  The trusted list's SPEC and the lift file
 * read addresses with it.
 *
 * Return: 0, or -EINVAL.
 */
int brute_trust_parse_prefix(char *s, u16 *family, u16 *prefix,
			     struct in6_addr *addr, bool allow_len)
{
	char *slash = strchr(s, '/');
	const char *end;
	u32 len, max, skip = 0;

	if (slash) {
		if (!allow_len)
			return -EINVAL;
		*slash = '\0';
	}
	memset(addr, 0, sizeof(*addr));
	if (in4_pton(s, -1, (u8 *)&addr->s6_addr32[0], -1, &end) && !*end) {
		*family = AF_INET;
		max = 32;
	} else if (in6_pton(s, -1, addr->s6_addr, -1, &end) && !*end) {
		if (ipv6_addr_v4mapped(addr)) {
			addr->s6_addr32[0] = addr->s6_addr32[3];
			memset(&addr->s6_addr32[1], 0, 3 * sizeof(__be32));
			*family = AF_INET;
			max = 32;
			/* ::ffff:10.0.0.0/104 is 10.0.0.0/8. */
			skip = 96;
		} else {
			*family = AF_INET6;
			max = 128;
		}
	} else {
		return -EINVAL;
	}
	len = skip + max;
	if (slash && (brute_parse_u32(slash + 1, &len) || len < skip ||
		      len > skip + max))
		return -EINVAL;
	*prefix = len - skip;
	return 0;
}

/* "uid:FIRST[-LAST]", kernel user IDs. */
static int brute_trust_parse_uids(char *s, struct brute_trust_entry *e)
{
	char *dash = strchr(s, '-');

	if (dash)
		*dash = '\0';
	if (brute_parse_u32(s, &e->uid_first))
		return -EINVAL;
	e->uid_last = e->uid_first;
	if (dash && brute_parse_u32(dash + 1, &e->uid_last))
		return -EINVAL;
	if (e->uid_last < e->uid_first || e->uid_last == (u32)-1)
		return -EINVAL;
	e->family = AF_UNIX;
	return 0;
}

/*
 * An entry: "ADDR[/LEN] [netns=INUM] [laddr=ADDR] [lport=PORT]" or
 * "uid:FIRST[-LAST] [netns=INUM]", fields separated by white space, each
 * at most once; laddr= one the peer can reach (it could match nothing else).
 */
static int brute_trust_parse_entry(char *s, struct brute_trust_entry *e)
{
	char *word = strsep(&s, " \t");
	u16 family, prefix;
	bool netns = false;
	u32 port;
	int err;

	memset(e, 0, sizeof(*e));
	if (!word || !*word)
		return -EINVAL;
	if (str_has_prefix(word, "uid:"))
		err = brute_trust_parse_uids(word + 4, e);
	else
		err = brute_trust_parse_prefix(word, &e->family, &e->prefix,
					       &e->addr, true);
	if (err)
		return err;
	if (e->family != AF_UNIX)
		brute_trust_mask(e);
	while ((word = strsep(&s, " \t"))) {
		if (!*word)
			continue;
		if (str_has_prefix(word, "netns=") && !netns) {
			if (brute_parse_u32(word + 6, &e->netns) || !e->netns)
				return -EINVAL;
			netns = true;
		} else if (str_has_prefix(word, "lport=") &&
			   e->family != AF_UNIX && !e->lport) {
			if (brute_parse_u32(word + 6, &port) || !port ||
			    port > 65535)
				return -EINVAL;
			e->lport = port;
		} else if (str_has_prefix(word, "laddr=") &&
			   e->family != AF_UNIX && !e->laddr_set) {
			err = brute_trust_parse_prefix(word + 6, &family,
						       &prefix, &e->laddr,
						       false);
			if (err)
				return err;
			/*
			 * An IPv6 peer never reaches an IPv4 listener, nor an
			 * IPv4 peer an IPv6 one, but on :: (dual-stack).
			 */
			if (family != e->family &&
			    (family == AF_INET || !ipv6_addr_any(&e->laddr)))
				return -EINVAL;
			e->laddr_set = true;
			if (family == AF_INET) {
				/* As endpoints keep it: IPv4-mapped. */
				ipv6_addr_set_v4mapped(e->laddr.s6_addr32[0],
						       &e->laddr);
			}
		} else {
			return -EINVAL;
		}
	}
	if (e->laddr_set && !e->lport)
		return -EINVAL;
	return 0;
}

static struct brute_trust *brute_trust_alloc(unsigned int max)
{
	struct brute_trust *trust;

	trust = kvzalloc(struct_size(trust, entries, max), GFP_KERNEL_ACCOUNT);
	if (trust)
		trust->count = 0;
	return trust;
}

static void brute_trust_free(struct brute_trust *trust)
{
	kvfree(trust);
}

/* Apply one line to @trust (room for BRUTE_TRUST_MAX entries). */
static int brute_trust_apply(struct brute_trust *trust, char *line,
			     struct brute_trust_update *update)
{
	struct brute_trust_entry e;
	unsigned int i;
	char *op;
	int err;

	line = strim(line);
	if (!*line || *line == '#')
		return 0;
	op = strsep(&line, " \t");
	if (!strcmp(op, "flush")) {
		if (line && *skip_spaces(line))
			return -EINVAL;
		update->removed += trust->count;
		trust->count = 0;
		return 0;
	}
	if (!line || (strcmp(op, "add") && strcmp(op, "del")))
		return -EINVAL;
	err = brute_trust_parse_entry(skip_spaces(line), &e);
	if (err)
		return err;
	for (i = 0; i < trust->count; i++)
		if (brute_trust_same(&trust->entries[i], &e))
			break;
	if (!strcmp(op, "add")) {
		if (i < trust->count)
			return 0;
		if (trust->count >= BRUTE_TRUST_MAX)
			return -ENOSPC;
		trust->entries[trust->count++] = e;
		update->added++;
		return 0;
	}
	if (i == trust->count)
		return -ENOENT;
	memmove(&trust->entries[i], &trust->entries[i + 1],
		(trust->count - i - 1) * sizeof(e));
	trust->count--;
	update->removed++;
	return 0;
}

/**
 * brute_trust_write() - Change the trusted list
 * @buf: One transaction: lines "add SPEC", "del SPEC" or "flush",
 *       NUL-terminated; blank lines and lines starting with '#' are
 *       ignored.  Modified.
 * @update: What it changed.
 *
 * SPEC is "ADDR[/LEN] [netns=INUM] [laddr=ADDR] [lport=PORT]" (an address
 * prefix; without /LEN a host) or "uid:FIRST[-LAST] [netns=INUM]" (kernel
 * user IDs).  The lines apply in order to a copy of the list, which
 * replaces it only if every line applied: all or nothing.  Adding an entry
 * that is there already does nothing.
 *
 * Context: Task context.
 * Return: 0, -EINVAL for a malformed line, -ENOENT for the removal of an
 * entry that does not exist, -ENOSPC beyond BRUTE_TRUST_MAX entries,
 * -ENOMEM.
 */
int brute_trust_write(char *buf, struct brute_trust_update *update)
{
	struct brute_trust *old, *new;
	unsigned int i, j;
	char *line;
	int err = 0;

	memset(update, 0, sizeof(*update));
	new = brute_trust_alloc(BRUTE_TRUST_MAX);
	if (!new)
		return -ENOMEM;
	mutex_lock(&brute_trust_mutex);
	old = rcu_dereference_protected(brute_trusted,
					lockdep_is_held(&brute_trust_mutex));
	if (old) {
		new->count = old->count;
		for (i = 0; i < old->count; i++)
			new->entries[i] = old->entries[i];
	}
	while ((line = strsep(&buf, "\n")) && !err)
		err = brute_trust_apply(new, line, update);
	if (err) {
		mutex_unlock(&brute_trust_mutex);
		brute_trust_free(new);
		return err;
	}
	/* Entries that stay keep their counts, taken as late as possible. */
	for (i = 0; old && i < new->count; i++)
		for (j = 0; j < old->count; j++)
			if (brute_trust_same(&new->entries[i],
					     &old->entries[j]))
				atomic_set(&new->entries[i].crashes,
					   atomic_read(&old->entries[j].crashes));
	update->entries = new->count;
	if (!new->count) {
		brute_trust_free(new);
		new = NULL;
	}
	rcu_assign_pointer(brute_trusted, new);
	mutex_unlock(&brute_trust_mutex);
	synchronize_rcu();
	brute_trust_free(old);
	return 0;
}

/**
 * brute_trust_flush() - Empty the trusted list (KUnit)
 */
void brute_trust_flush(void)
{
	struct brute_trust_update update;
	char line[] = "flush";

	brute_trust_write(line, &update);
}

static bool brute_trust_addr(const struct brute_trust_entry *e,
			     const struct brute_peer *peer)
{
	struct in6_addr masked;
	__be32 v4;

	if (e->family != peer->family)
		return false;
	if (e->family == AF_INET) {
		v4 = peer->addr.v4 &
		     (e->prefix ? htonl(~0U << (32 - e->prefix)) : 0);
		return v4 == e->addr.s6_addr32[0];
	}
	ipv6_addr_prefix(&masked, &peer->addr.v6, e->prefix);
	return ipv6_addr_equal(&masked, &e->addr);
}

/* The endpoint is in the entry's scope. */
static bool brute_trust_scope(const struct brute_trust_entry *e,
			      const struct brute_endpoint *ep)
{
	struct in6_addr laddr;

	if (e->netns && e->netns != ep->netns)
		return false;
	if (!e->lport)
		return true;
	if (ep->family == AF_UNIX || e->lport != ep->port)
		return false;
	if (!e->laddr_set)
		return true;
	if (ep->family == AF_INET)
		ipv6_addr_set_v4mapped(ep->addr.v4, &laddr);
	else
		laddr = ep->addr.v6;
	return ipv6_addr_equal(&laddr, &e->laddr);
}

/**
 * brute_trust_peer() - Tell whether a peer is trusted where it sent input
 * @input: The peer (an address, or a local user) and the endpoint.
 * @uid_max: trusted_uid_max: local users 1 .. @uid_max are trusted.
 * @count: Count a crash in the entry that trusts the peer.
 *
 * Root is trusted: it is never charged.
 *
 * Context: Any.
 * Return: True if the peer is trusted at the endpoint.
 */
bool brute_trust_peer(const struct brute_input *input, u32 uid_max,
		      bool count)
{
	const struct brute_peer *const peer = &input->peer;
	struct brute_trust *trust;
	bool trusted = false;
	unsigned int i;
	u32 uid = 0;

	if (peer->family == AF_UNIX) {
		uid = from_kuid(&init_user_ns, peer->addr.uid);
		if (uid == (u32)-1)
			return false;
		if (uid <= uid_max || !uid)
			return true;
	}
	rcu_read_lock();
	trust = rcu_dereference(brute_trusted);
	for (i = 0; trust && i < trust->count && !trusted; i++) {
		struct brute_trust_entry *e = &trust->entries[i];

		if (!brute_trust_scope(e, &input->endpoint))
			continue;
		if (peer->family == AF_UNIX)
			trusted = e->family == AF_UNIX &&
				  uid >= e->uid_first && uid <= e->uid_last;
		else
			trusted = brute_trust_addr(e, peer);
		if (trusted && count)
			atomic_inc(&e->crashes);
	}
	rcu_read_unlock();
	return trusted;
}

/**
 * brute_trust_count() - Count the trusted list's entries
 *
 * Return: How many there are.
 */
unsigned int brute_trust_count(void)
{
	struct brute_trust *trust;
	unsigned int count;

	rcu_read_lock();
	trust = rcu_dereference(brute_trusted);
	count = trust ? trust->count : 0;
	rcu_read_unlock();
	return count;
}

/**
 * brute_trust_show() - List the trusted list
 * @m: Where to print: one line per entry, in the order they were added.
 */
void brute_trust_show(struct seq_file *m)
{
	struct brute_trust *trust;
	unsigned int i;

	rcu_read_lock();
	trust = rcu_dereference(brute_trusted);
	for (i = 0; trust && i < trust->count; i++) {
		const struct brute_trust_entry *e = &trust->entries[i];

		if (e->family == AF_UNIX && e->uid_first == e->uid_last)
			seq_printf(m, "trusted=uid:%u", e->uid_first);
		else if (e->family == AF_UNIX)
			seq_printf(m, "trusted=uid:%u-%u", e->uid_first,
				   e->uid_last);
		else if (e->family == AF_INET)
			seq_printf(m, "trusted=%pI4/%u", &e->addr.s6_addr32[0],
				   e->prefix);
		else
			seq_printf(m, "trusted=%pI6c/%u", &e->addr, e->prefix);
		if (e->netns)
			seq_printf(m, " netns=%u", e->netns);
		if (e->laddr_set && ipv6_addr_v4mapped(&e->laddr))
			seq_printf(m, " laddr=%pI4", &e->laddr.s6_addr32[3]);
		else if (e->laddr_set)
			seq_printf(m, " laddr=%pI6c", &e->laddr);
		if (e->lport)
			seq_printf(m, " lport=%u", e->lport);
		seq_printf(m, " crashes=%u\n", atomic_read(&e->crashes));
	}
	rcu_read_unlock();
}

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

#include "setup.h"

static int test_trust_write(const char *text, struct brute_trust_update *u)
{
	char *buf = kstrdup(text, GFP_KERNEL);
	int err;

	if (!buf)
		return -ENOMEM;
	err = brute_trust_write(buf, u);
	kfree(buf);
	return err;
}

static struct brute_input test_trust_input(u32 addr, u16 port)
{
	struct brute_input input;

	memset(&input, 0, sizeof(input));
	input.endpoint.netns = 4026531840U;
	input.endpoint.family = AF_INET;
	input.endpoint.port = port;
	input.peer.family = AF_INET;
	input.peer.addr.v4 = htonl(addr);
	return input;
}

static int test_trust_init(struct kunit *test)
{
	brute_kunit_require(test);
	/* The running system's list: the suite starts and ends empty. */
	if (brute_trust_count())
		kunit_skip(test, "the trusted list of the system is not empty");
	return 0;
}

static void test_trust_exit(struct kunit *test)
{
	brute_trust_flush();
}

/* Prefixes, scopes and ranges; root and system accounts by default. */
static void test_trust_match(struct kunit *test)
{
	struct brute_trust_update u;
	struct brute_input in = test_trust_input(0x0a000205, 80);

	KUNIT_ASSERT_EQ(test, 0, test_trust_write("add 10.0.0.0/8\n"
						  "add 192.0.2.10 netns=4026531840 lport=443\n"
						  "add 198.51.100.0/24 laddr=10.0.0.1 lport=80\n"
						  "add uid:2000-2099\n"
						  "add 2001:db8::/32\n", &u));
	KUNIT_EXPECT_EQ(test, 5, u.added);
	KUNIT_EXPECT_EQ(test, 5, u.entries);
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));
	in = test_trust_input(0xc000020a, 80);
	KUNIT_EXPECT_FALSE(test, brute_trust_peer(&in, 999, false));
	in.endpoint.port = 443;
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));
	in.endpoint.netns = 4026532000U;
	KUNIT_EXPECT_FALSE(test, brute_trust_peer(&in, 999, false));
	in = test_trust_input(0xc6336407, 80);
	KUNIT_EXPECT_FALSE(test, brute_trust_peer(&in, 999, false));
	in.endpoint.addr.v4 = htonl(0x0a000001);
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));

	in.peer.family = AF_INET6;
	in.peer.addr.v6.s6_addr32[0] = htonl(0x20010db8);
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));
	in.peer.addr.v6.s6_addr32[0] = htonl(0x20010db9);
	KUNIT_EXPECT_FALSE(test, brute_trust_peer(&in, 999, false));

	in.peer.family = AF_UNIX;
	in.peer.addr.uid = KUIDT_INIT(2050);
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));
	in.peer.addr.uid = KUIDT_INIT(2100);
	KUNIT_EXPECT_FALSE(test, brute_trust_peer(&in, 999, false));
	in.peer.addr.uid = KUIDT_INIT(33);
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));
	KUNIT_EXPECT_FALSE(test, brute_trust_peer(&in, 0, false));
	in.peer.addr.uid = GLOBAL_ROOT_UID;
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 0, false));
}

/* A transaction applies whole or not at all. */
static void test_trust_transaction(struct kunit *test)
{
	struct brute_trust_update u;
	struct brute_input in = test_trust_input(0x0a000205, 80);

	KUNIT_ASSERT_EQ(test, 0, test_trust_write("add 10.0.0.0/8", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("flush\nadd 10.1.0.0/16\nadd 300.1.1.1", &u));
	KUNIT_EXPECT_EQ(test, 1, brute_trust_count());
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));
	KUNIT_EXPECT_EQ(test, -ENOENT, test_trust_write("del 10.0.0.0/9", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_trust_write("add 10.0.0.0/33", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add 10.0.0.0 laddr=10.0.0.1", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_trust_write("add uid:5-4", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_trust_write("add uid:5 lport=80", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_trust_write("add", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_trust_write("flush now", &u));
	/* Each field once; digits only; a laddr= the peer could reach. */
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add 10.0.0.1 netns=1 netns=2", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add 10.0.0.1 lport=80 lport=81", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_trust_write("add 10.0.0.0/+8", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_trust_write("add uid:+5", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add 10.0.0.1 lport=+80", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add 10.0.0.1 netns=4294967297", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add 2001:db8::/32 laddr=10.0.0.1 lport=80", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add 10.0.0.1 laddr=::1 lport=80", &u));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_trust_write("add ::ffff:10.0.0.0/8", &u));
	/* An IPv4 peer reaches a dual-stack listener. */
	KUNIT_EXPECT_EQ(test, 0,
			test_trust_write("add 10.0.0.1 laddr=:: lport=80", &u));
	KUNIT_EXPECT_EQ(test, 0,
			test_trust_write("del 10.0.0.1 laddr=:: lport=80", &u));
	KUNIT_EXPECT_EQ(test, 0, test_trust_write("# comment\n\nadd 10.0.0.0/8\n", &u));
	KUNIT_EXPECT_EQ(test, 0, u.added);
	KUNIT_EXPECT_EQ(test, 0, test_trust_write("flush\nadd 10.9.0.0/16", &u));
	KUNIT_EXPECT_EQ(test, 1, u.removed);
	KUNIT_EXPECT_EQ(test, 1, u.added);
	KUNIT_EXPECT_FALSE(test, brute_trust_peer(&in, 999, false));
	KUNIT_EXPECT_EQ(test, 0, test_trust_write("del 10.9.0.0/16", &u));
	KUNIT_EXPECT_EQ(test, 0, brute_trust_count());
	/* An IPv4-mapped prefix counts the IPv6 bits: /104 is a /8. */
	KUNIT_EXPECT_EQ(test, 0, test_trust_write("add ::ffff:10.0.0.0/104", &u));
	KUNIT_EXPECT_EQ(test, 0, test_trust_write("del 10.0.0.0/8", &u));
	KUNIT_EXPECT_EQ(test, 1, u.removed);
	KUNIT_EXPECT_EQ(test, 0, brute_trust_count());
}

/* BRUTE_TRUST_MAX entries at most; the counts of the entries that stay. */
static void test_trust_bounds(struct kunit *test)
{
	struct brute_input in = test_trust_input(0x0a000001, 80);
	struct brute_trust_update u;
	char *buf;
	size_t off = 0;
	unsigned int i;

	buf = kunit_kzalloc(test, BRUTE_TRUST_WRITE_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < BRUTE_TRUST_MAX; i++)
		off += scnprintf(buf + off, BRUTE_TRUST_WRITE_MAX - off,
				 "add 10.%u.%u.1\n", i >> 8, i & 0xff);
	KUNIT_ASSERT_EQ(test, 0, brute_trust_write(buf, &u));
	KUNIT_EXPECT_EQ(test, BRUTE_TRUST_MAX, u.entries);
	KUNIT_EXPECT_EQ(test, -ENOSPC, test_trust_write("add 11.0.0.1", &u));
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, true));
	KUNIT_EXPECT_EQ(test, 0, test_trust_write("del 10.3.255.1", &u));
	KUNIT_EXPECT_TRUE(test, brute_trust_peer(&in, 999, false));
	{
		struct brute_trust *trust;

		rcu_read_lock();
		trust = rcu_dereference(brute_trusted);
		KUNIT_EXPECT_EQ(test, 1, atomic_read(&trust->entries[0].crashes));
		rcu_read_unlock();
	}
}

static struct kunit_case test_trust_cases[] = {
	KUNIT_CASE(test_trust_match),
	KUNIT_CASE(test_trust_transaction),
	KUNIT_CASE(test_trust_bounds),
	{}
};

static struct kunit_suite test_trust_suite = {
	.name = "brute_trust",
	.init = test_trust_init,
	.exit = test_trust_exit,
	.test_cases = test_trust_cases,
};

kunit_test_suite(test_trust_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
