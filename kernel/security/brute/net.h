/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Brute LSM - Network hooks
 */

#ifndef _SECURITY_BRUTE_NET_H
#define _SECURITY_BRUTE_NET_H

#include <linux/init.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <net/sock.h>

#include "peer.h"
#include "setup.h"

struct sock;

/**
 * enum brute_sock_flag - Bits of &brute_sock_security.flags
 * @BRUTE_SOCK_PLAIN: Made by a task that held nothing its user had not
 *                    (no privilege gained, no capability beyond the
 *                    ambient set), or in a user namespace of its user's:
 *                    what a listener made so receives is its user's own.
 * @BRUTE_SOCK_LOCAL: An accepted connection from a process of this host
 *                    (a Unix stream connection, or TCP over loopback or
 *                    an address of the host): its input is a local user's,
 *                    or what that user relays.
 * @BRUTE_SOCK_RELAY: Writes to it are tracked (&brute_sock_security.origin):
 *                    an end of a Unix stream connection, or the client of
 *                    a TCP connection to this host.
 * @BRUTE_SOCK_OWN: With BRUTE_SOCK_RELAY, a writer that served no peer wrote
 *                  to it: its own input.
 */
enum brute_sock_flag {
	BRUTE_SOCK_PLAIN = BIT(0),
	BRUTE_SOCK_LOCAL = BIT(1),
	BRUTE_SOCK_RELAY = BIT(2),
	BRUTE_SOCK_OWN = BIT(3),
};

/**
 * struct brute_origin - What the writers of a connection relayed
 * @input: The peer whose input they were serving when they wrote, at the
 *         endpoint where it arrived.
 * @lpath: With a Unix @input.endpoint, its bound name ("?" if none).
 * @rcu: Frees it after a grace period.
 */
struct brute_origin {
	struct brute_input input;
	char lpath[BRUTE_LPATH_LEN];
	struct rcu_head rcu;
};

/*
 * The origin of a connection whose writers relayed more than one peer's
 * input, or input from sources nobody can be charged for.
 */
extern struct brute_origin brute_origin_mixed;

/**
 * struct brute_sock_security - Socket security blob
 * @remote: The socket's peer is not on this host: its packets came from a
 *          device other than loopback, or the connection it accepted came
 *          from an address that is not one of the host's.
 * @bound: bind() gave it a port (any address, in a family without ports):
 *         it waits for anyone's datagrams, as a service does.  A client's
 *         socket, bound to a free port by the kernel or by bind() with
 *         port 0, has none.
 * @flags: Enum brute_sock_flag; set before the socket is shared, but
 *         BRUTE_SOCK_OWN, which its writers set (WRITE_ONCE()).
 * @party: Who answers for what is written to it: the user of the task that
 *         made it, or that connected it (the user who ran a privileged
 *         image, for a privileged image), as a kernel user ID.  For the
 *         server's end of a connection, the listener's @party.
 * @owner: Who answers for @party as the maker of an endpoint: @party, or
 *         the user who created @party's user namespace (brute_principal()).
 * @userns: With a root @owner of a user namespace (a container root made),
 *          that namespace's inode number; else 0.
 * @input: For an accepted connection, its endpoint and peer
 *         (@input.cookie is 0 otherwise).  Written before the connection
 *         is accepted, then read only.
 * @client: For an accepted TCP or MPTCP connection from this host, the
 *          client's socket (a reference held), or NULL.
 * @origin: With BRUTE_SOCK_RELAY, what its writers relayed (RCU): NULL
 *          while they wrote only their own input.
 * @ban_gen: The ban generation (brute_peers_ban_gen()) when @ban_ok was
 *           computed.
 * @ban_ok: No ban refused the socket's peer at @ban_gen.
 * @served: A process read the accepted connection: its endpoint served
 *          its peer (brute_peers_serve()).
 * @layout: For a listener, the layout that serves it: the ID of the
 *          hierarchy of the task that last listened or accepted on it;
 *          for an accepted connection, its listener's then.  0 if none.
 */
struct brute_sock_security {
	u8 remote;
	u8 bound;
	u8 flags;
	u8 ban_ok;
	u8 served;
	u64 layout;
	kuid_t party;
	kuid_t owner;
	u32 userns;
	struct brute_input input;
	struct sock *client;
	struct brute_origin __rcu *origin;
	u32 ban_gen;
};

static inline struct brute_sock_security *brute_sock(const struct sock *sk)
{
	return sk->sk_security + brute_blob_sizes.lbs_sock;
}

#ifdef CONFIG_SECURITY_NETWORK
__init void brute_net_add_hooks(void);
#else
static inline void brute_net_add_hooks(void)
{
}
#endif

#endif /* _SECURITY_BRUTE_NET_H */
