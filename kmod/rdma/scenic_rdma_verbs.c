// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko device-level verbs: device and port
 * queries, user contexts, protection domains, and the user mappings
 * (rings, status pages, doorbell pages) behind rdma_user_mmap_entry.
 */

#include <linux/dma-mapping.h>
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "scenic_rdma_drv.h"

/**
 * scenic_rdma_udata_cmd - copy a driver command from user space
 * @sdev: the device
 * @udata: the uverbs udata
 * @cmd: zeroed command struct of @size bytes
 * @size: what this driver knows of the command
 * @min_size: bytes the caller must send
 *
 * The ABI rules of uapi/rdma/scenic-abi.h: a shorter command than @min_size
 * is refused, bytes beyond @size must be zero (a newer provider may send a
 * longer struct only if it does not use the extension).
 */
int scenic_rdma_udata_cmd(struct scenic_rdma_dev *sdev, struct ib_udata *udata,
			  void *cmd, size_t size, size_t min_size)
{
	if (udata->inlen < min_size) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(&sdev->ibdev, "command of %zu bytes, need at least %zu\n",
			  udata->inlen, min_size);
		return -EINVAL;
	}
	if (udata->inlen > size &&
	    !ib_is_udata_cleared(udata, size, udata->inlen - size)) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(&sdev->ibdev, "command has non-zero bytes beyond the %zu this driver knows\n",
			  size);
		return -EOPNOTSUPP;
	}
	if (ib_copy_from_udata(cmd, udata, min(size, udata->inlen))) {
		ibdev_dbg(&sdev->ibdev, "cannot copy the command\n");
		return -EFAULT;
	}
	return 0;
}

/* Copies a response, truncated to what the provider asked for. */
int scenic_rdma_udata_resp(struct scenic_rdma_dev *sdev,
			   struct ib_udata *udata, void *resp,
			   size_t size, size_t min_size)
{
	if (udata->outlen < min_size) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(&sdev->ibdev, "response buffer of %zu bytes, need %zu\n",
			  udata->outlen, min_size);
		return -EINVAL;
	}
	if (ib_copy_to_udata(udata, resp, min(size, udata->outlen))) {
		ibdev_dbg(&sdev->ibdev, "cannot copy the response\n");
		return -EFAULT;
	}
	return 0;
}

/* Reserved bytes of a command must be zero. */
bool scenic_rdma_zeroed(struct scenic_rdma_dev *sdev, const void *p,
			size_t len, const char *what)
{
	if (!memchr_inv(p, 0, len))
		return true;
	atomic64_inc(&sdev->sw.bad_requests);
	ibdev_dbg(&sdev->ibdev, "%s: reserved bytes are not zero\n", what);
	return false;
}

int scenic_rdma_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibdev);
	struct scenic_ibv_ex_query_device_resp resp = {};
	u32 max_qp = sdev->max_qp - SCENIC_RDMA_RSVD_QPS;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(ibdev, "query_device: unknown command bytes\n");
		return -EINVAL;
	}

	attr->fw_ver = sdev->sadev->build_id;
	attr->sys_image_guid = ibdev->node_guid;
	attr->vendor_id = SCENIC_PCI_VENDOR_XILINX;
	attr->vendor_part_id = SCENIC_PCI_DEVICE;
	attr->hw_ver = sdev->sadev->platform;
	attr->max_mr_size = SCENIC_RDMA_MAX_MR_SIZE;
	attr->page_size_cap = SZ_4K;
	attr->max_qp = max_qp;
	attr->max_qp_wr = SCENIC_RDMA_MAX_WR;
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_RC_RNR_NAK_GEN;
	if (sdev->max_mw)
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
	attr->max_mw = sdev->max_mw;
	/* SRQs keep their size: no IB_DEVICE_SRQ_RESIZE */
	attr->max_srq = sdev->max_srq;
	attr->max_srq_wr = sdev->max_srq ? SCENIC_RDMA_MAX_SRQ_WR : 0;
	attr->max_srq_sge = sdev->max_srq ? sdev->max_rq_sge : 0;
	/* QP1's SGEs: DMA addresses under pd->local_dma_lkey */
	attr->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	attr->max_send_sge = sdev->max_sq_sge;
	attr->max_recv_sge = sdev->max_rq_sge;
	attr->max_sge_rd = sdev->max_sq_sge;
	attr->max_cq = sdev->max_cq;
	attr->max_cqe = SCENIC_RDMA_MAX_CQE;
	attr->max_mr = sdev->max_mr - 1;	/* index 0 is never used */
	attr->max_pd = SCENIC_RDMA_MAX_PD - 1;
	/* user AHs: the card's AH table without index 0 (kernel AHs are not counted) */
	attr->max_ah = sdev->max_ah ? sdev->max_ah - 1 : 0;
	attr->max_qp_rd_atom = SCENIC_RDMA_MAX_RD_ATOMIC;
	attr->max_qp_init_rd_atom = SCENIC_RDMA_MAX_RD_ATOMIC;
	attr->max_res_rd_atom = max_qp * SCENIC_RDMA_MAX_RD_ATOMIC;
	attr->atomic_cap = IB_ATOMIC_HCA;
	attr->max_pkeys = 1;
	attr->local_ca_ack_delay = 15;

	if (!udata || !udata->outlen)
		return 0;
	resp.device_caps = SCENIC_QUERY_DEVICE_CAPS_RC |
			   SCENIC_QUERY_DEVICE_CAPS_RDMA_READ |
			   SCENIC_QUERY_DEVICE_CAPS_RDMA_WRITE |
			   SCENIC_QUERY_DEVICE_CAPS_SEND |
			   SCENIC_QUERY_DEVICE_CAPS_SCU |
			   SCENIC_QUERY_DEVICE_CAPS_COMPLETION_COUNTERS;
	if (sdev->max_ah)
		resp.device_caps |= SCENIC_QUERY_DEVICE_CAPS_UD;
	resp.max_sq_wr = SCENIC_RDMA_MAX_WR;
	resp.max_rq_wr = SCENIC_RDMA_MAX_WR;
	resp.max_sq_sge = sdev->max_sq_sge;
	resp.max_rq_sge = sdev->max_rq_sge;
	resp.max_inline_data = sdev->max_inline;
	resp.num_scus = sdev->num_scus;
	/* which SCUs hold an offload is the SCU driver's business: none known */
	resp.scu_mask = 0;
	return scenic_rdma_udata_resp(sdev, udata, &resp, sizeof(resp), 0);
}

int scenic_rdma_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibdev);
	struct net_device *ndev;
	int err;

	attr->lid = 0;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_256;
	attr->state = IB_PORT_DOWN;
	attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	attr->gid_tbl_len = SCENIC_RDMA_GID_TBL_LEN;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 1U << 31;
	/* ib_cm and rdma_cm run over the software QP1 */
	attr->port_cap_flags = sdev->gsi_ok ? IB_PORT_CM_SUP : 0;
	attr->max_vl_num = 1;

	/* the netdev ib_core holds for the port (ib_device_set_netdev) */
	rcu_read_lock();
	ndev = rcu_dereference(ibdev->port_data[port].netdev);
	if (ndev) {
		attr->active_mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));
		if (netif_running(ndev) && netif_carrier_ok(ndev) &&
		    !scenic_rdma_dead(sdev)) {
			attr->state = IB_PORT_ACTIVE;
			attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
		}
	}
	rcu_read_unlock();
	err = ib_get_eth_speed(ibdev, port, &attr->active_speed,
			       &attr->active_width);
	if (err)
		ibdev_dbg(ibdev, "no link speed (%d)\n", err);
	return 0;
}

int scenic_rdma_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	/* RoCE v2 only: ib_core then fills one GID per address, type v2 */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

enum rdma_link_layer scenic_rdma_get_link_layer(struct ib_device *ibdev,
						u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

int scenic_rdma_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

int scenic_rdma_alloc_ucontext(struct ib_ucontext *uctx,
			       struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(uctx->device);
	struct scenic_ibv_alloc_ucontext_resp resp = {};
	struct scenic_ibv_alloc_ucontext_cmd cmd = {};
	int err;

	atomic64_set(&to_suctx(uctx)->ring_bytes, 0);
	if (scenic_rdma_dead(sdev))
		return -EIO;
	err = scenic_rdma_udata_cmd(sdev, udata, &cmd, sizeof(cmd), 0);
	if (err)
		return err;
	if (cmd.comp_mask) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(uctx->device, "alloc_ucontext: unknown comp_mask 0x%x\n",
			  cmd.comp_mask);
		return -EINVAL;
	}
	if (!scenic_rdma_zeroed(sdev, cmd.reserved_20, sizeof(cmd.reserved_20),
				"alloc_ucontext"))
		return -EINVAL;

	resp.comp_mask = SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_QP_ONE_MAP;
	if (sdev->features & SCENIC_RDMA_FEATURES_RQ_STRIDE_MASK)
		resp.comp_mask |= SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_RQ_STRIDE;
	if (sdev->max_ah)
		resp.comp_mask |= SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_UD;
	if (sdev->max_srq)
		resp.comp_mask |= SCENIC_ALLOC_UCONTEXT_RESP_COMP_MASK_SRQ;
	resp.cmds_supp_udata_mask = SCENIC_USER_CMDS_SUPP_UDATA_QUERY_DEVICE |
				    SCENIC_USER_CMDS_SUPP_UDATA_CREATE_CQ |
				    SCENIC_USER_CMDS_SUPP_UDATA_CREATE_QP;
	resp.max_sq_wr = SCENIC_RDMA_MAX_WR;
	resp.max_rq_wr = SCENIC_RDMA_MAX_WR;
	resp.max_sq_sge = sdev->max_sq_sge;
	resp.max_rq_sge = sdev->max_rq_sge;
	resp.max_inline_data = sdev->max_inline;
	resp.num_scus = sdev->num_scus;
	resp.sq_wqe_size = SCENIC_SQ_WQE_BYTES;
	resp.rq_wqe_size = SCENIC_RQ_WQE_BYTES;
	resp.cqe_size = SCENIC_CQE_SIZE;
	/* one status page per QP, its counters at offset 0 */
	resp.cnt_size = SCENIC_RDMA_STATUS_BYTES;
	return scenic_rdma_udata_resp(sdev, udata, &resp, sizeof(resp), 0);
}

void scenic_rdma_dealloc_ucontext(struct ib_ucontext *uctx)
{
}

/*
 * Nothing to do beyond what ib_core does: every mapping is an
 * rdma_user_mmap_io() mapping, which the core zaps, and the memory behind
 * it is freed in mmap_free once the last reference is gone.
 */
void scenic_rdma_disassociate_ucontext(struct ib_ucontext *uctx)
{
}

static int scenic_rdma_vma_readonly(struct vm_area_struct *vma)
{
	if (vma->vm_flags & VM_WRITE)
		return -EPERM;
#ifdef SCENIC_HAVE_VM_FLAGS_CLEAR
	vm_flags_clear(vma, VM_MAYWRITE);
#else
	vma->vm_flags &= ~VM_MAYWRITE;
#endif
	return 0;
}

int scenic_rdma_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct scenic_rdma_dev *sdev = to_sdev(uctx->device);
	struct rdma_user_mmap_entry *rdma_entry;
	struct scenic_mmap_entry *e;
	unsigned long pfn;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!rdma_entry) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(uctx->device, "mmap: no object at page offset %#lx (or wrong length)\n",
			  vma->vm_pgoff);
		return -EINVAL;
	}
	e = to_smmap(rdma_entry);

	switch (e->kind) {
	case SCENIC_MMAP_DMA_RO:
		err = scenic_rdma_vma_readonly(vma);
		if (err) {
			atomic64_inc(&sdev->sw.bad_requests);
			ibdev_dbg(uctx->device, "mmap: page offset %#lx is read-only\n",
				  vma->vm_pgoff);
			break;
		}
		fallthrough;
	case SCENIC_MMAP_DMA_RW:
		/* coherent memory from the direct map (no remapping IOMMU) */
		if (is_vmalloc_addr(e->cpu_addr)) {
			ibdev_err(uctx->device, "mmap: coherent memory is not in the direct map; cannot map it\n");
			err = -EOPNOTSUPP;
			break;
		}
		pfn = PHYS_PFN(virt_to_phys(e->cpu_addr));
		err = rdma_user_mmap_io(uctx, vma, pfn, e->size,
					vma->vm_page_prot, rdma_entry);
		break;
	case SCENIC_MMAP_IO_NC:
		err = rdma_user_mmap_io(uctx, vma, PHYS_PFN(e->phys), e->size,
					pgprot_noncached(vma->vm_page_prot),
					rdma_entry);
		break;
	default:
		err = -EINVAL;
		break;
	}
	if (err)
		ibdev_dbg(uctx->device, "mmap of page offset %#lx failed (%d)\n",
			  vma->vm_pgoff, err);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/* The per-context cap on coherent memory: a quarter of RAM at most. */
static u64 scenic_rdma_uctx_cap(void)
{
	return min_t(u64, SCENIC_RDMA_UCTX_MAX_RING_BYTES,
		     ((u64)totalram_pages() << PAGE_SHIFT) / 4);
}

/*
 * Charges @bytes of coherent memory to @suctx (its cap) and to the calling
 * process's pinned_vm against RLIMIT_MEMLOCK, as ib_umem_get does for user
 * pages: dma_alloc_coherent() cannot take __GFP_ACCOUNT. *@mmp gets the mm
 * charged (a reference), NULL if none.
 */
static int scenic_rdma_charge(struct scenic_rdma_dev *sdev,
			      struct scenic_rdma_ucontext *suctx, size_t bytes,
			      struct mm_struct **mmp)
{
	unsigned long npages = bytes >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;
	u64 cap = scenic_rdma_uctx_cap();
	s64 held;

	*mmp = NULL;
	held = atomic64_add_return(bytes, &suctx->ring_bytes);
	if (held > cap) {
		atomic64_sub(bytes, &suctx->ring_bytes);
		atomic64_inc(&sdev->sw.mem_refused);
		ibdev_dbg(&sdev->ibdev, "context would hold %lld bytes of rings and pages, cap %llu\n",
			  held, cap);
		return -ENOMEM;
	}
	if (!mm)
		return 0;
	if (atomic64_add_return(npages, &mm->pinned_vm) >
	    (rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT) && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		atomic64_sub(bytes, &suctx->ring_bytes);
		atomic64_inc(&sdev->sw.mem_refused);
		ibdev_dbg(&sdev->ibdev, "%zu bytes of rings exceed RLIMIT_MEMLOCK (%lu)\n",
			  bytes, rlimit(RLIMIT_MEMLOCK));
		return -ENOMEM;
	}
	mmgrab(mm);
	*mmp = mm;
	return 0;
}

static void scenic_rdma_uncharge(struct scenic_rdma_ucontext *suctx,
				 struct mm_struct *mm, size_t bytes)
{
	if (!suctx)
		return;
	atomic64_sub(bytes, &suctx->ring_bytes);
	if (mm) {
		atomic64_sub(bytes >> PAGE_SHIFT, &mm->pinned_vm);
		mmdrop(mm);
	}
}

/* The last reference to a mapping is gone: free what it maps. */
void scenic_rdma_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct scenic_mmap_entry *e = to_smmap(rdma_entry);

	if (e->kind != SCENIC_MMAP_IO_NC) {
		dma_free_coherent(e->sdev->dmadev, e->size, e->cpu_addr,
				  e->dma_addr);
		if (e->charged)
			scenic_rdma_uncharge(to_suctx(rdma_entry->ucontext),
					     e->mm, e->charged);
	}
	/* no mapping of the doorbell page is left: the number may be reused */
	if (e->ida)
		ida_free(e->ida, e->id);
	kfree(e);
}

/*
 * Coherent memory of @size bytes (rounded to pages), zeroed; charged to
 * @suctx and its process unless @suctx is NULL (kernel use).
 */
int scenic_dma_buf_alloc(struct scenic_rdma_dev *sdev,
			 struct scenic_rdma_ucontext *suctx,
			 struct scenic_dma_buf *buf, size_t size)
{
	int err;

	buf->size = PAGE_ALIGN(size);
	buf->entry = NULL;
	buf->uctx = NULL;
	buf->mm = NULL;
	if (suctx) {
		err = scenic_rdma_charge(sdev, suctx, buf->size, &buf->mm);
		if (err)
			return err;
		buf->uctx = suctx;
	}
	buf->cpu_addr = dma_alloc_coherent(sdev->dmadev, buf->size,
					   &buf->dma_addr,
					   GFP_KERNEL | __GFP_NOWARN);
	if (!buf->cpu_addr) {
		scenic_rdma_uncharge(buf->uctx, buf->mm, buf->size);
		buf->uctx = NULL;
		buf->mm = NULL;
		return -ENOMEM;
	}
	return 0;
}

/*
 * Makes @buf mappable by @uctx; returns the mmap offset in @key. From here
 * on the entry owns the memory (freed in mmap_free).
 */
int scenic_dma_buf_expose(struct scenic_rdma_dev *sdev,
			  struct ib_ucontext *uctx, struct scenic_dma_buf *buf,
			  enum scenic_mmap_kind kind, u64 *key)
{
	struct scenic_mmap_entry *e;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->sdev = sdev;
	e->kind = kind;
	e->cpu_addr = buf->cpu_addr;
	e->dma_addr = buf->dma_addr;
	e->size = buf->size;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma_entry, e->size);
	if (err) {
		kfree(e);
		return err;
	}
	/* the charge goes with the memory: mmap_free returns it */
	if (buf->uctx) {
		e->mm = buf->mm;
		e->charged = buf->size;
	}
	buf->entry = e;
	*key = rdma_user_mmap_get_offset(&e->rdma_entry);
	return 0;
}

/* The card no longer uses @buf: free it, or let the last mapping free it. */
void scenic_dma_buf_release(struct scenic_rdma_dev *sdev,
			    struct scenic_dma_buf *buf)
{
	if (!buf->cpu_addr)
		return;
	if (buf->entry) {
		rdma_user_mmap_entry_remove(&buf->entry->rdma_entry);
	} else {
		dma_free_coherent(sdev->dmadev, buf->size, buf->cpu_addr,
				  buf->dma_addr);
		scenic_rdma_uncharge(buf->uctx, buf->mm, buf->size);
	}
	buf->cpu_addr = NULL;
	buf->entry = NULL;
	buf->uctx = NULL;
	buf->mm = NULL;
}

/*
 * Makes doorbell page @page of BAR4 mappable by @uctx. On success the entry
 * owns number @id of @ida: it is freed when the entry is removed and no
 * mapping of the page is left, so that a process that kept a mapping after
 * destroy can never ring the object that reuses the number.
 */
struct rdma_user_mmap_entry *
scenic_rdma_db_expose(struct scenic_rdma_dev *sdev, struct ib_ucontext *uctx,
		      u32 page, struct ida *ida, u32 id, u64 *key)
{
	struct scenic_mmap_entry *e;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->sdev = sdev;
	e->kind = SCENIC_MMAP_IO_NC;
	e->phys = sdev->db_phys + (phys_addr_t)page * SCENIC_DB_PAGE_SIZE;
	e->size = SCENIC_DB_PAGE_SIZE;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma_entry, e->size);
	if (err) {
		kfree(e);
		return ERR_PTR(err);
	}
	e->ida = ida;
	e->id = id;
	*key = rdma_user_mmap_get_offset(&e->rdma_entry);
	return &e->rdma_entry;
}

int scenic_rdma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibpd->device);
	struct scenic_rdma_pd *pd = to_spd(ibpd);
	int id;

	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(ibpd->device, "alloc_pd: unknown command bytes\n");
		return -EINVAL;
	}
	/* PDN 0 is never handed out: a zeroed context cannot match a PD */
	id = ida_alloc_range(&sdev->pd_ida, 1, SCENIC_RDMA_MAX_PD - 1,
			     GFP_KERNEL);
	if (id < 0)
		return id;
	pd->pdn = id;
	return 0;
}

int scenic_rdma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibpd->device);

	/* an SCU slot bound to this PD stops using it before the PDN is reused */
	scenic_scu_unbind_pd(sdev->sadev->core, ibpd);
	ida_free(&sdev->pd_ida, to_spd(ibpd)->pdn);
	return 0;
}
