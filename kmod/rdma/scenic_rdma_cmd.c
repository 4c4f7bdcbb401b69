// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko command mailbox. The card executes a
 * command within the write of CMD_OP (uapi/scenic_rdma.h), so a command is
 * a sequence of register accesses under one mutex; no completion wait.
 */

#include "scenic_rdma_drv.h"

static const char * const scenic_rdma_cmd_names[] = {
	[SCENIC_RDMA_CMD_CREATE_CQ] = "CREATE_CQ",
	[SCENIC_RDMA_CMD_DESTROY_CQ] = "DESTROY_CQ",
	[SCENIC_RDMA_CMD_CREATE_QP] = "CREATE_QP",
	[SCENIC_RDMA_CMD_MODIFY_QP] = "MODIFY_QP",
	[SCENIC_RDMA_CMD_QUERY_QP] = "QUERY_QP",
	[SCENIC_RDMA_CMD_DESTROY_QP] = "DESTROY_QP",
	[SCENIC_RDMA_CMD_REG_MR] = "REG_MR",
	[SCENIC_RDMA_CMD_DEREG_MR] = "DEREG_MR",
	[SCENIC_RDMA_CMD_TLB_FILL] = "TLB_FILL",
	[SCENIC_RDMA_CMD_QUERY_QP_CC] = "QUERY_QP_CC",
	[SCENIC_RDMA_CMD_TLB_FILL_PAGES] = "TLB_FILL_PAGES",
};

const char *scenic_rdma_cmd_name(u32 op)
{
	if (op < ARRAY_SIZE(scenic_rdma_cmd_names) && scenic_rdma_cmd_names[op])
		return scenic_rdma_cmd_names[op];
	return "?";
}

static const char *scenic_rdma_status_name(u32 status)
{
	switch (status) {
	case SCENIC_RDMA_ERR_BAD_OP:
		return "unknown command";
	case SCENIC_RDMA_ERR_BAD_INDEX:
		return "index out of range";
	case SCENIC_RDMA_ERR_BUSY:
		return "busy";
	case SCENIC_RDMA_ERR_NOT_FOUND:
		return "no such object";
	case SCENIC_RDMA_ERR_BAD_ARG:
		return "bad argument";
	case SCENIC_RDMA_ERR_BAD_STATE:
		return "bad state";
	default:
		return "unknown status";
	}
}

static int scenic_rdma_status_errno(u32 status)
{
	switch (status) {
	case SCENIC_RDMA_OK:
		return 0;
	case SCENIC_RDMA_ERR_BAD_OP:
		return -EOPNOTSUPP;
	case SCENIC_RDMA_ERR_BUSY:
		return -EBUSY;
	case SCENIC_RDMA_ERR_NOT_FOUND:
		return -ENOENT;
	case SCENIC_RDMA_ERR_BAD_INDEX:
	case SCENIC_RDMA_ERR_BAD_ARG:
	case SCENIC_RDMA_ERR_BAD_STATE:
		return -EINVAL;
	default:
		return -EIO;
	}
}

/**
 * scenic_rdma_cmd_exec - run one card command
 * @sdev: the device
 * @op: SCENIC_RDMA_CMD_*
 * @cmd: arguments in, CMD_RES0..3 out (also on failure)
 *
 * Return: 0, -EIO when the card is gone or being reset, or the errno of the
 * card's SCENIC_RDMA_ERR_* status (logged, rate limited).
 */
int scenic_rdma_cmd_exec(struct scenic_rdma_dev *sdev, u32 op,
			 struct scenic_rdma_mbox *cmd)
{
	unsigned int i;
	u32 status;
	int err;

	if (WARN_ON_ONCE(cmd->nargs > SCENIC_RDMA_CMD_MAX_ARGS))
		return -EINVAL;

	mutex_lock(&sdev->cmd_lock);
	if (scenic_rdma_dead(sdev)) {
		mutex_unlock(&sdev->cmd_lock);
		return -EIO;
	}
	for (i = 0; i < cmd->nargs; i++)
		scenic_rdma_wr(sdev, SCENIC_RDMA_CMD_ARG0 + 4 * i, cmd->arg[i]);
	scenic_rdma_wr(sdev, SCENIC_RDMA_CMD_OP, op);
	status = scenic_rdma_rd(sdev, SCENIC_RDMA_CMD_STATUS);
	for (i = 0; i < ARRAY_SIZE(cmd->res); i++)
		cmd->res[i] = scenic_rdma_rd(sdev, SCENIC_RDMA_CMD_RES0 + 4 * i);
	mutex_unlock(&sdev->cmd_lock);

	if (status == ~0U) {	/* all-ones: the device is gone */
		atomic64_inc(&sdev->sw.cmd_errors);
		ibdev_err_ratelimited(&sdev->ibdev, "%s: card not responding\n",
				      scenic_rdma_cmd_name(op));
		return -EIO;
	}
	err = scenic_rdma_status_errno(status);
	if (err) {
		atomic64_inc(&sdev->sw.cmd_errors);
		ibdev_err_ratelimited(&sdev->ibdev, "%s(0x%x) failed: %s (%u)\n",
				      scenic_rdma_cmd_name(op), cmd->arg[0],
				      scenic_rdma_status_name(status), status);
	}
	return err;
}
