// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * scenicdv_bind_scu_pd(): the driver-specific uverbs method that binds an SCU
 * slot's memory port to a PD (docs/scu.md 4.5). The compat layer has no
 * ioctl command buffers, so the RDMA_VERBS_IOCTL request is built here: a
 * header and two attributes, the PD's handle and the slot's owner fd.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/scenic_user_ioctl_cmds.h>

#include "scenic.h"
#include "scenicdv.h"

struct scenic_bind_scu_req {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[2];
};

int scenicdv_bind_scu_pd(struct ibv_pd *pd, int scu_fd)
{
	struct scenic_bind_scu_req req;

	if (!pd || !pd->context) {
		errno = EINVAL;
		return EINVAL;
	}
	if (!is_scenic_dev(pd->context->device)) {
		errno = EOPNOTSUPP;
		return EOPNOTSUPP;
	}
	if (scu_fd < 0) {
		errno = EBADF;
		return EBADF;
	}
	memset(&req, 0, sizeof(req));
	req.hdr.length = sizeof(req);
	req.hdr.object_id = UVERBS_OBJECT_PD;
	req.hdr.method_id = SCENIC_IB_METHOD_PD_BIND_SCU;
	req.hdr.num_attrs = 2;
	req.attrs[0].attr_id = SCENIC_IB_ATTR_BIND_SCU_PD_HANDLE;
	req.attrs[0].flags = UVERBS_ATTR_F_MANDATORY;
	req.attrs[0].data = pd->handle;
	req.attrs[1].attr_id = SCENIC_IB_ATTR_BIND_SCU_FD;
	req.attrs[1].flags = UVERBS_ATTR_F_MANDATORY;
	req.attrs[1].data_s64 = scu_fd;
	if (ioctl(pd->context->cmd_fd, RDMA_VERBS_IOCTL, &req))
		return errno;
	return 0;
}
