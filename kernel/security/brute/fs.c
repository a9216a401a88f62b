// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - securityfs: /sys/kernel/security/brute/
 *
 * stats:   hierarchies alive, table entries and bans in force.
 * targets: the (user, target) table, one line per entry (root only).
 * lift:    write "UID MAJOR:MINOR INO" to lift that ban, "all" to lift every
 *          ban, "flush" to forget the whole table (root, CAP_SYS_ADMIN).
 */

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kdev_t.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/uidgid.h>

#include "common.h"
#include "fs.h"
#include "hierarchy.h"
#include "target.h"

static int brute_fs_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "hierarchies=%ld targets=%u bans=%d\n",
		   brute_hierarchy_count(), READ_ONCE(brute_targets.count),
		   atomic_read(&brute_targets.banned));
	return 0;
}

DEFINE_SHOW_ATTRIBUTE(brute_fs_stats);

static int brute_fs_targets_show(struct seq_file *m, void *v)
{
	brute_targets_show(&brute_targets, m, ktime_get_ns());
	return 0;
}

static int brute_fs_targets_open(struct inode *inode, struct file *file)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	return single_open(file, brute_fs_targets_show, NULL);
}

static const struct file_operations brute_fs_targets_fops = {
	.open = brute_fs_targets_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * brute_fs_parse_lift() - Parse a line written to the lift file
 * @buf: The line, NUL-terminated, surrounding white space allowed.
 * @key: The ban to lift, when the line names one.
 * @scope: What to lift.
 *
 * Return: 0, or -EINVAL if the line is not "all", "flush" or
 * "UID MAJOR:MINOR INO" with a user ID of the initial user namespace.
 */
int brute_fs_parse_lift(char *buf, struct brute_target_key *key,
			enum brute_lift_scope *scope)
{
	unsigned int uid, major, minor;
	unsigned long long ino;
	char *line = strim(buf);
	char end;

	if (!strcmp(line, "all")) {
		*scope = BRUTE_LIFT_ALL;
		return 0;
	}
	if (!strcmp(line, "flush")) {
		*scope = BRUTE_LIFT_FLUSH;
		return 0;
	}
	if (sscanf(line, "%u %u:%u %llu%c", &uid, &major, &minor, &ino,
		   &end) != 4)
		return -EINVAL;
	if (major >= (1U << (32 - MINORBITS)) || minor > MINORMASK)
		return -EINVAL;
	key->uid = make_kuid(&init_user_ns, uid);
	if (!uid_valid(key->uid))
		return -EINVAL;
	key->dev = MKDEV(major, minor);
	key->ino = ino;
	*scope = BRUTE_LIFT_ONE;
	return 0;
}

static ssize_t brute_fs_lift_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	struct brute_target_key key;
	enum brute_lift_scope scope;
	char buf[64];
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (*ppos || !len || len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	ret = brute_fs_parse_lift(buf, &key, &scope);
	if (ret)
		return ret;
	switch (scope) {
	case BRUTE_LIFT_ONE:
		ret = brute_targets_lift(&brute_targets, &key, false);
		break;
	case BRUTE_LIFT_ALL:
		ret = brute_targets_lift(&brute_targets, NULL, false);
		break;
	case BRUTE_LIFT_FLUSH:
		ret = brute_targets_lift(&brute_targets, NULL, true);
		break;
	}
	return ret < 0 ? ret : len;
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
	file = securityfs_create_file("lift", 0200, dir, NULL,
				      &brute_fs_lift_fops);
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

static void test_parse_lift(struct kunit *test)
{
	struct brute_target_key key = {};
	enum brute_lift_scope scope;
	char buf[64];

	strscpy(buf, " 1000 8:1 1234\n", sizeof(buf));
	KUNIT_ASSERT_EQ(test, 0, brute_fs_parse_lift(buf, &key, &scope));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_ONE, scope);
	KUNIT_EXPECT_EQ(test, 1000, from_kuid(&init_user_ns, key.uid));
	KUNIT_EXPECT_EQ(test, MKDEV(8, 1), key.dev);
	KUNIT_EXPECT_EQ(test, 1234, key.ino);

	strscpy(buf, "all\n", sizeof(buf));
	KUNIT_ASSERT_EQ(test, 0, brute_fs_parse_lift(buf, &key, &scope));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_ALL, scope);
	strscpy(buf, "flush", sizeof(buf));
	KUNIT_ASSERT_EQ(test, 0, brute_fs_parse_lift(buf, &key, &scope));
	KUNIT_EXPECT_EQ(test, BRUTE_LIFT_FLUSH, scope);

	strscpy(buf, "1000 8:1 1234 extra", sizeof(buf));
	KUNIT_EXPECT_EQ(test, -EINVAL, brute_fs_parse_lift(buf, &key, &scope));
	strscpy(buf, "1000 8-1 1234", sizeof(buf));
	KUNIT_EXPECT_EQ(test, -EINVAL, brute_fs_parse_lift(buf, &key, &scope));
	strscpy(buf, "4294967295 8:1 1", sizeof(buf));
	KUNIT_EXPECT_EQ(test, -EINVAL, brute_fs_parse_lift(buf, &key, &scope));
	strscpy(buf, "1000 8:1048576 1", sizeof(buf));
	KUNIT_EXPECT_EQ(test, -EINVAL, brute_fs_parse_lift(buf, &key, &scope));
	strscpy(buf, "", sizeof(buf));
	KUNIT_EXPECT_EQ(test, -EINVAL, brute_fs_parse_lift(buf, &key, &scope));
	strscpy(buf, "alll", sizeof(buf));
	KUNIT_EXPECT_EQ(test, -EINVAL, brute_fs_parse_lift(buf, &key, &scope));
}

static struct kunit_case test_fs_cases[] = {
	KUNIT_CASE(test_parse_lift),
	{}
};

static struct kunit_suite test_fs_suite = {
	.name = "brute_fs",
	.test_cases = test_fs_cases,
};

kunit_test_suite(test_fs_suite);

#endif /* CONFIG_SECURITY_FORK_BRUTE_KUNIT_TEST */
