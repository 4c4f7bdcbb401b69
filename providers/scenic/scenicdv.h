/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Direct-verbs extensions of the SCENIC provider (see scenicdv(7)).
 */
#ifndef __SCENICDV_H__
#define __SCENICDV_H__

#include <stdint.h>
#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Environment variable naming the SCU of QPs created without scenicdv. */
#define SCENICDV_DEFAULT_SCU_ENV "SCENIC_DEFAULT_SCU"

/* Highest number of SCU slots a SCENIC card can have. */
#define SCENICDV_MAX_SCUS 16

struct scenicdv_qp_init_attr {
	uint64_t comp_mask;	/* no bits defined yet: must be zero */
	uint16_t scu_index;	/* SCU the QP's flows are steered to */
	uint8_t reserved[6];	/* must be zero */
};

struct ibv_qp *scenicdv_create_qp_ex(struct ibv_context *ibvctx,
				     struct ibv_qp_init_attr_ex *attr_ex,
				     struct scenicdv_qp_init_attr *scenic_attr,
				     uint32_t inlen);

/*
 * Binds the memory port of the SCU slot owned through scu_fd (an O_RDWR open
 * of /dev/scenic<c>/scu<n> on the same card) to pd. Returns 0 or an errno
 * value (also in errno). See scenicdv_bind_scu_pd(3).
 */
int scenicdv_bind_scu_pd(struct ibv_pd *pd, int scu_fd);

#ifdef __cplusplus
}
#endif

#endif /* __SCENICDV_H__ */
