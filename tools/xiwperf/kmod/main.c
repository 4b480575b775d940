// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * xiwperf: an RDMA test and benchmark ULP for any kernel-verbs device.
 * This file is the character device /dev/xiwperf and its ioctls (see
 * uapi/xiwperf.h); server.c and client.c do the work.
 *
 * A server hands out its device's global rkey, which opens all of kernel
 * memory to the network peer: only CAP_SYS_ADMIN may open the device, and
 * the module is meant for test machines.
 */
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "proto.h"
#include "xiwperf.h"

struct xp_file {
	struct mutex lock;		/* srv */
	struct xp_server *srv;
};

/* The flags of XIWPERF_IOC_RUN: any other bit is EINVAL. */
#define XP_RUN_FLAGS	(XIWPERF_F_CHECK | XIWPERF_F_INLINE |		\
			 XIWPERF_F_SOLICIT | XIWPERF_F_FRWR |		\
			 XIWPERF_F_REMOTE_FRWR | XIWPERF_F_SRQ |	\
			 XIWPERF_F_IMM | XIWPERF_F_PERSIST |		\
			 XIWPERF_F_GLOBAL | XIWPERF_F_FLUSH_MR |	\
			 XIWPERF_F_EXPECT | XIWPERF_F_NO_WRITE |	\
			 XIWPERF_F_IDLE)

/**
 * xp_sockaddr() - convert an ABI address to a socket address.
 * @ss: filled in.
 * @a: the address.
 *
 * Return: 0, or -EINVAL for an unknown family.
 */
int xp_sockaddr(struct sockaddr_storage *ss, const struct xiwperf_addr *a)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(a->port);
		memcpy(&sin->sin_addr, a->addr, sizeof(sin->sin_addr));
		return 0;
	}
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(a->port);
		sin6->sin6_scope_id = a->scope_id;
		memcpy(&sin6->sin6_addr, a->addr, sizeof(sin6->sin6_addr));
		return 0;
	}
	return -EINVAL;
}

static long xp_ioctl_listen(struct xp_file *xf, void __user *uarg)
{
	struct xiwperf_listen arg;
	struct xp_server *srv;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags & ~XIWPERF_LISTEN_BACKED ||
	    (!(arg.flags & XIWPERF_LISTEN_BACKED) && arg.backing) ||
	    (arg.hash && !xp_hash_len(arg.hash)))
		return -EINVAL;

	mutex_lock(&xf->lock);
	if (xf->srv) {
		mutex_unlock(&xf->lock);
		return -EBUSY;
	}
	ret = xp_server_listen(&srv, &arg);
	if (!ret)
		xf->srv = srv;
	mutex_unlock(&xf->lock);
	if (ret)
		return ret;
	/* The server stays up until the file is closed, even if this fails. */
	return copy_to_user(uarg, &arg, sizeof(arg)) ? -EFAULT : 0;
}

static long xp_ioctl_serve(struct xp_file *xf, void __user *uarg)
{
	struct xiwperf_serve arg;
	struct xp_server *srv;
	int ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (arg.flags)
		return -EINVAL;
	mutex_lock(&xf->lock);
	srv = xf->srv;		/* set once; freed only at release */
	mutex_unlock(&xf->lock);
	if (!srv)
		return -EINVAL;

	ret = xp_server_serve(srv, &arg);
	if (copy_to_user(uarg, &arg, sizeof(arg)))
		return -EFAULT;
	return ret;
}

static long xp_ioctl_run(void __user *uarg)
{
	struct xiwperf_run *run;
	long ret;

	run = kmalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	if (copy_from_user(run, uarg, sizeof(*run))) {
		ret = -EFAULT;
		goto out;
	}
	/* The fields after @inject up to @compare_add are out. */
	if (run->flags & ~XP_RUN_FLAGS ||
	    run->hold_ms > XIWPERF_MAX_HOLD_MS ||
	    ((run->flags & XIWPERF_F_IDLE) && !run->hold_ms)) {
		ret = -EINVAL;
		goto out;
	}
	ret = xp_client_run(run);
	if (ret == -EINVAL && !run->result.reason)
		goto out;	/* rejected parameters: no result */
	if (copy_to_user(uarg, run, sizeof(*run)))
		ret = -EFAULT;
out:
	kfree(run);
	return ret;
}

static long xp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct xp_file *xf = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case XIWPERF_IOC_LISTEN:
		return xp_ioctl_listen(xf, uarg);
	case XIWPERF_IOC_SERVE:
		return xp_ioctl_serve(xf, uarg);
	case XIWPERF_IOC_RUN:
		return xp_ioctl_run(uarg);
	default:
		return -ENOTTY;
	}
}

static int xp_open(struct inode *inode, struct file *file)
{
	struct xp_file *xf;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	xf = kzalloc(sizeof(*xf), GFP_KERNEL);
	if (!xf)
		return -ENOMEM;
	mutex_init(&xf->lock);
	file->private_data = xf;
	return nonseekable_open(inode, file);
}

static int xp_release(struct inode *inode, struct file *file)
{
	struct xp_file *xf = file->private_data;

	if (xf->srv)
		xp_server_destroy(xf->srv);
	mutex_destroy(&xf->lock);
	kfree(xf);
	return 0;
}

static const struct file_operations xp_fops = {
	.owner = THIS_MODULE,
	.open = xp_open,
	.release = xp_release,
	.unlocked_ioctl = xp_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

static struct miscdevice xp_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "xiwperf",
	.fops = &xp_fops,
	.mode = 0600,
};

static int __init xp_init(void)
{
	BUILD_BUG_ON(sizeof(struct xiwperf_addr) != 24);
	BUILD_BUG_ON(sizeof(struct xiwperf_listen) != 120);
	BUILD_BUG_ON(sizeof(struct xiwperf_serve) != 72);
	BUILD_BUG_ON(sizeof(struct xiwperf_result) != 296);
	BUILD_BUG_ON(sizeof(struct xiwperf_run) != 504);
	/* An IB connect request leaves 56 bytes of private data. */
	BUILD_BUG_ON(sizeof(struct xp_hello) > 56);
	BUILD_BUG_ON(XP_MSG_BASE_LEN != 40);
	BUILD_BUG_ON(XP_MSG_SOLICITED_LEN != 56);
	BUILD_BUG_ON(XP_HELLO_MIN_LEN != 32);
	BUILD_BUG_ON(XP_ACCEPT_MIN_LEN != 40);
	return misc_register(&xp_misc);
}

static void __exit xp_exit(void)
{
	misc_deregister(&xp_misc);
}

module_init(xp_init);
module_exit(xp_exit);

MODULE_DESCRIPTION("xiwperf: RDMA test and benchmark client and server");
MODULE_LICENSE("Dual BSD/GPL");
