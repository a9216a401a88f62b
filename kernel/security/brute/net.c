// SPDX-License-Identifier: GPL-2.0-only
/*
 * Brute LSM - Network hooks: the network to local boundary
 *
 * A hierarchy crosses the network boundary when one of its tasks accepts a
 * connection or receives data on an INET or INET6 socket whose peer is not
 * on loopback.  That is decided in task context, in the accept and recvmsg
 * hooks, where the current task is the receiver.  The socket_sock_rcv_skb
 * hook runs in softirq context, where current is whatever task was
 * interrupted: it only marks the socket, never a task.
 */

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/lsm_hooks.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "common.h"
#include "hierarchy.h"
#include "net.h"
#include "setup.h"

static struct brute_sock_security *brute_sock(const struct sock *const sk)
{
	return sk->sk_security + brute_blob_sizes.lbs_sock;
}

static bool brute_inet(const struct sock *const sk)
{
	return sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6);
}

/* The peer of a connected socket is known: is it remote? */
static bool brute_peer_remote(const struct sock *const sk)
{
	if (sk->sk_family == AF_INET)
		return sk->sk_daddr && !ipv4_is_loopback(sk->sk_daddr);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		const struct in6_addr *const addr = &sk->sk_v6_daddr;

		if (ipv6_addr_v4mapped(addr))
			return !ipv4_is_loopback(addr->s6_addr32[3]) &&
			       addr->s6_addr32[3];
		return !ipv6_addr_any(addr) && !ipv6_addr_loopback(addr);
	}
#endif
	return false;
}

static void brute_network_input(const struct socket *const sock)
{
	struct brute_hierarchy *const hierarchy = brute_task(current)->hierarchy;
	const struct sock *const sk = sock->sk;

	if (!hierarchy ||
	    (READ_ONCE(hierarchy->boundaries) & BRUTE_BOUNDARY_NETWORK))
		return;
	if (!brute_inet(sk))
		return;
	if (READ_ONCE(brute_sock(sk)->remote) || brute_peer_remote(sk))
		brute_hierarchy_cross(hierarchy, BRUTE_BOUNDARY_NETWORK,
				      current_cred(), current_cred());
}

static int hook_socket_accept(struct socket *const sock,
			      struct socket *const newsock)
{
	brute_network_input(sock);
	return 0;
}

static int hook_socket_recvmsg(struct socket *const sock,
			       struct msghdr *const msg, const int size,
			       const int flags)
{
	brute_network_input(sock);
	return 0;
}

/* Softirq context: mark the socket only. */
static int hook_socket_sock_rcv_skb(struct sock *const sk,
				    struct sk_buff *const skb)
{
	struct brute_sock_security *const bs = brute_sock(sk);

	if (!brute_inet(sk) || READ_ONCE(bs->remote))
		return 0;
	if (skb->dev && !(skb->dev->flags & IFF_LOOPBACK))
		WRITE_ONCE(bs->remote, true);
	return 0;
}

static struct security_hook_list brute_net_hooks[] __ro_after_init = {
	LSM_HOOK_INIT(socket_accept, hook_socket_accept),
	LSM_HOOK_INIT(socket_recvmsg, hook_socket_recvmsg),
	LSM_HOOK_INIT(socket_sock_rcv_skb, hook_socket_sock_rcv_skb),
};

/**
 * brute_net_add_hooks() - Register the network hooks
 */
__init void brute_net_add_hooks(void)
{
	security_add_hooks(brute_net_hooks, ARRAY_SIZE(brute_net_hooks),
			   &brute_lsmid);
}
