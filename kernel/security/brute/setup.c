// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Security framework setup
 */

#include <linux/init.h>
#include <linux/lsm_hooks.h>
#include <uapi/linux/lsm.h>

#include "common.h"
#include "fault.h"
#include "hierarchy.h"
#include "net.h"
#include "peer.h"
#include "setup.h"
#include "sysctl.h"
#include "target.h"
#include "task.h"

/* Brute was initialized: lsm= or CONFIG_LSM lists it. */
bool brute_enabled __ro_after_init;

const struct lsm_id brute_lsmid = {
	.name = BRUTE_NAME,
	.id = LSM_ID_BRUTE,
};

struct lsm_blob_sizes brute_blob_sizes __ro_after_init = {
	.lbs_task = sizeof(struct brute_task_security),
#ifdef CONFIG_SECURITY_NETWORK
	.lbs_sock = sizeof(struct brute_sock_security),
#endif
};

static int __init brute_init(void)
{
	int err;

	err = brute_hierarchy_init();
	if (err)
		return err;
	brute_targets_setup();
	brute_peers_setup();
	brute_task_add_hooks();
	brute_net_add_hooks();
	err = brute_fault_setup();
	if (err)
		return err;
	err = brute_sysctl_init();
	if (err)
		return err;
	brute_enabled = true;
	pr_info("up and running\n");
	return 0;
}

DEFINE_LSM(brute) = {
	.name = BRUTE_NAME,
	.init = brute_init,
	.blobs = &brute_blob_sizes,
};
