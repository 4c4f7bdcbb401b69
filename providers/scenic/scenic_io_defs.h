/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The card's in-memory formats: uapi/scenic_rdma.h is the single contract. */
#ifndef __SCENIC_IO_DEFS_H__
#define __SCENIC_IO_DEFS_H__

#include <scenic_rdma.h>

#endif /* __SCENIC_IO_DEFS_H__ */
