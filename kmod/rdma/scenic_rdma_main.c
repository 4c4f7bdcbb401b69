// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko, the RoCE v2 ib_device `scenic_%d` of the
 * card's offloaded RC engine. Auxiliary driver probe/remove, the
 * ib_device_ops table, registration once the sibling netdev exists (its
 * addresses become the RoCE v2 GIDs), port state from its carrier, FLR.
 */

#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>

#include "scenic_rdma_drv.h"

static const struct ib_device_ops scenic_rdma_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,	/* the provider matches PCI ids */
	.uverbs_abi_ver = SCENIC_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = scenic_rdma_alloc_hw_port_stats,
	.alloc_mw = scenic_rdma_alloc_mw,
	.alloc_pd = scenic_rdma_alloc_pd,
	.alloc_ucontext = scenic_rdma_alloc_ucontext,
	.create_ah = scenic_rdma_create_ah,
	.create_user_ah = scenic_rdma_create_ah,
	.create_cq = scenic_rdma_create_cq,
	.create_qp = scenic_rdma_create_qp,
	.create_srq = scenic_rdma_create_srq,
	.dealloc_mw = scenic_rdma_dealloc_mw,
	.dealloc_pd = scenic_rdma_dealloc_pd,
	.dealloc_ucontext = scenic_rdma_dealloc_ucontext,
	.dereg_mr = scenic_rdma_dereg_any_mr,
	.destroy_ah = scenic_rdma_destroy_ah,
	.destroy_cq = scenic_rdma_destroy_cq,
	.destroy_qp = scenic_rdma_destroy_qp,
	.destroy_srq = scenic_rdma_destroy_srq,
	.disassociate_ucontext = scenic_rdma_disassociate_ucontext,
	.get_dma_mr = scenic_rdma_get_dma_mr,
	.get_hw_stats = scenic_rdma_get_hw_stats,
	.get_link_layer = scenic_rdma_get_link_layer,
	.get_port_immutable = scenic_rdma_get_port_immutable,
	.mmap = scenic_rdma_mmap,
	.mmap_free = scenic_rdma_mmap_free,
	.modify_qp = scenic_rdma_modify_qp,
	.modify_srq = scenic_rdma_modify_srq,
	.poll_cq = scenic_rdma_poll_cq,
	.post_recv = scenic_rdma_post_recv,
	.post_send = scenic_rdma_post_send,
	.query_device = scenic_rdma_query_device,
	.query_pkey = scenic_rdma_query_pkey,
	.query_port = scenic_rdma_query_port,
	.query_qp = scenic_rdma_query_qp,
	.query_srq = scenic_rdma_query_srq,
	.fill_res_cq_entry = scenic_rdma_fill_res_cq_entry,
	.fill_res_qp_entry = scenic_rdma_fill_res_qp_entry,
	.reg_user_mr = scenic_rdma_reg_user_mr,
	.reg_user_mr_dmabuf = scenic_rdma_reg_user_mr_dmabuf,
	.req_notify_cq = scenic_rdma_req_notify_cq,
	.rereg_user_mr = scenic_rdma_rereg_user_mr,
	.resize_cq = scenic_rdma_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, scenic_rdma_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, scenic_rdma_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, scenic_rdma_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, scenic_rdma_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, scenic_rdma_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, scenic_rdma_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, scenic_rdma_ucontext, ibucontext),
};

/* The netdev of this card: scenic_eth parents it to the PCI function. */
static bool scenic_rdma_is_our_netdev(struct scenic_rdma_dev *sdev,
				      struct net_device *ndev)
{
	return ndev->dev.parent == &sdev->sadev->pdev->dev;
}

static bool scenic_rdma_netdev_active(struct net_device *ndev)
{
	return ndev && netif_running(ndev) && netif_carrier_ok(ndev);
}

/* Dispatch PORT_ACTIVE / PORT_ERR when the port state changed. (rtnl) */
static void scenic_rdma_port_event(struct scenic_rdma_dev *sdev)
{
	bool active = scenic_rdma_netdev_active(sdev->netdev) &&
		      !scenic_rdma_dead(sdev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = SCENIC_RDMA_PORT,
	};

	if (active == sdev->port_active)
		return;
	sdev->port_active = active;
	if (!READ_ONCE(sdev->registered))
		return;
	ev.event = active ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

/* Take @ndev as the port's netdev (NULL: it went away). (rtnl) */
static int scenic_rdma_set_netdev(struct scenic_rdma_dev *sdev,
				  struct net_device *ndev)
{
	int err;

	err = ib_device_set_netdev(&sdev->ibdev, ndev, SCENIC_RDMA_PORT);
	if (err)
		return err;
	WRITE_ONCE(sdev->netdev, ndev);	/* the QP1 receive path compares it */
	if (ndev)
		addrconf_addr_eui48((u8 *)&sdev->ibdev.node_guid,
				    ndev->dev_addr);
	scenic_rdma_port_event(sdev);
	return 0;
}

/*
 * Registers the ib_device once the netdev exists; when it comes back after
 * an unregister, rescans it so ib_core re-adds the GIDs.
 */
static void scenic_rdma_reg_work(struct work_struct *work)
{
	struct scenic_rdma_dev *sdev = container_of(work, struct scenic_rdma_dev,
						    reg_work);
	struct net_device *ndev, *found = NULL;
	int err;

	mutex_lock(&sdev->reg_lock);
	if (sdev->removing)
		goto out;

	rtnl_lock();
	if (!sdev->netdev) {
		for_each_netdev(&init_net, ndev) {
			if (scenic_rdma_is_our_netdev(sdev, ndev)) {
				found = ndev;
				break;
			}
		}
		if (found) {
			err = scenic_rdma_set_netdev(sdev, found);
			if (err)
				ibdev_err(&sdev->ibdev, "cannot attach netdev %s (%d)\n",
					  found->name, err);
		}
	}
	ndev = sdev->netdev;
	rtnl_unlock();
	if (!ndev)
		goto out;

	if (sdev->registered) {
		rdma_roce_rescan_device(&sdev->ibdev);
		goto out;
	}
	err = ib_register_device(&sdev->ibdev, "scenic_%d", sdev->dmadev);
	if (err) {
		dev_err(&sdev->sadev->adev.dev, "cannot register the ib_device (%d)\n",
			err);
		goto out;
	}
	WRITE_ONCE(sdev->registered, true);
	rtnl_lock();
	/* carrier may have changed while we registered */
	scenic_rdma_port_event(sdev);
	rtnl_unlock();
	ibdev_info(&sdev->ibdev, "SCENIC RoCE v2 on %s: %u QPs, %u CQs, %u MRs, %u TLB entries, %u SCUs, vector %d\n",
		   netdev_name(ndev), sdev->max_qp - SCENIC_RDMA_RSVD_QPS,
		   sdev->max_cq, sdev->max_mr, sdev->tlb_entries,
		   sdev->num_scus, SCENIC_VEC_RDMA);
out:
	mutex_unlock(&sdev->reg_lock);
}

static int scenic_rdma_netdev_event(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	struct scenic_rdma_dev *sdev = container_of(nb, struct scenic_rdma_dev,
						    nb);
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	if (!scenic_rdma_is_our_netdev(sdev, ndev))
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_REGISTER:
		/* registering takes rtnl: do it outside the notifier */
		if (!sdev->netdev)
			schedule_work(&sdev->reg_work);
		break;
	case NETDEV_UNREGISTER:
		if (sdev->netdev != ndev)
			break;
		/* drop our reference now: unregister_netdev waits for it */
		if (scenic_rdma_set_netdev(sdev, NULL))
			ibdev_err(&sdev->ibdev, "cannot detach netdev %s\n",
				  ndev->name);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		if (sdev->netdev == ndev)
			scenic_rdma_port_event(sdev);
		break;
	default:
		break;
	}
	return NOTIFY_DONE;
}

static int scenic_rdma_read_limits(struct scenic_rdma_dev *sdev)
{
	struct device *dev = &sdev->sadev->adev.dev;
	const struct scenic_block *scu;
	struct pci_dev *pdev = sdev->sadev->pdev;
	resource_size_t db_need;

	sdev->max_qp = scenic_rdma_rd(sdev, SCENIC_RDMA_MAX_QP);
	sdev->max_cq = scenic_rdma_rd(sdev, SCENIC_RDMA_MAX_CQ);
	sdev->max_mr = scenic_rdma_rd(sdev, SCENIC_RDMA_MAX_MR);
	sdev->tlb_entries = scenic_rdma_rd(sdev, SCENIC_RDMA_TLB_ENTRIES);
	/* a 2.0 card reads 0 there: its smaller WQE limits */
	sdev->features = scenic_rdma_rd(sdev, SCENIC_RDMA_FEATURES);
	if (sdev->features & SCENIC_RDMA_FEATURES_RQ_STRIDE_MASK) {
		sdev->max_sq_sge = SCENIC_SQ_MAX_SGE;
		sdev->max_rq_sge = SCENIC_RQ_MAX_SGE;
		sdev->max_inline = SCENIC_MAX_INLINE;
	} else {
		sdev->max_sq_sge = SCENIC_SQ_MAX_SGE_V0;
		sdev->max_rq_sge = SCENIC_RQ_MAX_SGE_V0;
		sdev->max_inline = SCENIC_MAX_INLINE_V0;
	}
	if (sdev->features & SCENIC_RDMA_FEATURES_UD_MASK)
		sdev->max_ah = min_t(u32, scenic_rdma_rd(sdev, SCENIC_RDMA_MAX_AH),
				     SCENIC_RDMA_CARD_MAX_OBJS);
	if (sdev->features & SCENIC_RDMA_FEATURES_MW_MASK)
		sdev->max_mw = min_t(u32, scenic_rdma_rd(sdev, SCENIC_RDMA_MAX_MW),
				     SCENIC_RDMA_CARD_MAX_OBJS);
	if (sdev->features & SCENIC_RDMA_FEATURES_SRQ_MASK)
		sdev->max_srq = min_t(u32, scenic_rdma_rd(sdev, SCENIC_RDMA_MAX_SRQ),
				      SCENIC_RDMA_CARD_MAX_OBJS);
	if (sdev->max_qp <= SCENIC_RDMA_RSVD_QPS ||
	    sdev->max_qp > SCENIC_RDMA_CARD_MAX_OBJS ||
	    !sdev->max_cq || sdev->max_cq > SCENIC_RDMA_CARD_MAX_OBJS ||
	    sdev->max_mr < 2 || sdev->max_mr > SCENIC_RDMA_CARD_MAX_OBJS ||
	    !sdev->tlb_entries ||
	    sdev->tlb_entries > SCENIC_RDMA_CARD_MAX_OBJS) {
		dev_err(dev, "card reports MAX_QP %u MAX_CQ %u MAX_MR %u TLB_ENTRIES %u; refusing\n",
			sdev->max_qp, sdev->max_cq, sdev->max_mr,
			sdev->tlb_entries);
		return -ENODEV;
	}

	scu = scenic_aux_find_block(sdev->sadev, SCENIC_SCU_BLK_TYPE);
	if (scu && scu->len >= SCENIC_SCU_BLK_SIZE)
		sdev->num_scus = min_t(u32, readl(scu->base + SCENIC_SCU_NUM_SLOTS),
				       SCENIC_MAX_SCUS);
	/* SCU 0 is the default path: a QP can always name it */
	if (!sdev->num_scus)
		sdev->num_scus = 1;

	/* the doorbell pages: QPs first, then CQs, then SRQs */
	db_need = ((resource_size_t)sdev->max_qp + sdev->max_cq +
		   sdev->max_srq) * SCENIC_DB_PAGE_SIZE;
	if (sdev->max_srq && pci_resource_len(pdev, SCENIC_DB_BAR) < db_need) {
		dev_warn(dev, "doorbell BAR %d of %llu bytes has no room for %u SRQs: no SRQs\n",
			 SCENIC_DB_BAR,
			 (unsigned long long)pci_resource_len(pdev, SCENIC_DB_BAR),
			 sdev->max_srq);
		sdev->max_srq = 0;
	}
	db_need = ((resource_size_t)sdev->max_qp + sdev->max_cq) *
		  SCENIC_DB_PAGE_SIZE;
	if ((pci_resource_flags(pdev, SCENIC_DB_BAR) & IORESOURCE_MEM) &&
	    pci_resource_len(pdev, SCENIC_DB_BAR) >= db_need)
		sdev->db_phys = pci_resource_start(pdev, SCENIC_DB_BAR);
	else
		dev_warn(dev, "no doorbell BAR %d of %llu bytes (have %llu): CQs and QPs cannot be created\n",
			 SCENIC_DB_BAR, (unsigned long long)db_need,
			 (unsigned long long)pci_resource_len(pdev, SCENIC_DB_BAR));
	return 0;
}

static void scenic_rdma_free_fill_tbl(struct scenic_rdma_dev *sdev)
{
	if (sdev->fill_tbl)
		dma_free_coherent(sdev->dmadev, SCENIC_RDMA_FILL_TBL_BYTES,
				  sdev->fill_tbl, sdev->fill_tbl_dma);
	sdev->fill_tbl = NULL;
}

static int scenic_rdma_probe(struct auxiliary_device *adev,
			     const struct auxiliary_device_id *id)
{
	struct scenic_aux_dev *sadev = to_scenic_aux_dev(adev);
	const struct scenic_block *blk;
	struct scenic_rdma_dev *sdev;
	int err;

	blk = scenic_aux_find_block(sadev, SCENIC_RDMA_BLK_TYPE);
	if (!blk || blk->len < SCENIC_RDMA_BLK_SIZE) {
		dev_err(&adev->dev, "no usable rdma register block\n");
		return -ENODEV;
	}

	sdev = ib_alloc_device(scenic_rdma_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	sdev->sadev = sadev;
	sdev->dmadev = &sadev->pdev->dev;
	sdev->regs = blk->base;
	mutex_init(&sdev->fill_lock);
	mutex_init(&sdev->reg_lock);
	ida_init(&sdev->pd_ida);
	ida_init(&sdev->qp_ida);
	ida_init(&sdev->cq_ida);
	ida_init(&sdev->mr_ida);
	ida_init(&sdev->ah_ida);
	ida_init(&sdev->mw_ida);
	ida_init(&sdev->srq_ida);
	xa_init(&sdev->qp_xa);
	xa_init(&sdev->cq_xa);
	xa_init(&sdev->mr_xa);
	xa_init(&sdev->srq_xa);
	INIT_WORK(&sdev->reg_work, scenic_rdma_reg_work);
	auxiliary_set_drvdata(adev, sdev);

	err = scenic_rdma_read_limits(sdev);
	if (err)
		goto err_dealloc;
	/* the indirect TLB_FILL table */
	sdev->fill_tbl = dma_alloc_coherent(sdev->dmadev,
					    SCENIC_RDMA_FILL_TBL_BYTES,
					    &sdev->fill_tbl_dma, GFP_KERNEL);
	if (!sdev->fill_tbl) {
		err = -ENOMEM;
		goto err_dealloc;
	}

	sdev->ibdev.node_type = RDMA_NODE_IB_CA;
	sdev->ibdev.phys_port_cnt = 1;
	sdev->ibdev.num_comp_vectors = 1;
	/* kernel SGEs (QP1's) carry DMA addresses with this key */
	sdev->ibdev.local_dma_lkey = SCENIC_RDMA_LOCAL_DMA_LKEY;
	/*
	 * The PCI function, as irdma and mlx5 do: the auxiliary bus has no
	 * modalias attribute, and the provider matches the PCI ids.
	 */
	sdev->ibdev.dev.parent = &sadev->pdev->dev;
	strscpy(sdev->ibdev.node_desc, "SCENIC RoCE v2",
		sizeof(sdev->ibdev.node_desc));
	ib_set_device_ops(&sdev->ibdev, &scenic_rdma_dev_ops);
	sdev->ibdev.driver_def = scenic_rdma_uapi_defs;

	/* the engine starts stopped: enable it before the first command */
	scenic_rdma_wr(sdev, SCENIC_RDMA_CTRL, SCENIC_RDMA_CTRL_ENABLE_MASK);

	scenic_rdma_stats_init(sdev);
	scenic_gsi_init(sdev);	/* without it: no QP1, no rdma_cm */
	err = scenic_rdma_events_init(sdev);
	if (err)
		goto err_disable;

	/* replays NETDEV_REGISTER for the netdevs that exist already */
	sdev->nb.notifier_call = scenic_rdma_netdev_event;
	err = register_netdevice_notifier(&sdev->nb);
	if (err) {
		dev_err(&adev->dev, "cannot register the netdevice notifier (%d)\n",
			err);
		goto err_events;
	}
	/* scenic_%d appears when the card's netdev (scenic_eth) registers */
	return 0;

err_events:
	scenic_rdma_events_fini(sdev);
err_disable:
	scenic_gsi_fini(sdev);
	scenic_rdma_stats_fini(sdev);
	scenic_rdma_wr(sdev, SCENIC_RDMA_CTRL, 0);
err_dealloc:
	scenic_rdma_free_fill_tbl(sdev);
	ib_dealloc_device(&sdev->ibdev);
	return err;
}

static void scenic_rdma_remove(struct auxiliary_device *adev)
{
	struct scenic_rdma_dev *sdev = auxiliary_get_drvdata(adev);

	mutex_lock(&sdev->reg_lock);
	sdev->removing = true;
	mutex_unlock(&sdev->reg_lock);
	unregister_netdevice_notifier(&sdev->nb);
	cancel_work_sync(&sdev->reg_work);

	/* waits for every user; open contexts are disassociated */
	if (sdev->registered)
		ib_unregister_device(&sdev->ibdev);
	rtnl_lock();
	if (sdev->netdev)
		scenic_rdma_set_netdev(sdev, NULL);
	rtnl_unlock();

	scenic_rdma_events_fini(sdev);
	scenic_gsi_fini(sdev);
	scenic_rdma_stats_fini(sdev);
	if (!scenic_rdma_dead(sdev)) {
		scenic_rdma_wr(sdev, SCENIC_RDMA_CTRL, 0);
		scenic_rdma_rd(sdev, SCENIC_RDMA_CTRL);	/* flush */
	}
	WARN_ON(!xa_empty(&sdev->qp_xa) || !xa_empty(&sdev->cq_xa) ||
		!xa_empty(&sdev->mr_xa));
	xa_destroy(&sdev->qp_xa);
	xa_destroy(&sdev->cq_xa);
	xa_destroy(&sdev->mr_xa);
	ida_destroy(&sdev->pd_ida);
	ida_destroy(&sdev->qp_ida);
	ida_destroy(&sdev->cq_ida);
	ida_destroy(&sdev->mr_ida);
	ida_destroy(&sdev->ah_ida);
	ida_destroy(&sdev->mw_ida);
	ida_destroy(&sdev->srq_ida);
	scenic_rdma_free_fill_tbl(sdev);
	mutex_destroy(&sdev->fill_lock);
	mutex_destroy(&sdev->reg_lock);
	ib_dealloc_device(&sdev->ibdev);
}

/*
 * FLR: the card forgets every QP, CQ and MR. We do not rebuild them: the
 * device is marked dead (every verb fails with -EIO) and users get
 * IB_EVENT_DEVICE_FATAL; unbinding and binding the driver recovers.
 */
static void scenic_rdma_reset_prepare(struct scenic_aux_dev *sadev)
{
	struct scenic_rdma_dev *sdev = auxiliary_get_drvdata(&sadev->adev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = SCENIC_RDMA_PORT,
	};

	scenic_rdma_events_stop(sdev);
	WRITE_ONCE(sdev->dead, true);
	disable_irq(sdev->irq);

	if (READ_ONCE(sdev->registered))
		ib_dispatch_event(&ev);
	rtnl_lock();
	scenic_rdma_port_event(sdev);
	rtnl_unlock();
	ibdev_err(&sdev->ibdev, "function-level reset: all RDMA resources are lost; the device stays unusable until the driver is bound again\n");
}

static void scenic_rdma_reset_done(struct scenic_aux_dev *sadev, int status)
{
	struct scenic_rdma_dev *sdev = auxiliary_get_drvdata(&sadev->adev);

	/* registers are at reset values: the engine is off, keep it so */
	enable_irq(sdev->irq);
	if (status)
		ibdev_err(&sdev->ibdev, "card did not come back from the reset (%d)\n",
			  status);
}

/*
 * Card fault, reload or FLR: the card lost every object. Users get
 * IB_EVENT_DEVICE_FATAL and every verb fails with -EIO; the core then
 * deletes this device and creates a new one once the card is recovered.
 */
static void scenic_rdma_fatal(struct scenic_aux_dev *sadev)
{
	struct scenic_rdma_dev *sdev = auxiliary_get_drvdata(&sadev->adev);
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = SCENIC_RDMA_PORT,
	};

	WRITE_ONCE(sdev->dead, true);
	if (READ_ONCE(sdev->registered))
		ib_dispatch_event(&ev);
	rtnl_lock();
	scenic_rdma_port_event(sdev);
	rtnl_unlock();
	ibdev_err(&sdev->ibdev, "card failure: all RDMA resources are lost; a new device appears if the card recovers\n");
}

static const struct auxiliary_device_id scenic_rdma_id_table[] = {
	{ .name = "scenic." SCENIC_AUX_RDMA },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, scenic_rdma_id_table);

static struct scenic_aux_driver scenic_rdma_driver = {
	.adrv = {
		.name = "rdma",
		.probe = scenic_rdma_probe,
		.remove = scenic_rdma_remove,
		.id_table = scenic_rdma_id_table,
	},
	.reset_prepare = scenic_rdma_reset_prepare,
	.reset_done = scenic_rdma_reset_done,
	.fatal = scenic_rdma_fatal,
};

static int __init scenic_rdma_init(void)
{
	return auxiliary_driver_register(&scenic_rdma_driver.adrv);
}
module_init(scenic_rdma_init);

static void __exit scenic_rdma_exit(void)
{
	auxiliary_driver_unregister(&scenic_rdma_driver.adrv);
}
module_exit(scenic_rdma_exit);

MODULE_DESCRIPTION("SCENIC SmartNIC RoCE v2 RDMA driver");
MODULE_AUTHOR("The SCENIC authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(SCENIC_RDMA_DRV_VERSION);
