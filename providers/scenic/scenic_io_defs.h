/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The card's in-memory formats are uapi/scenic_rdma.h (the single contract);
 * this header only includes it in a way that coexists with <linux/types.h>.
 *
 * Outside the kernel scenic_rdma.h typedefs __le64 as uint64_t (unsigned
 * long), which conflicts with <linux/types.h>'s unsigned long long that
 * <infiniband/verbs.h> pulls in; its __KERNEL__ branch takes the types from
 * <linux/types.h> instead, which is what we want here.
 */
#ifndef __SCENIC_IO_DEFS_H__
#define __SCENIC_IO_DEFS_H__

#include <linux/types.h>

#ifndef __KERNEL__
#define __KERNEL__
#include <scenic_rdma.h>
#undef __KERNEL__
#else
#include <scenic_rdma.h>
#endif

#endif /* __SCENIC_IO_DEFS_H__ */
