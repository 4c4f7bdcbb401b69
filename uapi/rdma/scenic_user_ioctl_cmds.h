/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR Linux-OpenIB) */
/*
 * Driver-specific uverbs methods of scenic_rdma (RDMA_VERBS_IOCTL), in the
 * driver's id namespace as include/uapi/rdma/mlx5_user_ioctl_cmds.h does.
 */
#ifndef SCENIC_USER_IOCTL_CMDS_H
#define SCENIC_USER_IOCTL_CMDS_H

#include <rdma/rdma_user_ioctl_cmds.h>

/* Methods of UVERBS_OBJECT_PD. */
enum scenic_ib_pd_methods {
	/*
	 * Binds the memory port of the SCU slot whose owner fd is given to the
	 * PD (docs/scu.md 4.5): scenicdv_bind_scu_pd().
	 */
	SCENIC_IB_METHOD_PD_BIND_SCU = (1U << UVERBS_ID_NS_SHIFT),
};

enum scenic_ib_pd_bind_scu_attrs {
	SCENIC_IB_ATTR_BIND_SCU_PD_HANDLE = (1U << UVERBS_ID_NS_SHIFT),
	SCENIC_IB_ATTR_BIND_SCU_FD,	/* raw fd: /dev/scenic<c>/scu<n>, O_RDWR */
};

#endif /* SCENIC_USER_IOCTL_CMDS_H */
