// SPDX-License-Identifier: GPL-2.0-only
/*
 * Driver-specific uverbs methods (uapi/rdma/scenic_user_ioctl_cmds.h):
 * binding an SCU slot's memory port to a PD (docs/scu.md 4.5).
 */
#include <linux/file.h>

#define UVERBS_MODULE_NAME scenic_ib
#include <rdma/uverbs_ioctl.h>
#include <rdma/uverbs_named_ioctl.h>
#include <rdma/uverbs_std_types.h>

#include "scenic_rdma_drv.h"
#include "rdma/scenic_user_ioctl_cmds.h"

static int UVERBS_HANDLER(SCENIC_IB_METHOD_PD_BIND_SCU)(struct uverbs_attr_bundle *attrs)
{
	struct ib_pd *ibpd =
		uverbs_attr_get_obj(attrs, SCENIC_IB_ATTR_BIND_SCU_PD_HANDLE);
	struct scenic_rdma_dev *sdev = to_sdev(ibpd->device);
	struct file *file;
	int fd, err;

	err = uverbs_get_raw_fd(&fd, attrs, SCENIC_IB_ATTR_BIND_SCU_FD);
	if (err)
		return err;
	if (scenic_rdma_dead(sdev))
		return -EIO;
	file = fget(fd);
	if (!file)
		return -EBADF;
	/* the core checks that @file owns a slot of this card */
	err = scenic_scu_bind_pd(sdev->sadev->core, file, ibpd,
				 to_spd(ibpd)->pdn);
	fput(file);
	if (err)
		ibdev_dbg(ibpd->device, "bind SCU PD %u: %d\n",
			  to_spd(ibpd)->pdn, err);
	return err;
}

DECLARE_UVERBS_NAMED_METHOD(SCENIC_IB_METHOD_PD_BIND_SCU,
			    UVERBS_ATTR_IDR(SCENIC_IB_ATTR_BIND_SCU_PD_HANDLE,
					    UVERBS_OBJECT_PD, UVERBS_ACCESS_READ,
					    UA_MANDATORY),
			    UVERBS_ATTR_RAW_FD(SCENIC_IB_ATTR_BIND_SCU_FD,
					       UA_MANDATORY));

ADD_UVERBS_METHODS(scenic_rdma_pd_methods, UVERBS_OBJECT_PD,
		   &UVERBS_METHOD(SCENIC_IB_METHOD_PD_BIND_SCU));

const struct uapi_definition scenic_rdma_uapi_defs[] = {
	UAPI_DEF_CHAIN_OBJ_TREE(UVERBS_OBJECT_PD, &scenic_rdma_pd_methods),
	{},
};
