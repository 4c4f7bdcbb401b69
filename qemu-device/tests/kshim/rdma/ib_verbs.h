/* SPDX-License-Identifier: MIT */
/*
 * Stand-in for the kernel's <rdma/ib_verbs.h> in user-space tests: only the enumerators the
 * generated kmod/include/scenic_codes.h returns. The tests compare them by name, so the
 * numbers here are not the kernel's.
 */
#ifndef SCENIC_TEST_KSHIM_IB_VERBS_H
#define SCENIC_TEST_KSHIM_IB_VERBS_H

enum ib_wc_status {
	IB_WC_SUCCESS = 100,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_GENERAL_ERR,
};

enum ib_qp_state {
	IB_QPS_RESET = 200,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR,
};

enum ib_event_type {
	IB_EVENT_QP_FATAL = 300,
	IB_EVENT_QP_REQ_ERR,
	IB_EVENT_QP_ACCESS_ERR,
	IB_EVENT_QP_LAST_WQE_REACHED,
};

#endif
