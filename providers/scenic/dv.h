/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Argument checks of the scenicdv API. They depend on no rdma-core internals so
 * that providers/test.sh can exercise them on a host without the device.
 */
#ifndef __SCENIC_DV_H__
#define __SCENIC_DV_H__

#include <stdbool.h>
#include <stdint.h>

#include "scenicdv.h"

int scenic_check_create_qp_attr(bool is_scenic_dev,
				const struct ibv_qp_init_attr_ex *attr_ex,
				const struct scenicdv_qp_init_attr *in,
				uint32_t inlen, uint16_t num_scus,
				struct scenicdv_qp_init_attr *out);

int scenic_parse_scu(const char *str, uint16_t num_scus, uint16_t *scu);

#endif /* __SCENIC_DV_H__ */
