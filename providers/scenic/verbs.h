/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#ifndef __SCENIC_VERBS_H__
#define __SCENIC_VERBS_H__

#include <infiniband/driver.h>
#include <infiniband/verbs.h>

int scenic_query_device_ex(struct ibv_context *ibvctx,
			   const struct ibv_query_device_ex_input *input,
			   struct ibv_device_attr_ex *attr, size_t attr_size);
int scenic_query_port(struct ibv_context *ibvctx, uint8_t port,
		      struct ibv_port_attr *port_attr);
struct ibv_pd *scenic_alloc_pd(struct ibv_context *ibvctx);
int scenic_dealloc_pd(struct ibv_pd *ibvpd);
struct ibv_mr *scenic_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t len,
			     uint64_t hca_va, int access);
struct ibv_mr *scenic_reg_dmabuf_mr(struct ibv_pd *ibvpd, uint64_t offset,
				    size_t len, uint64_t iova, int fd,
				    int access);
int scenic_dereg_mr(struct verbs_mr *vmr);
int scenic_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
		    void *addr, size_t length, int access);
struct ibv_mw *scenic_alloc_mw(struct ibv_pd *ibvpd, enum ibv_mw_type type);
int scenic_dealloc_mw(struct ibv_mw *mw);
int scenic_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw,
		   struct ibv_mw_bind *mw_bind);

struct ibv_cq *scenic_create_cq(struct ibv_context *ibvctx, int ncqe,
				struct ibv_comp_channel *channel, int vec);
struct ibv_cq_ex *scenic_create_cq_ex(struct ibv_context *ibvctx,
				      struct ibv_cq_init_attr_ex *attr_ex);
int scenic_destroy_cq(struct ibv_cq *ibvcq);
int scenic_poll_cq(struct ibv_cq *ibvcq, int nwc, struct ibv_wc *wc);
/* cq_resize.c */
int scenic_resize_cq(struct ibv_cq *ibvcq, int cqe);
int scenic_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only);

struct ibv_qp *scenic_create_qp(struct ibv_pd *ibvpd,
				struct ibv_qp_init_attr *attr);
struct ibv_qp *scenic_create_qp_ex(struct ibv_context *ibvctx,
				   struct ibv_qp_init_attr_ex *attr_ex);
int scenic_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		     int attr_mask);
int scenic_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		    int attr_mask, struct ibv_qp_init_attr *init_attr);
int scenic_destroy_qp(struct ibv_qp *ibvqp);
struct ibv_ah *scenic_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr);
int scenic_destroy_ah(struct ibv_ah *ah);
int scenic_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad);
int scenic_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		     struct ibv_recv_wr **bad);

struct ibv_srq *scenic_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr);
int scenic_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr, int mask);
int scenic_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr);
int scenic_destroy_srq(struct ibv_srq *ibvsrq);
int scenic_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad);

#endif /* __SCENIC_VERBS_H__ */
