// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko admin commands. Every command is a
 * generated request struct (uapi/scenic_admin.h) submitted through the
 * core's admin queue (scenic_aq_exec()); this file adds the RDMA function's
 * error counter and log lines.
 */

#include "scenic_rdma_drv.h"

/**
 * scenic_rdma_cmd_exec - run one admin command
 * @sdev: the device
 * @cmd: the request (hdr.opcode set)
 * @len: bytes of @cmd
 * @res: NULL or the result struct
 * @res_len: bytes of @res
 *
 * Return: 0, -EIO when the card is dead or being recovered (teardown
 * commands return 0 then), -ETIMEDOUT, or the errno of the card's status
 * (logged, rate limited).
 */
int scenic_rdma_cmd_exec(struct scenic_rdma_dev *sdev, const void *cmd,
			 size_t len, void *res, size_t res_len)
{
	const struct scenic_aq_sqe_hdr *hdr = cmd;
	struct scenic_aq_cqe cqe = {};
	__le32 arg0 = 0;
	int err;

	if (scenic_rdma_dead(sdev)) {
		switch (hdr->opcode) {
		case SCENIC_AQ_OP_DESTROY_CQ:
		case SCENIC_AQ_OP_DESTROY_QP:
		case SCENIC_AQ_OP_DEREG_MR:
		case SCENIC_AQ_OP_DESTROY_SRQ:
			return 0;
		default:
			return -EIO;
		}
	}
	if (!res) {
		res = &cqe;
		res_len = sizeof(cqe);
	}
	err = scenic_aq_exec(sdev->sadev->core, cmd, len, res, res_len);
	if (!err)
		return 0;
	atomic64_inc(&sdev->sw.cmd_errors);
	if (err == -EIO)	/* dead: the core logged the cause once */
		return err;
	if (len >= sizeof(*hdr) + sizeof(arg0))
		memcpy(&arg0, (const u8 *)cmd + sizeof(*hdr), sizeof(arg0));
	if (res != &cqe && res_len >= sizeof(cqe.hdr))
		memcpy(&cqe.hdr, res, sizeof(cqe.hdr));
	ibdev_err_ratelimited(&sdev->ibdev, "%s(0x%x) failed: %d (card status %u, syndrome 0x%x)\n",
			      scenic_aq_op_name(hdr->opcode),
			      le32_to_cpu(arg0), err, cqe.hdr.status,
			      le16_to_cpu(cqe.hdr.syndrome));
	return err;
}
