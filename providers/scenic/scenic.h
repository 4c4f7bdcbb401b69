/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * SCENIC rdma-core provider: device and context state.
 */
#ifndef __SCENIC_H__
#define __SCENIC_H__

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include "scenic-abi.h"

#define PCI_VENDOR_ID_XILINX 0x10ee
#define PCI_DEVICE_ID_SCENIC 0x5c01

struct scenic_dev {
	struct verbs_device vdev;
	uint32_t pg_sz;
};

struct scenic_context {
	struct verbs_context ibvctx;
	uint32_t cmds_supp_udata_mask;
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_inline_data;
	uint16_t num_scus;
	uint16_t default_scu;	/* SCU of QPs created without scenicdv */
	uint16_t sq_wqe_size;
	uint16_t rq_wqe_size;
	uint16_t cqe_size;
	uint32_t cnt_size;
	uint32_t device_caps;	/* enum scenic_query_device_caps */
};

static inline struct scenic_dev *to_scenic_dev(struct ibv_device *ibvdev)
{
	return container_of(ibvdev, struct scenic_dev, vdev.device);
}

static inline struct scenic_context *to_scenic_context(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct scenic_context, ibvctx.context);
}

bool is_scenic_dev(struct ibv_device *device);

#endif /* __SCENIC_H__ */
