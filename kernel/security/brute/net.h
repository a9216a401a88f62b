/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Network hooks
 */

#ifndef _SECURITY_BRUTE_NET_H
#define _SECURITY_BRUTE_NET_H

#include <linux/init.h>
#include <linux/types.h>

/**
 * struct brute_sock_security - Socket security blob
 * @remote: A packet from a device other than loopback reached the socket.
 */
struct brute_sock_security {
	bool remote;
};

#ifdef CONFIG_SECURITY_NETWORK
__init void brute_net_add_hooks(void);
#else
static inline void brute_net_add_hooks(void)
{
}
#endif

#endif /* _SECURITY_BRUTE_NET_H */
