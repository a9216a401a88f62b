/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Network hooks
 */

#ifndef _SECURITY_BRUTE_NET_H
#define _SECURITY_BRUTE_NET_H

#include <linux/init.h>
#include <linux/types.h>

#include "peer.h"

/**
 * struct brute_sock_security - Socket security blob
 * @remote: The socket's peer is not on this host: its packets came from a
 *          device other than loopback, or the connection it accepted came
 *          from an address that is not one of the host's.
 * @input: For a connection Brute attributes input to (an accepted TCP
 *         connection from a remote peer, an accepted Unix stream
 *         connection), its endpoint and peer; @input.cookie is 0 otherwise.
 *         Written before the connection is accepted, then read only.
 */
struct brute_sock_security {
	bool remote;
	struct brute_input input;
};

#ifdef CONFIG_SECURITY_NETWORK
__init void brute_net_add_hooks(void);
#else
static inline void brute_net_add_hooks(void)
{
}
#endif

#endif /* _SECURITY_BRUTE_NET_H */
