// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - securityfs: /sys/kernel/security/brute/
 *
 * stats:   hierarchies alive, table entries, bans in force, records dropped.
 * targets: the (user, target) table, one line per entry (root only).
 * peers:   the peer table, one line per entry (root only).
 * trusted: the trusted peers (root, CAP_SYS_ADMIN): one line per entry;
 *          a write is one transaction (brute_trust_write()).
 * lift:    lifts bans, forgets counts (root, CAP_SYS_ADMIN); see
 *          brute_fs_parse_lift().
 */

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/inet.h>
#include <linux/init.h>
#include <linux/kdev_t.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>
#include <net/ipv6.h>

#include "audit.h"
#include "common.h"
#include "fs.h"
#include "hierarchy.h"
#include "peer.h"
#include "setup.h"
#include "target.h"
#include "trust.h"

/*
 * Changing the policy needs CAP_SYS_ADMIN, in the credentials that opened
 * the file as in the writer's: a privileged program must not be made to
 * write what an unprivileged opener chose to a descriptor it inherited.
 */
static bool brute_fs_may_write(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN) &&
	       capable(CAP_SYS_ADMIN);
}

static int brute_fs_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m,
		   "hierarchies=%ld targets=%u bans=%d peers=%u peer_bans=%d records_dropped=%llu trusted=%u served_forgotten=%d\n",
		   brute_hierarchy_count(),
		   READ_ONCE(brute_targets.table.count),
		   atomic_read(&brute_targets.table.banned),
		   brute_peers_count(&brute_peers),
		   atomic_read(&brute_peers.table.banned), brute_audit_dropped(),
		   brute_trust_count(),
		   atomic_read(&brute_peers.served_forgotten));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(brute_fs_stats);

static int brute_fs_targets_show(struct seq_file *m, void *v)
{
	brute_targets_show(&brute_targets, m, ktime_get_ns());
	return 0;
}

static int brute_fs_peers_show(struct seq_file *m, void *v)
{
	brute_peers_show(&brute_peers, m, ktime_get_ns());
	return 0;
}

static int brute_fs_targets_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return single_open(file, brute_fs_targets_show, NULL);
}

static int brute_fs_peers_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return single_open(file, brute_fs_peers_show, NULL);
}

static const struct file_operations brute_fs_targets_fops = {
	.open = brute_fs_targets_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static const struct file_operations brute_fs_peers_fops = {
	.open = brute_fs_peers_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int brute_fs_trusted_show(struct seq_file *m, void *v)
{
	brute_trust_show(m);
	return 0;
}

static int brute_fs_trusted_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return single_open(file, brute_fs_trusted_show, NULL);
}

static int brute_fs_trusted_release(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return single_release(inode, file);
}

/* One write is one transaction: all its lines apply, or none. */
static ssize_t brute_fs_trusted_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct brute_trust_update update;
	char *buf;
	int ret;

	if (!brute_fs_may_write(file))
		return -EPERM;
	if (len > BRUTE_TRUST_WRITE_MAX)
		return -EFBIG;
	if (*ppos)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* A NUL would hide what follows it from the parser. */
	ret = strlen(buf) == len ? brute_trust_write(buf, &update) : -EINVAL;
	kfree(buf);
	if (ret)
		return ret;
	if (update.added || update.removed)
		brute_audit_trust(update.added, update.removed,
				  update.entries);
	/* A second write() to this open file is refused: not a transaction. */
	*ppos += len;
	return len;
}

static loff_t brute_fs_trusted_llseek(struct file *file, loff_t offset,
				      int whence)
{
	if (!(file->f_mode & FMODE_READ))
		return noop_llseek(file, offset, whence);
	return seq_lseek(file, offset, whence);
}

static const struct file_operations brute_fs_trusted_fops = {
	.open = brute_fs_trusted_open,
	.read = seq_read,
	.write = brute_fs_trusted_write,
	.llseek = brute_fs_trusted_llseek,
	.release = brute_fs_trusted_release,
};

static int brute_fs_parse_uid(const char *s, kuid_t *uid)
{
	u32 value;

	if (brute_parse_u32(s, &value))
		return -EINVAL;
	*uid = make_kuid(&init_user_ns, value);
	return uid_valid(*uid) ? 0 : -EINVAL;
}

/* The next word of @s, NUL-terminated; @s moves past it. */
static char *brute_fs_word(char **s)
{
	char *word = skip_spaces(*s), *end = word;

	while (*end && !isspace(*end))
		end++;
	if (*end)
		*end++ = '\0';
	*s = end;
	return word;
}

/* "ADDR", "ADDR/PREFIX" (IPv4 or IPv6) or "uid:UID". */
static int brute_fs_parse_peer(char *s, struct brute_peer *peer)
{
	memset(peer, 0, sizeof(*peer));
	if (str_has_prefix(s, "uid:")) {
		peer->family = AF_UNIX;
		return brute_fs_parse_uid(s + 4, &peer->addr.uid);
	}
	/* Peers are kept as IPv4: ::ffff:a.b.c.d/104 is /8. */
	return brute_trust_parse_prefix(s, &peer->family, &peer->prefix,
					&peer->addr.v6, true);
}

/**
 * brute_fs_parse_lift() - Parse a line written to the lift file
 * @buf: The line, NUL-terminated, surrounding white space allowed.
 * @lift: What to lift.
 *
 * The lines: "UID MAJOR:MINOR INO" (that ban; 0:0 0 is the user's
 * overflow entry), "user UID" (every ban of that user), "peer ADDR[/LEN]"
 * or "peer uid:UID" (the peer bans that refuse that address or prefix, or
 * that Unix user, on every endpoint), "peer all" (every peer ban), "all"
 * (every ban), "flush" (every ban and every count: both tables empty).
 * User IDs are the initial user namespace's.
 *
 * Return: 0, or -EINVAL for anything else.
 */
int brute_fs_parse_lift(char *buf, struct brute_lift *lift)
{
	char *line = strim(buf), *uid, *dev, *ino, *minor;
	u32 id, major, min;
	u64 inode;

	memset(lift, 0, sizeof(*lift));
	if (!strcmp(line, "all")) {
		lift->scope = BRUTE_LIFT_ALL;
		return 0;
	}
	if (!strcmp(line, "flush")) {
		lift->scope = BRUTE_LIFT_FLUSH;
		return 0;
	}
	if (str_has_prefix(line, "user ")) {
		lift->scope = BRUTE_LIFT_USER;
		return brute_fs_parse_uid(skip_spaces(line + 5), &lift->key.uid);
	}
	if (str_has_prefix(line, "peer ")) {
		line = skip_spaces(line + 5);
		if (!strcmp(line, "all")) {
			lift->scope = BRUTE_LIFT_PEER_ALL;
			return 0;
		}
		lift->scope = BRUTE_LIFT_PEER;
		return brute_fs_parse_peer(line, &lift->peer);
	}
	uid = brute_fs_word(&line);
	dev = brute_fs_word(&line);
	ino = brute_fs_word(&line);
	minor = strchr(dev, ':');
	if (*skip_spaces(line) || !minor)
		return -EINVAL;
	*minor++ = '\0';
	if (brute_parse_u32(uid, &id) || brute_parse_u32(dev, &major) ||
	    brute_parse_u32(minor, &min) || brute_parse_u64(ino, &inode))
		return -EINVAL;
	if (major >= (1U << (32 - MINORBITS)) || min > MINORMASK)
		return -EINVAL;
	lift->key.uid = make_kuid(&init_user_ns, id);
	if (!uid_valid(lift->key.uid))
		return -EINVAL;
	lift->key.dev = MKDEV(major, min);
	lift->key.ino = inode;
	lift->scope = BRUTE_LIFT_ONE;
	return 0;
}

static int brute_fs_lift(const struct brute_lift *lift)
{
	int targets, peers;

	switch (lift->scope) {
	case BRUTE_LIFT_ONE:
		return brute_targets_lift(&brute_targets, &lift->key, false);
	case BRUTE_LIFT_USER:
		return brute_targets_lift_user(&brute_targets, lift->key.uid);
	case BRUTE_LIFT_PEER:
		return brute_peers_lift(&brute_peers, &lift->peer, false);
	case BRUTE_LIFT_PEER_ALL:
		return brute_peers_lift(&brute_peers, NULL, false);
	case BRUTE_LIFT_ALL:
		targets = brute_targets_lift(&brute_targets, NULL, false);
		peers = brute_peers_lift(&brute_peers, NULL, false);
		return targets < 0 && peers < 0 ? -ENOENT :
		       max(targets, 0) + max(peers, 0);
	case BRUTE_LIFT_FLUSH:
		targets = brute_targets_lift(&brute_targets, NULL, true);
		peers = brute_peers_lift(&brute_peers, NULL, true);
		return targets + peers;
	}
	return -EINVAL;
}

static ssize_t brute_fs_lift_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct brute_lift lift;
	char buf[80];
	int ret;

	if (!brute_fs_may_write(file))
		return -EPERM;
	if (*ppos || !len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (strlen(buf) != len)
		return -EINVAL;
	ret = brute_fs_parse_lift(buf, &lift);
	if (!ret)
		ret = brute_fs_lift(&lift);
	if (ret < 0)
		return ret;
	/* One line per open file: a second write() is refused. */
	*ppos += len;
	return len;
}

static const struct file_operations brute_fs_lift_fops = {
	.write = brute_fs_lift_write,
	.llseek = noop_llseek,
};

static int __init brute_fs_init(void)
{
	struct dentry *dir, *file;

	if (!brute_enabled)
		return 0;
	dir = securityfs_create_dir(BRUTE_NAME, NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	file = securityfs_create_file("stats", 0444, dir, NULL,
				      &brute_fs_stats_fops);
	if (IS_ERR(file))
		goto err;
	file = securityfs_create_file("targets", 0400, dir, NULL,
				      &brute_fs_targets_fops);
	if (IS_ERR(file))
		goto err;
	file = securityfs_create_file("peers", 0400, dir, NULL,
				      &brute_fs_peers_fops);
	if (IS_ERR(file))
		goto err;
	file = securityfs_create_file("lift", 0200, dir, NULL,
				      &brute_fs_lift_fops);
	if (IS_ERR(file))
		goto err;
	file = securityfs_create_file("trusted", 0600, dir, NULL,
				      &brute_fs_trusted_fops);
	if (IS_ERR(file))
		goto err;
	return 0;
err:
	securityfs_remove(dir);
	pr_err("cannot create securityfs files: %ld\n", PTR_ERR(file));
	return PTR_ERR(file);
}
fs_initcall(brute_fs_init);

#ifdef CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST

#include <kunit/test.h>

static int test_parse(const char *line, struct brute_lift *lift)
{
	char buf[80];

	strscpy(buf, line, sizeof(buf));
	return brute_fs_parse_lift(buf, lift);
}

static void test_parse_lift(struct kunit *test)
{
	struct brute_lift lift;

	KUNIT_ASSERT_EQ(test, 0, test_parse(" 1000 8:1 1234\n", &lift));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_ONE, lift.scope);
	KUNIT_EXPECT_EQ(test, 1000, from_kuid(&init_user_ns, lift.key.uid));
	KUNIT_EXPECT_EQ(test, MKDEV(8, 1), lift.key.dev);
	KUNIT_EXPECT_EQ(test, 1234, lift.key.ino);
	KUNIT_ASSERT_EQ(test, 0, test_parse("1000 0:0 0", &lift));
	KUNIT_EXPECT_TRUE(test, brute_target_overflow(&lift.key));

	KUNIT_ASSERT_EQ(test, 0, test_parse("all\n", &lift));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_ALL, lift.scope);
	KUNIT_ASSERT_EQ(test, 0, test_parse("flush", &lift));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_FLUSH, lift.scope);
	KUNIT_ASSERT_EQ(test, 0, test_parse("user 1000", &lift));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_USER, lift.scope);
	KUNIT_EXPECT_EQ(test, 1000, from_kuid(&init_user_ns, lift.key.uid));

	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("1000 8:1 1234 extra", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("1000 8-1 1234", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("4294967295 8:1 1", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("1000 8:1048576 1", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("alll", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("user", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("user 12x", &lift));
	/* Numbers that do not fit are refused, never wrapped. */
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("4294968296 8:1 1", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("user 4294968296", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("1000 4294967304:1 1", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_parse("1000 8:1 18446744073709551617", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("+1000 8:1 1", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("1000 8:+1 1", &lift));
	KUNIT_ASSERT_EQ(test, 0, test_parse("  1000   8:1\t1234 ", &lift));
	KUNIT_EXPECT_EQ(test, MKDEV(8, 1), lift.key.dev);
	KUNIT_EXPECT_EQ(test, 1234, lift.key.ino);
}

static void test_parse_lift_peer(struct kunit *test)
{
	struct brute_lift lift;

	KUNIT_ASSERT_EQ(test, 0, test_parse("peer 10.0.2.5", &lift));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_PEER, lift.scope);
	KUNIT_EXPECT_EQ(test, AF_INET, lift.peer.family);
	KUNIT_EXPECT_EQ(test, 32, lift.peer.prefix);
	KUNIT_EXPECT_EQ(test, htonl(0x0a000205), lift.peer.addr.v4);
	KUNIT_ASSERT_EQ(test, 0, test_parse("peer 10.0.2.0/24\n", &lift));
	KUNIT_EXPECT_EQ(test, 24, lift.peer.prefix);
	KUNIT_ASSERT_EQ(test, 0, test_parse("peer 2001:db8::/48", &lift));
	KUNIT_EXPECT_EQ(test, AF_INET6, lift.peer.family);
	KUNIT_EXPECT_EQ(test, 48, lift.peer.prefix);
	KUNIT_EXPECT_EQ(test, htonl(0x20010db8), lift.peer.addr.v6.s6_addr32[0]);
	KUNIT_ASSERT_EQ(test, 0, test_parse("peer 2001:db8::1", &lift));
	KUNIT_EXPECT_EQ(test, 128, lift.peer.prefix);
	KUNIT_ASSERT_EQ(test, 0, test_parse("peer uid:4243", &lift));
	KUNIT_EXPECT_EQ(test, AF_UNIX, lift.peer.family);
	KUNIT_EXPECT_EQ(test, 4243, from_kuid(&init_user_ns, lift.peer.addr.uid));
	KUNIT_ASSERT_EQ(test, 0, test_parse("peer all", &lift));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_PEER_ALL, lift.scope);

	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer 10.0.2.5/33", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer 10.0.2.5/", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer 10.0.2", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer 10.0.2.5 x", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer 2001:db8::/129", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer uid:", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer uid:-1", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer uid:4294968296", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer uid:+1000", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL,
			test_parse("peer 10.0.0.0/4294967304", &lift));
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer 10.0.0.0/+8", &lift));

	/* An IPv4-mapped peer is the IPv4 one, as peers are kept. */
	KUNIT_ASSERT_EQ(test, 0, test_parse("peer ::ffff:10.0.2.5", &lift));
	KUNIT_EXPECT_EQ(test, AF_INET, lift.peer.family);
	KUNIT_EXPECT_EQ(test, 32, lift.peer.prefix);
	KUNIT_EXPECT_EQ(test, htonl(0x0a000205), lift.peer.addr.v4);
	KUNIT_EXPECT_EQ(test, 0, lift.peer.addr.v6.s6_addr32[3]);
	KUNIT_ASSERT_EQ(test, 0, test_parse("peer ::ffff:10.0.0.0/104", &lift));
	KUNIT_EXPECT_EQ(test, AF_INET, lift.peer.family);
	KUNIT_EXPECT_EQ(test, 8, lift.peer.prefix);
	KUNIT_EXPECT_EQ(test, -EINVAL, test_parse("peer ::ffff:10.0.0.0/8", &lift));
}

static struct kunit_case test_fs_cases[] = {
	KUNIT_CASE(test_parse_lift),
	KUNIT_CASE(test_parse_lift_peer),
	{}
};

static struct kunit_suite test_fs_suite = {
	.name = "brute_fs",
	.test_cases = test_fs_cases,
};

kunit_test_suite(test_fs_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
