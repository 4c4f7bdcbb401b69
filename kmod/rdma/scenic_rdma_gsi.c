// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: scenic_rdma.ko QP1 (GSI) in software, so that ib_mad,
 * ib_cm and rdma_cm work. The card's engine does RC only; it leaves frames
 * to QP 1 to the fallback path (the ETH RX ring), so they reach the IP stack
 * as UDP/4791 datagrams. A kernel UDP socket on port 4791 receives them, as
 * rxe does, checks them (BTH, DETH, ICRC) and completes them to QP1's receive
 * queue; sends are built here (IPv4, UDP, BTH, DETH, MAD, ICRC) and leave
 * through the IP stack, i.e. the card's netdev. RoCE v2 over IPv4 only.
 * A datagram to an address of this host (the card's own GID, or another
 * SCENIC card's in the same host) is handed to that device's receive path
 * here, as the card turns RC traffic to its own GIDs around: the IP stack
 * would loop it through lo, where the socket cannot tell the device.
 *
 * Also here: the kernel CQs (work completions in host memory) and the kernel
 * address handles QP1 needs.
 *
 * Kernel SGEs carry DMA addresses mapped for the PCI function (ib_dma_map_*
 * on our dma_device, lkey = pd->local_dma_lkey). This code plays the device:
 * it translates each DMA address back to the page it reaches (the IOMMU's
 * translation when the function is behind a paging domain, dma-direct's
 * otherwise, which is also right for swiotlb bounce slots: the core copies
 * them on unmap and sync) and copies with kmap_local_page().
 */

#include <linux/crc32.h>
#include <linux/dma-direct.h>
#include <linux/etherdevice.h>
#include <linux/highmem.h>
#include <linux/inetdevice.h>
#include <linux/iommu.h>
#include <linux/ip.h>
#include <linux/mm.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_mad.h>

#include "scenic_rdma_drv.h"

#define SCENIC_ROCE_UDP_PORT	4791
#define SCENIC_BTH_BYTES	12
#define SCENIC_DETH_BYTES	8
#define SCENIC_ICRC_BYTES	4
#define SCENIC_OP_UD_SEND_ONLY	0x64
#define SCENIC_BTH_PAD_SHIFT	4
#define SCENIC_BTH_PAD_MASK	0x30
#define SCENIC_BTH_TVER_MASK	0x0f
#define SCENIC_QPN_MASK		0xffffff
#define SCENIC_PKEY_LOW_MASK	0x7fff
#define SCENIC_GRH_BYTES	40	/* the GRH area in front of a UD receive */
#define SCENIC_GSI_HDR_BYTES	(SCENIC_BTH_BYTES + SCENIC_DETH_BYTES)
/* crc32_le(~0, 8 bytes of 0xff): the ICRC over RoCE v2's masked LRH */
#define SCENIC_ICRC_SEED	0xdebb20e3

struct scenic_gsi_rwqe {
	u64 wr_id;
	u32 num_sge;
	struct ib_sge sge[SCENIC_GSI_MAX_SGE];
};

/* A send waiting for the TX work: the payload is copied at post time. */
struct scenic_gsi_send {
	struct list_head list;
	u64 wr_id;
	bool signaled;
	__be32 saddr;
	__be32 daddr;
	u8 ttl;
	u8 tos;
	u16 sport;
	u32 dest_qpn;
	u32 qkey;
	u32 len;
	u8 data[];
};

/**
 * struct scenic_gsi_qp - the software QP1
 * @sdev: the device
 * @qp: the ib_qp's driver object
 * @state: QP state (written under qp->lock and both queue locks)
 * @qkey: Q_Key (IB_QP1_QKEY from ib_mad)
 * @rq_lock: protects the receive queue
 * @rq: ring of receive WQEs
 * @rq_entries: slots of @rq
 * @rq_head: the oldest posted WQE
 * @rq_count: WQEs posted, from @rq_head on
 * @sq_lock: protects @sq_list, @sq_used and @psn
 * @sq_list: sends waiting for @tx_work
 * @sq_used: sends posted and not completed yet
 * @psn: PSN of the next send
 * @tx_work: sends through the IP stack (post_send runs with IRQs off)
 */
struct scenic_gsi_qp {
	struct scenic_rdma_dev *sdev;
	struct scenic_rdma_qp *qp;
	enum ib_qp_state state;
	u32 qkey;

	spinlock_t rq_lock;	/* receive queue */
	struct scenic_gsi_rwqe *rq;
	u32 rq_entries;
	u32 rq_head;
	u32 rq_count;

	spinlock_t sq_lock;	/* send list, PSN */
	struct list_head sq_list;
	u32 sq_used;
	u32 psn;
	struct work_struct tx_work;
};

/* One UDP socket on port 4791 (init_net) for every SCENIC device. */
static DEFINE_MUTEX(scenic_gsi_lock);
static struct socket *scenic_gsi_sock;
static unsigned int scenic_gsi_users;
static LIST_HEAD(scenic_gsi_devs);	/* RCU readers: the receive path */

/* Byte-order helpers for packet fields at any alignment. */
static u32 scenic_get_be32(const u8 *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static u16 scenic_get_be16(const u8 *p)
{
	__be16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

static u32 scenic_get_le32(const u8 *p)
{
	__le32 v;

	memcpy(&v, p, sizeof(v));
	return le32_to_cpu(v);
}

static void scenic_put_be32(u8 *p, u32 val)
{
	__be32 v = cpu_to_be32(val);

	memcpy(p, &v, sizeof(v));
}

static void scenic_put_be16(u8 *p, u16 val)
{
	__be16 v = cpu_to_be16(val);

	memcpy(p, &v, sizeof(v));
}

static void scenic_put_le32(u8 *p, u32 val)
{
	__le32 v = cpu_to_le32(val);

	memcpy(p, &v, sizeof(v));
}

/* ---- kernel CQs ---- */

int scenic_sw_cq_create(struct scenic_rdma_dev *sdev, struct scenic_rdma_cq *cq,
			const struct ib_cq_init_attr *attr)
{
	struct scenic_sw_cq *sw;

	if (attr->flags || attr->cqe < 1 || attr->cqe > SCENIC_RDMA_MAX_CQE) {
		ibdev_dbg(&sdev->ibdev, "create_cq (kernel): %u entries, flags 0x%x\n",
			  attr->cqe, attr->flags);
		return -EINVAL;
	}
	sw = kzalloc(sizeof(*sw), GFP_KERNEL);
	if (!sw)
		return -ENOMEM;
	sw->wc = kvcalloc(attr->cqe, sizeof(*sw->wc), GFP_KERNEL);
	if (!sw->wc) {
		kfree(sw);
		return -ENOMEM;
	}
	spin_lock_init(&sw->lock);
	cq->sw = sw;
	cq->ibcq.cqe = attr->cqe;
	return 0;
}

void scenic_sw_cq_destroy(struct scenic_rdma_cq *cq)
{
	kvfree(cq->sw->wc);
	kfree(cq->sw);
	cq->sw = NULL;
}

/* Queues @wc; calls the completion handler if the CQ was armed for it. */
static void scenic_sw_cq_post(struct scenic_rdma_cq *cq,
			      const struct ib_wc *wc, bool solicited)
{
	struct scenic_sw_cq *sw = cq->sw;
	struct ib_event ev;
	unsigned long flags;
	bool notify = false;

	spin_lock_irqsave(&sw->lock, flags);
	if (sw->count == cq->ibcq.cqe) {
		spin_unlock_irqrestore(&sw->lock, flags);
		ibdev_err_ratelimited(cq->ibcq.device, "kernel CQ overrun\n");
		if (cq->ibcq.event_handler) {
			ev.device = cq->ibcq.device;
			ev.element.cq = &cq->ibcq;
			ev.event = IB_EVENT_CQ_ERR;
			cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
		}
		return;
	}
	sw->wc[(sw->head + sw->count) % cq->ibcq.cqe] = *wc;
	sw->count++;
	if (sw->notify == IB_CQ_NEXT_COMP ||
	    (sw->notify == IB_CQ_SOLICITED &&
	     (solicited || wc->status != IB_WC_SUCCESS))) {
		sw->notify = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

int scenic_rdma_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct scenic_sw_cq *sw = to_scq(ibcq)->sw;
	unsigned long flags;
	int n = 0;

	if (!sw)
		return -EOPNOTSUPP;	/* user CQs are polled by the provider */
	spin_lock_irqsave(&sw->lock, flags);
	while (n < num_entries && sw->count) {
		wc[n++] = sw->wc[sw->head];
		sw->head = (sw->head + 1) % ibcq->cqe;
		sw->count--;
	}
	spin_unlock_irqrestore(&sw->lock, flags);
	return n;
}

int scenic_sw_cq_req_notify(struct scenic_rdma_cq *cq,
			    enum ib_cq_notify_flags flags)
{
	struct scenic_sw_cq *sw = cq->sw;
	unsigned long irqf;
	int ret = 0;

	spin_lock_irqsave(&sw->lock, irqf);
	if (sw->notify != IB_CQ_NEXT_COMP)
		sw->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && sw->count)
		ret = 1;
	spin_unlock_irqrestore(&sw->lock, irqf);
	return ret;
}

/* ---- address handles ---- */

/*
 * A user AH (FEATURES.ud): an entry of the card's AH table, which the card
 * checks against the QP's PD on every UD WQE. The address comes from the
 * kernel's GID table and neighbour resolution, never from the user.
 */
static int scenic_rdma_create_user_ah(struct scenic_rdma_dev *sdev,
				      struct scenic_rdma_ah *ah,
				      const struct rdma_ah_init_attr *init,
				      struct ib_udata *udata)
{
	const struct rdma_ah_attr *attr = init->ah_attr;
	struct scenic_ibv_create_ah_resp resp = {};
	struct scenic_aq_create_ah c = {
		.hdr.opcode = SCENIC_AQ_OP_CREATE_AH,
	};
	struct scenic_aq_destroy_ah d = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_AH,
	};
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;
	bool v4;
	int id, err;

	if (!sdev->max_ah) {
		ibdev_dbg(&sdev->ibdev, "create_ah: the card has no UD (RDMA.FEATURES.ud)\n");
		return -EOPNOTSUPP;
	}
	if (!(init->flags & RDMA_CREATE_AH_SLEEPABLE))
		return -EOPNOTSUPP;	/* CREATE_AH waits for the card */
	if (scenic_rdma_dead(sdev))
		return -EIO;
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP) {
		ibdev_dbg(&sdev->ibdev, "create_ah: RoCE v2 GIDs only\n");
		return -EINVAL;
	}
	v4 = ipv6_addr_v4mapped((const struct in6_addr *)sgid_attr->gid.raw);
	if (v4 != ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw) ||
	    !is_valid_ether_addr(attr->roce.dmac)) {
		ibdev_dbg(&sdev->ibdev, "create_ah: %pI6 -> %pI6 (%pM): mixed IP versions or no MAC\n",
			  sgid_attr->gid.raw, grh->dgid.raw, attr->roce.dmac);
		return -EINVAL;
	}
	id = ida_alloc_range(&sdev->ah_ida, 1, sdev->max_ah - 1, GFP_KERNEL);
	if (id < 0)
		return id;
	c.ah = cpu_to_le32(id);
	c.pdn = cpu_to_le32(to_spd(ah->ibah.pd)->pdn);
	memcpy(c.dmac, attr->roce.dmac, sizeof(c.dmac));
	c.hop_limit = grh->hop_limit;
	c.traffic_class = grh->traffic_class;
	c.flow = cpu_to_le32(FIELD_PREP(SCENIC_AQ_CREATE_AH_FLOW_LABEL_MASK,
					grh->flow_label) |
			     FIELD_PREP(SCENIC_AQ_CREATE_AH_IPV4_MASK, v4));
	memcpy(c.dgid, grh->dgid.raw, sizeof(c.dgid));
	memcpy(c.sgid, sgid_attr->gid.raw, sizeof(c.sgid));
	err = scenic_rdma_cmd(sdev, &c);
	if (err)
		goto err_ida;
	resp.ah_index = id;
	err = scenic_rdma_udata_resp(sdev, udata, &resp, sizeof(resp),
				     sizeof(resp));
	if (err)
		goto err_card;
	ah->index = id;
	return 0;

err_card:
	d.ah = cpu_to_le32(id);
	scenic_rdma_cmd(sdev, &d);
err_ida:
	ida_free(&sdev->ah_ida, id);
	return err;
}

int scenic_rdma_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			  struct ib_udata *udata)
{
	const struct rdma_ah_attr *attr = init->ah_attr;
	struct scenic_rdma_ah *ah = to_sah(ibah);
	const struct ib_global_route *grh;
	const struct ib_gid_attr *sgid_attr;

	if (udata)
		return scenic_rdma_create_user_ah(to_sdev(ibah->device), ah,
						  init, udata);
	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(attr);
	sgid_attr = grh->sgid_attr;
	if (!sgid_attr || sgid_attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	if (!ipv6_addr_v4mapped((const struct in6_addr *)sgid_attr->gid.raw) ||
	    !ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw)) {
		ibdev_dbg(ibah->device, "create_ah: %pI6 -> %pI6: QP1 is RoCE v2 over IPv4 only\n",
			  sgid_attr->gid.raw, grh->dgid.raw);
		return -EAFNOSUPPORT;
	}
	memcpy(&ah->saddr, sgid_attr->gid.raw + 12, sizeof(ah->saddr));
	memcpy(&ah->daddr, grh->dgid.raw + 12, sizeof(ah->daddr));
	ah->ttl = grh->hop_limit;
	ah->tos = grh->traffic_class;
	ah->flow_label = grh->flow_label;
	return 0;
}

int scenic_rdma_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct scenic_rdma_dev *sdev = to_sdev(ibah->device);
	struct scenic_rdma_ah *ah = to_sah(ibah);
	struct scenic_aq_destroy_ah d = {
		.hdr.opcode = SCENIC_AQ_OP_DESTROY_AH,
		.ah = cpu_to_le32(ah->index),
	};
	int err;

	if (!ah->index)
		return 0;	/* a kernel AH lives in the driver only */
	/* -EIO: the card is dead or was reset and has forgotten the AH */
	err = scenic_rdma_cmd(sdev, &d);
	if (err && err != -EIO)
		return err;
	ida_free(&sdev->ah_ida, ah->index);
	return 0;
}

/* ---- the DMA MR ---- */

/*
 * get_dma_mr is one of the kernel verbs ib_core requires before it lets
 * kernel clients (ib_mad, ib_cm, rdma_cm) near the device. Local access
 * only: its lkey is local_dma_lkey, which QP1 understands; the card has no
 * global rkey, so remote access is refused.
 */
struct ib_mr *scenic_rdma_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct scenic_rdma_mr *mr;

	if (access & ~IB_ACCESS_LOCAL_WRITE) {
		ibdev_dbg(ibpd->device, "get_dma_mr: access 0x%x: local only\n",
			  access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->key = SCENIC_RDMA_LOCAL_DMA_LKEY;
	mr->ibmr.lkey = SCENIC_RDMA_LOCAL_DMA_LKEY;
	mr->ibmr.rkey = 0;
	return &mr->ibmr;
}

/* User MRs (index >= 1, a umem) go to the card; the DMA MR is only ours. */
int scenic_rdma_dereg_any_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct scenic_rdma_mr *mr = to_smr(ibmr);

	if (mr->umem || mr->index)
		return scenic_rdma_dereg_mr(ibmr, udata);
	kfree(mr);
	return 0;
}

/* ---- DMA addresses of kernel SGEs ---- */

/* The page behind @dma (a bus address of our PCI function), or NULL. */
static struct page *scenic_gsi_dma_page(struct scenic_rdma_dev *sdev,
					dma_addr_t dma)
{
	struct iommu_domain *dom = iommu_get_domain_for_dev(sdev->dmadev);
	phys_addr_t phys;

	if (dom && (dom->type & __IOMMU_DOMAIN_PAGING))
		phys = iommu_iova_to_phys(dom, dma);
	else
		phys = dma_to_phys(sdev->dmadev, dma);
	if (!phys || !pfn_valid(PHYS_PFN(phys)))
		return NULL;
	return pfn_to_page(PHYS_PFN(phys));
}

/* Copies @len bytes between @buf and the memory at bus address @dma. */
static int scenic_gsi_dma_copy(struct scenic_rdma_dev *sdev, u64 dma,
			       void *buf, u32 len, bool to_dma)
{
	struct page *page;
	u32 off, n;
	u8 *va;

	while (len) {
		off = offset_in_page(dma);
		n = min_t(u32, len, PAGE_SIZE - off);
		page = scenic_gsi_dma_page(sdev, dma);
		if (!page)
			return -EFAULT;
		va = kmap_local_page(page);
		if (to_dma)
			memcpy(va + off, buf, n);
		else
			memcpy(buf, va + off, n);
		kunmap_local(va);
		dma += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/* ---- ICRC (IBA annex A17, as rxe computes it) ---- */

/*
 * @ip: the IPv4 header (20 bytes) followed by UDP, BTH and the rest up to
 * the ICRC (@len bytes from @ip, not counting it). TOS, TTL, the IP and UDP
 * checksums and the BTH's resv8a byte count as all ones.
 */
static u32 scenic_gsi_icrc(const u8 *ip, u32 len)
{
	u8 hdr[sizeof(struct iphdr) + sizeof(struct udphdr) + SCENIC_BTH_BYTES];
	struct udphdr *udph;
	struct iphdr *iph;
	u32 crc;

	memcpy(hdr, ip, sizeof(hdr));
	iph = (struct iphdr *)hdr;
	udph = (struct udphdr *)(iph + 1);
	iph->tos = 0xff;
	iph->ttl = 0xff;
	iph->check = CSUM_MANGLED_0;
	udph->check = CSUM_MANGLED_0;
	hdr[sizeof(*iph) + sizeof(*udph) + 4] = 0xff;	/* resv8a */

	crc = crc32_le(SCENIC_ICRC_SEED, hdr, sizeof(hdr));
	crc = crc32_le(crc, ip + sizeof(hdr), len - sizeof(hdr));
	return ~crc;
}

/* ---- send ---- */

static void scenic_gsi_complete_send(struct scenic_gsi_qp *gsi,
				     struct scenic_gsi_send *s,
				     enum ib_wc_status status)
{
	struct ib_qp *ibqp = &gsi->qp->ibqp;
	struct ib_wc wc = {
		.wr_id = s->wr_id,
		.status = status,
		.opcode = IB_WC_SEND,
		.byte_len = s->len,
		.qp = ibqp,
		.port_num = SCENIC_RDMA_PORT,
	};
	unsigned long flags;

	if (s->signaled || status != IB_WC_SUCCESS)
		scenic_sw_cq_post(to_scq(ibqp->send_cq), &wc, false);
	spin_lock_irqsave(&gsi->sq_lock, flags);
	gsi->sq_used--;
	spin_unlock_irqrestore(&gsi->sq_lock, flags);
}

/* The netdev of the port, held, or NULL. */
static struct net_device *scenic_gsi_netdev(struct scenic_rdma_dev *sdev)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rcu_dereference(sdev->ibdev.port_data[SCENIC_RDMA_PORT].netdev);
	if (ndev)
		dev_hold(ndev);
	rcu_read_unlock();
	return ndev;
}

static void scenic_gsi_recv(struct scenic_rdma_dev *sdev, struct sk_buff *skb);

/*
 * @skb, a complete datagram to a local address: true when a SCENIC device
 * owns that address and took it (delivered or dropped and counted there).
 */
static bool scenic_gsi_loopback(struct scenic_rdma_dev *sdev, struct net *net,
				struct sk_buff *skb, __be32 daddr)
{
	struct scenic_rdma_dev *to;
	struct net_device *dev;
	bool taken = false;

	/* as the UDP socket's receive: softirq-like, under RCU */
	local_bh_disable();
	rcu_read_lock();
	dev = __ip_dev_find(net, daddr, false);
	list_for_each_entry_rcu(to, &scenic_gsi_devs, gsi_node) {
		if (dev && READ_ONCE(to->netdev) == dev) {
			atomic64_inc(&sdev->sw.gsi_loopback);
			scenic_gsi_recv(to, skb);
			taken = true;
			break;
		}
	}
	rcu_read_unlock();
	local_bh_enable();
	return taken;
}

/* IPv4 / UDP / BTH / DETH / payload / ICRC through the IP stack. */
static int scenic_gsi_xmit(struct scenic_gsi_qp *gsi,
			   const struct scenic_gsi_send *s, u32 psn)
{
	struct scenic_rdma_dev *sdev = gsi->sdev;
	u32 pad = (4 - (s->len & 3)) & 3;
	u32 roce_len = SCENIC_GSI_HDR_BYTES + s->len + pad + SCENIC_ICRC_BYTES;
	struct flowi4 fl4 = {};
	struct net_device *ndev;
	struct udphdr *udph;
	struct sk_buff *skb;
	struct iphdr *iph;
	struct rtable *rt;
	struct net *net;
	u8 *p;
	int err;

	ndev = scenic_gsi_netdev(sdev);
	if (!ndev)
		return -ENETDOWN;
	net = dev_net(ndev);
	fl4.flowi4_oif = ndev->ifindex;
	fl4.flowi4_proto = IPPROTO_UDP;
	fl4.saddr = s->saddr;
	fl4.daddr = s->daddr;
	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt)) {
		err = PTR_ERR(rt);
		goto out;
	}
	skb = alloc_skb(LL_RESERVED_SPACE(rt->dst.dev) + sizeof(*iph) +
			sizeof(*udph) + roce_len + rt->dst.dev->needed_tailroom,
			GFP_KERNEL);
	if (!skb) {
		ip_rt_put(rt);
		err = -ENOMEM;
		goto out;
	}
	skb_reserve(skb, LL_RESERVED_SPACE(rt->dst.dev) + sizeof(*iph) +
		    sizeof(*udph));
	p = skb_put_zero(skb, roce_len);
	/* BTH: UD SEND_ONLY, pad count, TVer 0, default P_Key */
	p[0] = SCENIC_OP_UD_SEND_ONLY;
	p[1] = pad << SCENIC_BTH_PAD_SHIFT;
	scenic_put_be16(p + 2, IB_DEFAULT_PKEY_FULL);
	scenic_put_be32(p + 4, s->dest_qpn & SCENIC_QPN_MASK);
	scenic_put_be32(p + 8, psn & SCENIC_QPN_MASK);
	/* DETH: Q_Key, source QP */
	scenic_put_be32(p + SCENIC_BTH_BYTES, s->qkey);
	scenic_put_be32(p + SCENIC_BTH_BYTES + 4, SCENIC_GSI_QPN);
	memcpy(p + SCENIC_GSI_HDR_BYTES, s->data, s->len);

	udph = skb_push(skb, sizeof(*udph));
	skb_reset_transport_header(skb);
	udph->source = htons(s->sport);
	udph->dest = htons(SCENIC_ROCE_UDP_PORT);
	udph->len = htons(skb->len);
	udph->check = 0;	/* none over IPv4: the ICRC covers the packet */

	skb_dst_set(skb, &rt->dst);	/* takes the route's reference */
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	iph = skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph->version = IPVERSION;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->protocol = IPPROTO_UDP;
	iph->tos = s->tos;
	iph->ttl = s->ttl ? s->ttl : ip4_dst_hoplimit(&rt->dst);
	iph->saddr = s->saddr;
	iph->daddr = s->daddr;
	__ip_select_ident(net, iph, 1);
	skb->protocol = htons(ETH_P_IP);
	skb->dev = rt->dst.dev;

	/* least significant byte first on the wire, as rxe and the card */
	scenic_put_le32(skb_tail_pointer(skb) - SCENIC_ICRC_BYTES,
			scenic_gsi_icrc(skb->data,
					skb->len - SCENIC_ICRC_BYTES));

	/* to this host: the skb (and its route) belongs to the receiver now */
	if (rt->rt_type == RTN_LOCAL &&
	    scenic_gsi_loopback(sdev, net, skb, s->daddr)) {
		err = 0;
		goto out;
	}
	err = ip_local_out(net, NULL, skb);
	if (err > 0)
		err = net_xmit_errno(err);
out:
	dev_put(ndev);
	return err;
}

static void scenic_gsi_tx_work(struct work_struct *work)
{
	struct scenic_gsi_qp *gsi = container_of(work, struct scenic_gsi_qp,
						 tx_work);
	struct scenic_rdma_dev *sdev = gsi->sdev;
	struct scenic_gsi_send *s;
	enum ib_wc_status status;
	unsigned long flags;
	u32 psn;
	int err;

	for (;;) {
		spin_lock_irqsave(&gsi->sq_lock, flags);
		s = list_first_entry_or_null(&gsi->sq_list,
					     struct scenic_gsi_send, list);
		if (!s) {
			spin_unlock_irqrestore(&gsi->sq_lock, flags);
			break;
		}
		list_del(&s->list);
		psn = gsi->psn;
		gsi->psn = (gsi->psn + 1) & SCENIC_QPN_MASK;
		spin_unlock_irqrestore(&gsi->sq_lock, flags);

		status = IB_WC_SUCCESS;
		if (READ_ONCE(gsi->state) == IB_QPS_ERR) {
			status = IB_WC_WR_FLUSH_ERR;
		} else {
			err = scenic_gsi_xmit(gsi, s, psn);
			if (err) {
				/* UD: lost like on the wire; the MAD layer retries */
				atomic64_inc(&sdev->sw.gsi_tx_errors);
				ibdev_dbg(&sdev->ibdev, "QP1 send to %pI4 failed (%d)\n",
					  &s->daddr, err);
			} else {
				atomic64_inc(&sdev->sw.gsi_tx);
			}
		}
		scenic_gsi_complete_send(gsi, s, status);
		kfree(s);
	}
}

static int scenic_gsi_post_one_send(struct scenic_gsi_qp *gsi,
				    const struct ib_send_wr *wr)
{
	struct scenic_rdma_dev *sdev = gsi->sdev;
	const struct ib_ud_wr *ud = ud_wr(wr);
	struct scenic_gsi_send *s;
	struct scenic_rdma_ah *ah;
	unsigned long flags;
	u32 len = 0, off = 0;
	int i, err;

	if (wr->opcode != IB_WR_SEND || wr->num_sge < 0 ||
	    wr->num_sge > gsi->qp->cap.max_send_sge || !ud->ah ||
	    (wr->send_flags & IB_SEND_INLINE))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		if (wr->sg_list[i].lkey != sdev->ibdev.local_dma_lkey ||
		    wr->sg_list[i].length > SCENIC_GSI_MAX_MSG)
			return -EINVAL;
		len += wr->sg_list[i].length;
	}
	if (len > SCENIC_GSI_MAX_MSG)
		return -EINVAL;

	s = kmalloc(struct_size(s, data, len), GFP_ATOMIC);
	if (!s)
		return -ENOMEM;
	for (i = 0; i < wr->num_sge; i++) {
		err = scenic_gsi_dma_copy(sdev, wr->sg_list[i].addr,
					  s->data + off, wr->sg_list[i].length,
					  false);
		if (err) {
			kfree(s);
			return err;
		}
		off += wr->sg_list[i].length;
	}
	ah = to_sah(ud->ah);
	s->wr_id = wr->wr_id;
	s->signaled = (wr->send_flags & IB_SEND_SIGNALED) ||
		      gsi->qp->sq_sig_type == IB_SIGNAL_ALL_WR;
	s->saddr = ah->saddr;
	s->daddr = ah->daddr;
	s->ttl = ah->ttl;
	s->tos = ah->tos;
	s->sport = rdma_get_udp_sport(ah->flow_label, SCENIC_GSI_QPN,
				      ud->remote_qpn);
	s->dest_qpn = ud->remote_qpn & SCENIC_QPN_MASK;
	/* a Q_Key with the high bit set means the QP's own */
	s->qkey = (ud->remote_qkey & BIT(31)) ? gsi->qkey : ud->remote_qkey;
	s->len = len;

	spin_lock_irqsave(&gsi->sq_lock, flags);
	if (gsi->sq_used >= gsi->qp->cap.max_send_wr) {
		spin_unlock_irqrestore(&gsi->sq_lock, flags);
		kfree(s);
		return -ENOMEM;
	}
	gsi->sq_used++;
	list_add_tail(&s->list, &gsi->sq_list);
	spin_unlock_irqrestore(&gsi->sq_lock, flags);
	return 0;
}

int scenic_rdma_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	struct scenic_gsi_qp *gsi = to_sqp(ibqp)->gsi;
	int err = 0;

	if (!gsi) {
		*bad_wr = wr;
		return -EOPNOTSUPP;	/* user QPs post through the provider */
	}
	if (READ_ONCE(gsi->state) != IB_QPS_RTS) {
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		err = scenic_gsi_post_one_send(gsi, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
	}
	schedule_work(&gsi->tx_work);
	return err;
}

/* ---- receive ---- */

int scenic_rdma_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct scenic_gsi_qp *gsi = to_sqp(ibqp)->gsi;
	struct scenic_rdma_dev *sdev = to_sdev(ibqp->device);
	struct scenic_gsi_rwqe *rwqe;
	unsigned long flags;
	int i, err = 0;

	if (!gsi) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&gsi->rq_lock, flags);
	if (gsi->state == IB_QPS_RESET) {
		err = -EINVAL;
		goto out;
	}
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > gsi->qp->cap.max_recv_sge) {
			err = -EINVAL;
			goto out;
		}
		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].lkey != sdev->ibdev.local_dma_lkey) {
				err = -EINVAL;
				goto out;
			}
		}
		if (gsi->rq_count == gsi->rq_entries) {
			err = -ENOMEM;
			goto out;
		}
		rwqe = &gsi->rq[(gsi->rq_head + gsi->rq_count) % gsi->rq_entries];
		rwqe->wr_id = wr->wr_id;
		rwqe->num_sge = wr->num_sge;
		memcpy(rwqe->sge, wr->sg_list, wr->num_sge * sizeof(*wr->sg_list));
		gsi->rq_count++;
	}
out:
	spin_unlock_irqrestore(&gsi->rq_lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/* Writes @len bytes of @src at byte @off of the WQE's scatter list. */
static int scenic_gsi_scatter(struct scenic_rdma_dev *sdev,
			      const struct scenic_gsi_rwqe *rwqe, u32 off,
			      const void *src, u32 len)
{
	u32 i, n;
	int err;

	for (i = 0; i < rwqe->num_sge && len; i++) {
		if (off >= rwqe->sge[i].length) {
			off -= rwqe->sge[i].length;
			continue;
		}
		n = min(len, rwqe->sge[i].length - off);
		err = scenic_gsi_dma_copy(sdev, rwqe->sge[i].addr + off,
					  (void *)src, n, true);
		if (err)
			return err;
		src += n;
		len -= n;
		off = 0;
	}
	return len ? -EMSGSIZE : 0;
}

/* Completes one datagram into QP1's next receive WQE; false: dropped. */
static bool scenic_gsi_deliver(struct scenic_gsi_qp *gsi,
			       const struct iphdr *iph, const u8 *bth,
			       u32 len)
{
	struct scenic_rdma_dev *sdev = gsi->sdev;
	union rdma_network_hdr grh = {};
	struct scenic_gsi_rwqe *rwqe;
	struct ib_wc wc = {};
	unsigned long flags;
	u32 room = 0, i;
	u64 wr_id;

	spin_lock_irqsave(&gsi->rq_lock, flags);
	if ((gsi->state != IB_QPS_RTR && gsi->state != IB_QPS_RTS) ||
	    !gsi->rq_count) {
		spin_unlock_irqrestore(&gsi->rq_lock, flags);
		return false;
	}
	rwqe = &gsi->rq[gsi->rq_head];
	for (i = 0; i < rwqe->num_sge; i++)
		room += rwqe->sge[i].length;
	if (room < SCENIC_GRH_BYTES + len) {
		spin_unlock_irqrestore(&gsi->rq_lock, flags);
		return false;	/* the WQE stays for a datagram that fits */
	}
	wr_id = rwqe->wr_id;

	/* RoCE v2 over IPv4: the IPv4 header in the GRH area's last 20 bytes */
	memcpy(&grh.roce4grh, iph, sizeof(grh.roce4grh));
	wc.status = IB_WC_SUCCESS;
	if (scenic_gsi_scatter(sdev, rwqe, 0, &grh, SCENIC_GRH_BYTES) ||
	    scenic_gsi_scatter(sdev, rwqe, SCENIC_GRH_BYTES,
			       bth + SCENIC_GSI_HDR_BYTES, len))
		wc.status = IB_WC_LOC_PROT_ERR;
	/* consumed only now: post_recv may reuse the slot */
	gsi->rq_head = (gsi->rq_head + 1) % gsi->rq_entries;
	gsi->rq_count--;
	spin_unlock_irqrestore(&gsi->rq_lock, flags);

	wc.wr_id = wr_id;
	wc.opcode = IB_WC_RECV;
	wc.byte_len = SCENIC_GRH_BYTES + len;
	wc.qp = &gsi->qp->ibqp;
	wc.src_qp = scenic_get_be32(bth + SCENIC_BTH_BYTES + 4) &
		    SCENIC_QPN_MASK;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	wc.network_hdr_type = RDMA_NETWORK_IPV4;
	wc.pkey_index = 0;
	wc.slid = 0;
	wc.sl = 0;
	wc.port_num = SCENIC_RDMA_PORT;
	scenic_sw_cq_post(to_scq(gsi->qp->ibqp.recv_cq), &wc,
			  bth[1] & BIT(7));
	return wc.status == IB_WC_SUCCESS;
}

/*
 * One UDP/4791 datagram of @sdev's netdev: checks it (IPv4 without options,
 * lengths, BTH, ICRC, Q_Key) and completes it to QP1. Anything else is
 * dropped and counted.
 */
static void scenic_gsi_recv(struct scenic_rdma_dev *sdev, struct sk_buff *skb)
{
	const struct udphdr *udph;
	const struct iphdr *iph;
	struct scenic_gsi_qp *gsi;
	u32 ulen, paylen, pad, len;
	const u8 *bth;

	if (skb->protocol != htons(ETH_P_IP) || skb_linearize(skb))
		goto drop;
	iph = ip_hdr(skb);
	udph = udp_hdr(skb);
	if (iph->version != 4 || iph->ihl != sizeof(*iph) >> 2 ||
	    (const u8 *)udph != (const u8 *)iph + sizeof(*iph))
		goto drop;
	ulen = ntohs(udph->len);
	if (ulen < sizeof(*udph) + SCENIC_GSI_HDR_BYTES + SCENIC_ICRC_BYTES ||
	    (const u8 *)udph + ulen > skb_tail_pointer(skb) ||
	    ntohs(iph->tot_len) != sizeof(*iph) + ulen)
		goto drop;
	paylen = ulen - sizeof(*udph);
	bth = (const u8 *)(udph + 1);
	if (paylen % 4 || bth[0] != SCENIC_OP_UD_SEND_ONLY ||
	    (bth[1] & SCENIC_BTH_TVER_MASK) ||
	    (scenic_get_be16(bth + 2) & SCENIC_PKEY_LOW_MASK) !=
	    SCENIC_PKEY_LOW_MASK ||
	    (scenic_get_be32(bth + 4) & SCENIC_QPN_MASK) != SCENIC_GSI_QPN)
		goto drop;
	pad = (bth[1] & SCENIC_BTH_PAD_MASK) >> SCENIC_BTH_PAD_SHIFT;
	if (paylen < SCENIC_GSI_HDR_BYTES + pad + SCENIC_ICRC_BYTES)
		goto drop;
	len = paylen - SCENIC_GSI_HDR_BYTES - pad - SCENIC_ICRC_BYTES;
	if (len > SCENIC_GSI_MAX_MSG ||
	    scenic_gsi_icrc((const u8 *)iph, sizeof(*iph) + ulen -
			    SCENIC_ICRC_BYTES) !=
	    scenic_get_le32(bth + paylen - SCENIC_ICRC_BYTES))
		goto drop;

	gsi = rcu_dereference(sdev->gsi);
	if (!gsi || scenic_get_be32(bth + SCENIC_BTH_BYTES) != gsi->qkey)
		goto drop;
	if (!scenic_gsi_deliver(gsi, iph, bth, len))
		goto drop;
	atomic64_inc(&sdev->sw.gsi_rx);
	consume_skb(skb);
	return;
drop:
	atomic64_inc(&sdev->sw.gsi_rx_drops);
	kfree_skb(skb);
}

/* encap_rcv of the UDP socket (softirq, under rcu_read_lock). */
static int scenic_gsi_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct scenic_rdma_dev *sdev;

	list_for_each_entry_rcu(sdev, &scenic_gsi_devs, gsi_node) {
		/* compared, never dereferenced */
		if (skb->dev && READ_ONCE(sdev->netdev) == skb->dev) {
			scenic_gsi_recv(sdev, skb);
			return 0;
		}
	}
	kfree_skb(skb);	/* RoCE v2 for another device: nobody else here */
	return 0;
}

/* ---- QP1 ---- */

int scenic_gsi_create_qp(struct scenic_rdma_dev *sdev, struct scenic_rdma_qp *qp,
			 struct ib_qp_init_attr *init)
{
	struct scenic_gsi_qp *gsi;

	if (!sdev->gsi_ok) {
		ibdev_dbg(&sdev->ibdev, "create_qp: no UDP socket for QP1\n");
		return -EOPNOTSUPP;
	}
	if (init->create_flags || init->srq || !init->send_cq ||
	    !init->recv_cq || !to_scq(init->send_cq)->sw ||
	    !to_scq(init->recv_cq)->sw || init->port_num > SCENIC_RDMA_PORT ||
	    init->cap.max_send_wr > SCENIC_GSI_MAX_WR ||
	    init->cap.max_recv_wr > SCENIC_GSI_MAX_WR ||
	    init->cap.max_send_sge > SCENIC_GSI_MAX_SGE ||
	    init->cap.max_recv_sge > SCENIC_GSI_MAX_SGE ||
	    init->cap.max_inline_data)
		return -EINVAL;

	gsi = kzalloc(sizeof(*gsi), GFP_KERNEL);
	if (!gsi)
		return -ENOMEM;
	gsi->rq_entries = max_t(u32, init->cap.max_recv_wr, 1);
	gsi->rq = kvcalloc(gsi->rq_entries, sizeof(*gsi->rq), GFP_KERNEL);
	if (!gsi->rq) {
		kfree(gsi);
		return -ENOMEM;
	}
	gsi->sdev = sdev;
	gsi->qp = qp;
	gsi->state = IB_QPS_RESET;
	spin_lock_init(&gsi->rq_lock);
	spin_lock_init(&gsi->sq_lock);
	INIT_LIST_HEAD(&gsi->sq_list);
	INIT_WORK(&gsi->tx_work, scenic_gsi_tx_work);

	mutex_lock(&scenic_gsi_lock);
	if (rcu_access_pointer(sdev->gsi)) {
		mutex_unlock(&scenic_gsi_lock);
		kvfree(gsi->rq);
		kfree(gsi);
		return -EBUSY;
	}
	qp->gsi = gsi;
	qp->qpn = SCENIC_GSI_QPN;
	qp->ibqp.qp_num = SCENIC_GSI_QPN;
	init->cap.max_recv_wr = gsi->rq_entries;
	init->cap.max_inline_data = 0;
	qp->cap = init->cap;
	qp->sq_sig_type = init->sq_sig_type;
	qp->attr.qp_state = IB_QPS_RESET;
	mutex_init(&qp->lock);
	rcu_assign_pointer(sdev->gsi, gsi);
	mutex_unlock(&scenic_gsi_lock);
	return 0;
}

/* Drops every queued send and receive; ERR: flush completions for both. */
static void scenic_gsi_flush(struct scenic_gsi_qp *gsi, bool complete)
{
	struct ib_qp *ibqp = &gsi->qp->ibqp;
	struct scenic_gsi_send *s, *tmp;
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = ibqp,
	};
	unsigned long flags;
	LIST_HEAD(sends);

	spin_lock_irqsave(&gsi->rq_lock, flags);
	while (gsi->rq_count) {
		wc.wr_id = gsi->rq[gsi->rq_head].wr_id;
		gsi->rq_head = (gsi->rq_head + 1) % gsi->rq_entries;
		gsi->rq_count--;
		if (complete)
			scenic_sw_cq_post(to_scq(ibqp->recv_cq), &wc, false);
	}
	gsi->rq_head = 0;
	spin_unlock_irqrestore(&gsi->rq_lock, flags);

	spin_lock_irqsave(&gsi->sq_lock, flags);
	list_splice_init(&gsi->sq_list, &sends);
	spin_unlock_irqrestore(&gsi->sq_lock, flags);
	list_for_each_entry_safe(s, tmp, &sends, list) {
		list_del(&s->list);
		if (complete) {
			scenic_gsi_complete_send(gsi, s, IB_WC_WR_FLUSH_ERR);
		} else {
			spin_lock_irqsave(&gsi->sq_lock, flags);
			gsi->sq_used--;
			spin_unlock_irqrestore(&gsi->sq_lock, flags);
		}
		kfree(s);
	}
}

static void scenic_gsi_set_state(struct scenic_gsi_qp *gsi,
				 enum ib_qp_state state)
{
	unsigned long flags, flags2;

	spin_lock_irqsave(&gsi->sq_lock, flags);
	spin_lock_irqsave(&gsi->rq_lock, flags2);
	WRITE_ONCE(gsi->state, state);
	spin_unlock_irqrestore(&gsi->rq_lock, flags2);
	spin_unlock_irqrestore(&gsi->sq_lock, flags);
}

void scenic_gsi_destroy_qp(struct scenic_rdma_dev *sdev,
			   struct scenic_rdma_qp *qp)
{
	struct scenic_gsi_qp *gsi = qp->gsi;

	mutex_lock(&scenic_gsi_lock);
	RCU_INIT_POINTER(sdev->gsi, NULL);
	mutex_unlock(&scenic_gsi_lock);
	synchronize_net();	/* the receive path no longer sees it */
	scenic_gsi_set_state(gsi, IB_QPS_RESET);
	cancel_work_sync(&gsi->tx_work);
	scenic_gsi_flush(gsi, false);
	kvfree(gsi->rq);
	kfree(gsi);
	qp->gsi = NULL;
	mutex_destroy(&qp->lock);
}

#define SCENIC_GSI_MODIFY_MASK (IB_QP_STATE | IB_QP_CUR_STATE |	\
	IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY | IB_QP_SQ_PSN)

int scenic_gsi_modify_qp(struct scenic_rdma_dev *sdev, struct scenic_rdma_qp *qp,
			 struct ib_qp_attr *attr, int mask)
{
	struct scenic_gsi_qp *gsi = qp->gsi;
	enum ib_qp_state cur, next;
	unsigned long flags;
	int err = 0;

	if ((mask & ~SCENIC_GSI_MODIFY_MASK) ||
	    ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index) ||
	    ((mask & IB_QP_PORT) && attr->port_num != SCENIC_RDMA_PORT)) {
		ibdev_dbg(&sdev->ibdev, "modify_qp 1: mask 0x%x not supported\n",
			  mask);
		return -EINVAL;
	}
	mutex_lock(&qp->lock);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : gsi->state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (!ib_modify_qp_is_ok(cur, next, IB_QPT_GSI, mask)) {
		ibdev_dbg(&sdev->ibdev, "modify_qp 1: invalid transition %d -> %d with mask 0x%x\n",
			  cur, next, mask);
		err = -EINVAL;
		goto out;
	}
	if (mask & IB_QP_QKEY) {
		gsi->qkey = attr->qkey;
		qp->attr.qkey = attr->qkey;
	}
	if (mask & IB_QP_SQ_PSN) {
		spin_lock_irqsave(&gsi->sq_lock, flags);
		gsi->psn = attr->sq_psn & SCENIC_QPN_MASK;
		spin_unlock_irqrestore(&gsi->sq_lock, flags);
		qp->attr.sq_psn = gsi->psn;
	}
	if (mask & IB_QP_STATE) {
		scenic_gsi_set_state(gsi, next);
		qp->attr.qp_state = next;
		if (next == IB_QPS_ERR || next == IB_QPS_RESET) {
			cancel_work_sync(&gsi->tx_work);
			scenic_gsi_flush(gsi, next == IB_QPS_ERR);
		}
	}
out:
	mutex_unlock(&qp->lock);
	return err;
}

int scenic_gsi_query_qp(struct scenic_rdma_qp *qp, struct ib_qp_attr *attr,
			int mask, struct ib_qp_init_attr *init)
{
	struct scenic_gsi_qp *gsi = qp->gsi;

	memset(attr, 0, sizeof(*attr));
	mutex_lock(&qp->lock);
	attr->qp_state = gsi->state;
	attr->cur_qp_state = gsi->state;
	attr->qkey = gsi->qkey;
	attr->sq_psn = READ_ONCE(gsi->psn);
	mutex_unlock(&qp->lock);
	attr->port_num = SCENIC_RDMA_PORT;
	attr->pkey_index = 0;
	attr->path_mtu = IB_MTU_256;
	attr->cap = qp->cap;

	memset(init, 0, sizeof(*init));
	init->qp_type = IB_QPT_GSI;
	init->send_cq = qp->ibqp.send_cq;
	init->recv_cq = qp->ibqp.recv_cq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->port_num = SCENIC_RDMA_PORT;
	return 0;
}

/* ---- the UDP socket ---- */

static int scenic_gsi_sock_get(void)
{
	struct udp_tunnel_sock_cfg tnl = {};
	struct udp_port_cfg cfg = {};
	struct socket *sock;
	int err;

	if (scenic_gsi_users) {
		scenic_gsi_users++;
		return 0;
	}
	cfg.family = AF_INET;
	cfg.local_udp_port = htons(SCENIC_ROCE_UDP_PORT);
	err = udp_sock_create(&init_net, &cfg, &sock);
	if (err)
		return err;
	tnl.encap_type = 1;
	tnl.encap_rcv = scenic_gsi_udp_rcv;
	setup_udp_tunnel_sock(&init_net, sock, &tnl);
	scenic_gsi_sock = sock;
	scenic_gsi_users = 1;
	return 0;
}

static void scenic_gsi_sock_put(void)
{
	if (--scenic_gsi_users)
		return;
	udp_tunnel_sock_release(scenic_gsi_sock);
	scenic_gsi_sock = NULL;
}

/*
 * Before registration: the UDP socket (shared by every SCENIC device).
 * Without it (rxe holds port 4791, say) the device works without QP1 and
 * without IB_PORT_CM_SUP.
 */
void scenic_gsi_init(struct scenic_rdma_dev *sdev)
{
	int err;

	INIT_LIST_HEAD(&sdev->gsi_node);
	RCU_INIT_POINTER(sdev->gsi, NULL);
	mutex_lock(&scenic_gsi_lock);
	err = scenic_gsi_sock_get();
	if (!err) {
		list_add_tail_rcu(&sdev->gsi_node, &scenic_gsi_devs);
		sdev->gsi_ok = true;
	}
	mutex_unlock(&scenic_gsi_lock);
	if (err)
		dev_warn(&sdev->sadev->adev.dev, "cannot open UDP port %u for QP1 (%d; rdma_rxe loaded?): no rdma_cm on this device\n",
			 SCENIC_ROCE_UDP_PORT, err);
}

/* After unregistration (QP1 is gone). */
void scenic_gsi_fini(struct scenic_rdma_dev *sdev)
{
	if (!sdev->gsi_ok)
		return;
	mutex_lock(&scenic_gsi_lock);
	list_del_rcu(&sdev->gsi_node);
	scenic_gsi_sock_put();	/* waits for the receive path */
	mutex_unlock(&scenic_gsi_lock);
	synchronize_net();
	sdev->gsi_ok = false;
}
