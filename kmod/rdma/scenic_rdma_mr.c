// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko memory regions and the on-card TLB (paper
 * section 7.2). reg_user_mr pins the pages (reg_user_mr_dmabuf has the
 * dma-buf's exporter pin them), records the DMA address of every 4 KiB page
 * of the iova range, registers the MR with the card and prefills part of the
 * TLB; the rest comes on the card's TLB_MISS events. User space never sees a
 * DMA address.
 */

#include <linux/mm.h>
#include <linux/random.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/uverbs_ioctl.h>

#include "scenic_rdma_drv.h"

#define SCENIC_TLB_PAGE		BIT(SCENIC_RDMA_PAGE_SHIFT)

/* IB access bits the card implements; the optional ones are ignored. */
#define SCENIC_MR_IB_ACCESS	(IB_ACCESS_LOCAL_WRITE |		\
				 IB_ACCESS_REMOTE_WRITE |		\
				 IB_ACCESS_REMOTE_READ |		\
				 IB_ACCESS_REMOTE_ATOMIC |		\
				 IB_ACCESS_MW_BIND)

static u8 scenic_mr_access(int access)
{
	u8 a = 0;

	if (access & IB_ACCESS_LOCAL_WRITE)
		a |= SCENIC_ACCESS_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		a |= SCENIC_ACCESS_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		a |= SCENIC_ACCESS_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		a |= SCENIC_ACCESS_REMOTE_ATOMIC;
	if (access & IB_ACCESS_MW_BIND)
		a |= SCENIC_ACCESS_MW_BIND;
	return a;
}

/**
 * scenic_rdma_tlb_fill - one TLB_FILL command
 * @sdev: the device
 * @key: the MR
 * @iova: the iova of the first page (4 KiB aligned)
 * @pages: the DMA address of each page
 * @count: 1 .. SCENIC_RDMA_TLB_FILL_MAX pages: up to
 *	SCENIC_RDMA_TLB_FILL_DIRECT in the entry, more through the indirect
 *	table
 */
int scenic_rdma_tlb_fill(struct scenic_rdma_dev *sdev, u32 key, u64 iova,
			 const dma_addr_t *pages, unsigned int count)
{
	struct scenic_aq_tlb_fill c = {
		.hdr.opcode = SCENIC_AQ_OP_TLB_FILL,
		.key = cpu_to_le32(key),
		.count = cpu_to_le16(count),
		.iova = cpu_to_le64(iova),
	};
	unsigned int i;
	int err;

	if (WARN_ON_ONCE(!count || count > SCENIC_RDMA_TLB_FILL_MAX))
		return -EINVAL;
	if (count <= SCENIC_RDMA_TLB_FILL_DIRECT) {
		for (i = 0; i < count; i++)
			c.page[i] = cpu_to_le64(pages[i]);
		err = scenic_rdma_cmd(sdev, &c);
	} else {
		c.flags = FIELD_PREP(SCENIC_AQ_TLB_FILL_INDIRECT_MASK, 1);
		c.table_addr = cpu_to_le64(sdev->fill_tbl_dma);
		mutex_lock(&sdev->fill_lock);
		for (i = 0; i < count; i++)
			sdev->fill_tbl[i] = cpu_to_le64(pages[i]);
		err = scenic_rdma_cmd(sdev, &c);
		mutex_unlock(&sdev->fill_lock);
	}
	if (!err)
		atomic64_add(count, &sdev->sw.tlb_fills);
	return err;
}

/* Fills pages [@page, @page + @count) of @mr. */
static int scenic_mr_tlb_fill_range(struct scenic_rdma_dev *sdev,
				    struct scenic_rdma_mr *mr,
				    unsigned long page, unsigned long count)
{
	unsigned long n;
	int err = 0;

	for (; count && !err; page += n, count -= n) {
		n = min_t(unsigned long, count, SCENIC_RDMA_TLB_FILL_MAX);
		err = scenic_rdma_tlb_fill(sdev, mr->key,
					   mr->first_page +
					   ((u64)page << SCENIC_RDMA_PAGE_SHIFT),
					   &mr->pages[page], n);
	}
	return err;
}

/* Records the DMA address of each 4 KiB page of the MR. */
static int scenic_mr_collect_pages(struct scenic_rdma_dev *sdev,
				   struct scenic_rdma_mr *mr)
{
	struct ib_block_iter biter;
	unsigned long i = 0;

	mr->npages = ib_umem_num_dma_blocks(mr->umem, SCENIC_TLB_PAGE);
	/* 8 bytes per page of the user's: charged to the user's memcg */
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages),
			     GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mr->pages)
		return -ENOMEM;
	rdma_umem_for_each_dma_block(mr->umem, &biter, SCENIC_TLB_PAGE) {
		if (WARN_ON_ONCE(i >= mr->npages))
			return -EINVAL;
		mr->pages[i++] = rdma_block_iter_dma_address(&biter);
	}
	if (i != mr->npages) {
		ibdev_err(&sdev->ibdev, "reg_mr: %lu pages mapped, expected %lu\n",
			  i, mr->npages);
		return -EINVAL;
	}
	return 0;
}

static void scenic_mr_put(struct scenic_rdma_mr *mr)
{
	if (refcount_dec_and_test(&mr->users))
		complete(&mr->released);
}

/*
 * The checks both registration verbs share: @start is the user address or
 * the offset into the dma-buf. A refusal is counted.
 */
static int scenic_mr_check(struct ib_pd *ibpd, u64 start, u64 length,
			   u64 iova, int access, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibpd->device);

	if (access & ~SCENIC_MR_IB_ACCESS) {
		ibdev_dbg(ibpd->device, "reg_mr: access flags 0x%x not supported\n",
			  access & ~SCENIC_MR_IB_ACCESS);
		atomic64_inc(&sdev->sw.bad_requests);
		return -EOPNOTSUPP;
	}
	if ((access & IB_ACCESS_MW_BIND) && !sdev->max_mw) {
		ibdev_dbg(ibpd->device, "reg_mr: MW_BIND without memory windows (RDMA.FEATURES.mw)\n");
		return -EOPNOTSUPP;
	}
	if (!length || length > SCENIC_RDMA_MAX_MR_SIZE ||
	    iova + length < iova) {
		ibdev_dbg(ibpd->device, "reg_mr: length %llu at iova 0x%llx (1..%llu)\n",
			  length, iova, SCENIC_RDMA_MAX_MR_SIZE);
		atomic64_inc(&sdev->sw.bad_requests);
		return -EINVAL;
	}
	if (start + length < start) {
		ibdev_dbg(ibpd->device, "reg_mr: address 0x%llx + length %llu wraps\n",
			  start, length);
		atomic64_inc(&sdev->sw.bad_requests);
		return -EINVAL;
	}
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibpd->device, "reg_mr: unknown command bytes\n");
		atomic64_inc(&sdev->sw.bad_requests);
		return -EINVAL;
	}
	return 0;
}

/*
 * Registers the pinned @umem with the card as an MR at @iova. Takes @umem
 * over: it is released on failure.
 */
static struct ib_mr *scenic_mr_register(struct ib_pd *ibpd,
					struct ib_umem *umem, u64 length,
					u64 iova, int access)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibpd->device);
	struct scenic_aq_reg_mr reg = { .hdr.opcode = SCENIC_AQ_OP_REG_MR };
	struct scenic_aq_dereg_mr dereg = {
		.hdr.opcode = SCENIC_AQ_OP_DEREG_MR,
	};
	struct scenic_rdma_mr *mr;
	unsigned long prefill;
	int err, id;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr) {
		err = -ENOMEM;
		goto err_umem;
	}
	refcount_set(&mr->users, 1);
	init_completion(&mr->released);
	mr->iova = iova;
	mr->length = length;
	mr->first_page = iova & ~(u64)(SCENIC_TLB_PAGE - 1);
	mr->umem = umem;
	mr->access = access;

	/* 4 KiB translations need iova and address at the same page offset */
	if (!ib_umem_find_best_pgsz(mr->umem, SCENIC_TLB_PAGE, iova)) {
		ibdev_dbg(ibpd->device, "reg_mr: iova 0x%llx and address 0x%lx differ in their 4 KiB page offset\n",
			  iova, umem->address);
		atomic64_inc(&sdev->sw.bad_requests);
		err = -EINVAL;
		goto err_free;
	}
	err = scenic_mr_collect_pages(sdev, mr);
	if (err)
		goto err_pages;

	/* index 0 stays unused: key 0 is never valid */
	id = ida_alloc_range(&sdev->mr_ida, 1, sdev->max_mr - 1, GFP_KERNEL);
	if (id < 0) {
		err = id;
		goto err_pages;
	}
	mr->index = id;
	mr->key = (u32)id << 8 | (get_random_u32() & 0xff);

	reg.key = cpu_to_le32(mr->key);
	reg.pdn = cpu_to_le32(to_spd(ibpd)->pdn);
	reg.iova = cpu_to_le64(iova);
	reg.length = cpu_to_le64(length);
	reg.access = FIELD_PREP(SCENIC_AQ_REG_MR_ACCESS_MASK,
				scenic_mr_access(access));
	err = scenic_rdma_cmd(sdev, &reg);
	if (err)
		goto err_ida;
	err = xa_insert(&sdev->mr_xa, mr->index, mr, GFP_KERNEL);
	if (err)
		goto err_hw;

	/* the rest of the TLB stays for other MRs: misses fill on demand */
	prefill = min_t(unsigned long, mr->npages,
			sdev->tlb_entries / SCENIC_RDMA_PREFILL_DIV);
	err = scenic_mr_tlb_fill_range(sdev, mr, 0, prefill);
	if (err == -EIO)
		goto err_xa;
	/* another error is logged; the card raises a miss later */

	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = SCENIC_TLB_PAGE;
	return &mr->ibmr;

err_xa:
	xa_erase(&sdev->mr_xa, mr->index);
err_hw:
	dereg.key = cpu_to_le32(mr->key);
	scenic_rdma_cmd(sdev, &dereg);
err_ida:
	ida_free(&sdev->mr_ida, mr->index);
err_pages:
	kvfree(mr->pages);
err_free:
	kfree(mr);
err_umem:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

struct ib_mr *scenic_rdma_reg_user_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 iova, int access,
				      struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibpd->device);
	struct ib_umem *umem;
	int err;

	if (scenic_rdma_dead(sdev))
		return ERR_PTR(-EIO);
	access &= ~IB_ACCESS_OPTIONAL;
	err = scenic_mr_check(ibpd, start, length, iova, access, udata);
	if (err)
		return ERR_PTR(err);
	/*
	 * More than the RAM can never be pinned; trying would run the guest
	 * out of memory before ib_umem_get() gives up (CAP_IPC_LOCK skips
	 * RLIMIT_MEMLOCK).
	 */
	if (length > ((u64)totalram_pages() << PAGE_SHIFT)) {
		atomic64_inc(&sdev->sw.mem_refused);
		ibdev_dbg(ibpd->device, "reg_mr: %llu bytes, more than the RAM\n",
			  length);
		return ERR_PTR(-ENOMEM);
	}

	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem)) {
		ibdev_dbg(ibpd->device, "reg_mr: cannot pin %llu bytes at 0x%llx (%ld)\n",
			  length, start, PTR_ERR(umem));
		return ERR_CAST(umem);
	}
	return scenic_mr_register(ibpd, umem, length, iova, access);
}

#define SCENIC_MR_REREG_FLAGS \
	(IB_MR_REREG_TRANS | IB_MR_REREG_PD | IB_MR_REREG_ACCESS)

/*
 * The new pages of a translation change into @next: pinned with @access,
 * their DMA addresses collected. A refusal is counted.
 */
static int scenic_mr_rereg_pin(struct scenic_rdma_dev *sdev,
			       struct scenic_rdma_mr *next, struct ib_pd *ibpd,
			       u64 start, u64 length, u64 iova, int access,
			       struct ib_udata *udata)
{
	int err;

	err = scenic_mr_check(ibpd, start, length, iova, access, udata);
	if (err)
		return err;
	if (length > ((u64)totalram_pages() << PAGE_SHIFT)) {
		atomic64_inc(&sdev->sw.mem_refused);
		return -ENOMEM;
	}
	next->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(next->umem)) {
		err = PTR_ERR(next->umem);
		next->umem = NULL;
		return err;
	}
	next->iova = iova;
	next->length = length;
	next->first_page = iova & ~(u64)(SCENIC_TLB_PAGE - 1);
	if (!ib_umem_find_best_pgsz(next->umem, SCENIC_TLB_PAGE, iova)) {
		atomic64_inc(&sdev->sw.bad_requests);
		err = -EINVAL;
	} else {
		err = scenic_mr_collect_pages(sdev, next);
	}
	if (err) {
		kvfree(next->pages);
		ib_umem_release(next->umem);
		next->pages = NULL;
		next->umem = NULL;
	}
	return err;
}

/*
 * rereg_mr in place (docs/verbs-completeness.md 5.3): the key stays. TLB
 * fills stop as for dereg; REREG_MR completes once the card can no longer
 * reach the old pages, and only then is the old umem unpinned. Returns NULL
 * (the same MR) or an error.
 */
struct ib_mr *scenic_rdma_rereg_user_mr(struct ib_mr *ibmr, int flags,
					u64 start, u64 length, u64 iova,
					int access, struct ib_pd *ibpd,
					struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibmr->device);
	struct scenic_rdma_mr *mr = to_smr(ibmr);
	struct scenic_aq_rereg_mr c = {
		.hdr.opcode = SCENIC_AQ_OP_REREG_MR,
		.key = cpu_to_le32(mr->key),
	};
	struct scenic_rdma_mr next = {};
	int new_access = mr->access;
	unsigned long prefill;
	int err;

	if (scenic_rdma_dead(sdev))
		return ERR_PTR(-EIO);
	if (!(sdev->features & SCENIC_RDMA_FEATURES_REREG_MR_MASK) ||
	    !mr->umem || mr->umem->is_dmabuf || (flags & ~SCENIC_MR_REREG_FLAGS)) {
		ibdev_dbg(ibmr->device, "rereg_mr: flags 0x%x on this MR or card not supported\n",
			  flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (flags & IB_MR_REREG_ACCESS) {
		new_access = access & ~IB_ACCESS_OPTIONAL;
		if ((new_access & ~SCENIC_MR_IB_ACCESS) ||
		    ((new_access & IB_ACCESS_MW_BIND) && !sdev->max_mw)) {
			atomic64_inc(&sdev->sw.bad_requests);
			return ERR_PTR(-EOPNOTSUPP);
		}
		/* write rights on pages pinned read-only: pin them again */
		if (ib_access_writable(new_access) && !mr->umem->writable &&
		    !(flags & IB_MR_REREG_TRANS)) {
			flags |= IB_MR_REREG_TRANS;
			start = mr->umem->address;
			length = mr->length;
			iova = mr->iova;
		}
		c.mask |= FIELD_PREP(SCENIC_AQ_REREG_MR_ACCESS_CHANGE_MASK, 1);
		c.access = FIELD_PREP(SCENIC_AQ_REREG_MR_ACCESS_MASK,
				      scenic_mr_access(new_access));
	}
	if (flags & IB_MR_REREG_TRANS) {
		err = scenic_mr_rereg_pin(sdev, &next, ibpd, start, length,
					  iova, new_access, udata);
		if (err)
			return ERR_PTR(err);
		c.mask |= FIELD_PREP(SCENIC_AQ_REREG_MR_TRANSLATION_MASK, 1);
		c.iova = cpu_to_le64(iova);
		c.length = cpu_to_le64(length);
	}
	if (flags & IB_MR_REREG_PD) {
		c.mask |= FIELD_PREP(SCENIC_AQ_REREG_MR_PD_MASK, 1);
		c.pdn = cpu_to_le32(to_spd(ibpd)->pdn);
	}

	/* no TLB fill of the old pages from here: wait for those in flight */
	xa_erase(&sdev->mr_xa, mr->index);
	scenic_mr_put(mr);
	wait_for_completion(&mr->released);
	/* BUSY: memory windows are bound to the MR */
	err = scenic_rdma_cmd(sdev, &c);
	if (!err && next.umem) {
		swap(mr->umem, next.umem);
		swap(mr->pages, next.pages);
		swap(mr->npages, next.npages);
		mr->first_page = next.first_page;
		mr->iova = iova;
		mr->length = length;
	}
	if (!err)
		mr->access = new_access;
	refcount_set(&mr->users, 1);
	reinit_completion(&mr->released);
	if (xa_insert(&sdev->mr_xa, mr->index, mr, GFP_KERNEL))
		ibdev_err(&sdev->ibdev, "rereg_mr: cannot re-track MR 0x%x\n",
			  mr->key);
	/* the old pages (after a change) or the unused new ones */
	kvfree(next.pages);
	if (next.umem)
		ib_umem_release(next.umem);
	if (err)
		return ERR_PTR(err);
	if (flags & IB_MR_REREG_TRANS) {
		prefill = min_t(unsigned long, mr->npages,
				sdev->tlb_entries / SCENIC_RDMA_PREFILL_DIV);
		/* a failed fill is logged; the card raises a miss later */
		scenic_mr_tlb_fill_range(sdev, mr, 0, prefill);
	}
	return NULL;
}

/*
 * dma-buf memory (a GPU's, or a udmabuf): the exporter pins it for the MR's
 * life, since the card cannot stop its DMA when asked to by move_notify.
 * The DMA addresses come from the exporter's mapping for this device, then
 * take the same TLB path as user memory.
 */
#ifdef SCENIC_HAVE_REG_DMABUF_ATTRS
struct ib_mr *scenic_rdma_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 iova, int fd,
					     int access,
					     struct uverbs_attr_bundle *attrs)
#else
struct ib_mr *scenic_rdma_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					     u64 length, u64 iova, int fd,
					     int access,
					     struct ib_udata *udata)
#endif
{
#ifdef SCENIC_HAVE_REG_DMABUF_ATTRS
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
#endif
	struct scenic_rdma_dev *sdev = to_sdev(ibpd->device);
	struct ib_umem_dmabuf *umem_dmabuf;
	int err;

	if (scenic_rdma_dead(sdev))
		return ERR_PTR(-EIO);
	access &= ~IB_ACCESS_OPTIONAL;
	err = scenic_mr_check(ibpd, offset, length, iova, access, udata);
	if (err)
		return ERR_PTR(err);

	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd, access);
	if (IS_ERR(umem_dmabuf)) {
		err = PTR_ERR(umem_dmabuf);
		/* not a dma-buf fd, or a range outside the buffer */
		if (err == -EBADF || err == -EINVAL)
			atomic64_inc(&sdev->sw.bad_requests);
		ibdev_dbg(ibpd->device, "reg_dmabuf_mr: fd %d, %llu bytes at offset %llu (%d)\n",
			  fd, length, offset, err);
		return ERR_PTR(err);
	}
	return scenic_mr_register(ibpd, &umem_dmabuf->umem, length, iova,
				  access);
}

int scenic_rdma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibmr->device);
	struct scenic_rdma_mr *mr = to_smr(ibmr);
	struct scenic_aq_dereg_mr dereg = {
		.hdr.opcode = SCENIC_AQ_OP_DEREG_MR,
		.key = cpu_to_le32(mr->key),
	};
	int err;

	/* no new TLB fills, then wait for the ones in flight */
	xa_erase(&sdev->mr_xa, mr->index);
	scenic_mr_put(mr);
	wait_for_completion(&mr->released);

	/* -EIO: the card is dead or was reset and has forgotten the MR */
	err = scenic_rdma_cmd(sdev, &dereg);
	if (err && err != -EIO) {
		/* the card still holds it: keep it whole */
		refcount_set(&mr->users, 1);
		reinit_completion(&mr->released);
		if (xa_insert(&sdev->mr_xa, mr->index, mr, GFP_KERNEL))
			ibdev_err(&sdev->ibdev, "dereg_mr: cannot re-track MR 0x%x\n",
				  mr->key);
		return err;
	}
	ida_free(&sdev->mr_ida, mr->index);
	ib_umem_release(mr->umem);
	kvfree(mr->pages);
	kfree(mr);
	return 0;
}

/* A TLB_MISS event (fill work): the card needs the translation of @iova. */
void scenic_rdma_tlb_miss(struct scenic_rdma_dev *sdev, u32 key, u64 iova)
{
	struct scenic_rdma_mr *mr;
	unsigned long page;

	xa_lock(&sdev->mr_xa);
	mr = xa_load(&sdev->mr_xa, key >> 8);
	if (mr && (mr->key != key || !refcount_inc_not_zero(&mr->users)))
		mr = NULL;
	xa_unlock(&sdev->mr_xa);
	if (!mr) {
		atomic64_inc(&sdev->sw.tlb_miss_no_mr);
		ibdev_dbg(&sdev->ibdev, "TLB miss for unknown key 0x%x\n", key);
		return;
	}

	iova &= ~(u64)(SCENIC_TLB_PAGE - 1);
	if (iova < mr->first_page ||
	    ((iova - mr->first_page) >> SCENIC_RDMA_PAGE_SHIFT) >= mr->npages) {
		atomic64_inc(&sdev->sw.tlb_miss_outside);
		ibdev_dbg(&sdev->ibdev, "TLB miss at 0x%llx outside MR 0x%x\n",
			  iova, key);
	} else {
		unsigned long end;

		/*
		 * Accesses stream through an MR: fill the pages after the
		 * missing one too, so a large transfer costs one miss per
		 * window instead of one per page.
		 */
		page = (iova - mr->first_page) >> SCENIC_RDMA_PAGE_SHIFT;
		end = min_t(unsigned long, mr->npages,
			    page + SCENIC_RDMA_MISS_PREFETCH);
		scenic_mr_tlb_fill_range(sdev, mr, page, end - page);
	}
	scenic_mr_put(mr);
}
