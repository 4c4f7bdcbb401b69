// SPDX-License-Identifier: GPL-2.0-only
/*
 * Steering rules (docs/scu.md 3, 4.2): STEER_ADD / STEER_DEL for the slot's
 * owner with CAP_NET_ADMIN, sent as SCU_STEER_ADD / SCU_STEER_DEL, and the
 * driver's record of the card's table for INFO and sysfs `steering` (the card
 * has no command that lists it).
 */
#include <linux/capability.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "scenic_scu_drv.h"

#define SCU_STEER_FLAGS (SCENIC_SCU_STEER_DIR_RX | SCENIC_SCU_STEER_DIR_TX | \
			 SCENIC_SCU_STEER_IPV6)

void scenic_scu_steer_init(struct scenic_scu_card *card)
{
	mutex_init(&card->steer_lock);
	/* SCU.STEER_RULES reads 0 on a card without the table */
	card->steer_max = card->v1_2 ?
		min_t(u32, ioread32(card->blk->base + SCENIC_SCU_STEER_RULES),
		      SCENIC_SCU_MAX_STEER) : 0;
}

/* The card dropped the slot's rules (an UNLOAD it accepted). */
void scenic_scu_steer_forget(struct scenic_scu_slot *slot)
{
	struct scenic_scu_card *card = slot->card;
	unsigned int i;

	mutex_lock(&card->steer_lock);
	for (i = 0; i < card->steer_max; i++)
		if (card->steer[i].used && card->steer[i].slot == slot->index)
			card->steer[i].used = false;
	mutex_unlock(&card->steer_lock);
}

u32 scenic_scu_steer_used(struct scenic_scu_slot *slot)
{
	struct scenic_scu_card *card = slot->card;
	unsigned int i;
	u32 n = 0;

	mutex_lock(&card->steer_lock);
	for (i = 0; i < card->steer_max; i++)
		n += card->steer[i].used && card->steer[i].slot == slot->index;
	mutex_unlock(&card->steer_lock);
	return n;
}

/* Caller holds card->rwsem for reading and checked scenic_scu_card_usable(). */
int scenic_scu_ioctl_steer_add(struct scenic_scu_slot *slot, void __user *arg)
{
	struct scenic_scu_card *card = slot->card;
	struct scenic_aq_scu_steer_add cmd = {
		.hdr.opcode = SCENIC_AQ_OP_SCU_STEER_ADD,
	};
	struct scenic_acq_scu_steer_add res = {};
	struct scenic_scu_steer_rule r;
	u32 usize, id;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = scenic_scu_copy_in(&r, sizeof(r), arg, &usize);
	if (err)
		return err;
	if (r.flags & ~SCU_STEER_FLAGS ||
	    !(r.flags & (SCENIC_SCU_STEER_DIR_RX | SCENIC_SCU_STEER_DIR_TX)))
		return -EINVAL;
	if (!card->steer_max)
		return -EOPNOTSUPP;

	cmd.flags = cpu_to_le32(r.flags);
	cmd.priority = cpu_to_le16(r.priority);
	cmd.ethertype = cpu_to_le16(r.ethertype);
	cmd.ethertype_mask = cpu_to_le16(r.ethertype_mask);
	cmd.ip_proto = r.ip_proto;
	cmd.ip_proto_mask = r.ip_proto_mask;
	cmd.src_port = cpu_to_le16(r.src_port);
	cmd.src_port_mask = cpu_to_le16(r.src_port_mask);
	cmd.dst_port = cpu_to_le16(r.dst_port);
	cmd.dst_port_mask = cpu_to_le16(r.dst_port_mask);
	memcpy(cmd.src_ip, r.src_ip, sizeof(cmd.src_ip));
	memcpy(cmd.src_ip_mask, r.src_ip_mask, sizeof(cmd.src_ip_mask));
	memcpy(cmd.dst_ip, r.dst_ip, sizeof(cmd.dst_ip));
	memcpy(cmd.dst_ip_mask, r.dst_ip_mask, sizeof(cmd.dst_ip_mask));
	cmd.slot = slot->index;

	/* the lock keeps the record in the card's order of adds and deletes */
	mutex_lock(&card->steer_lock);
	err = scenic_aq_exec(card->sadev->core, &cmd, sizeof(cmd), &res,
			     sizeof(res));
	id = le32_to_cpu(res.rule_id);
	if (!err && id >= card->steer_max)
		err = -EIO;	/* the card broke its own STEER_RULES */
	if (!err) {
		card->steer[id].used = true;
		card->steer[id].slot = slot->index;
		card->steer[id].rule = r;
		card->steer[id].rule.rule_id = id;
	}
	mutex_unlock(&card->steer_lock);
	if (err) {
		dev_dbg(slot->dev, "SCU_STEER_ADD refused: %d\n", err);
		/* BAD_ARG: a rule the card refuses; NO_RESOURCES: the table is full */
		return err == -ENOMEM ? -ENOSPC : err;
	}
	r.rule_id = id;
	r.size = usize;
	return scenic_scu_copy_out(arg, &r, sizeof(r), usize);
}

/* Caller holds card->rwsem for reading and checked scenic_scu_card_usable(). */
int scenic_scu_ioctl_steer_del(struct scenic_scu_slot *slot, void __user *arg)
{
	struct scenic_scu_card *card = slot->card;
	struct scenic_aq_scu_steer_del cmd = {
		.hdr.opcode = SCENIC_AQ_OP_SCU_STEER_DEL,
		.slot = slot->index,
	};
	struct scenic_scu_steer_del d;
	u32 usize;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = scenic_scu_copy_in(&d, sizeof(d), arg, &usize);
	if (err)
		return err;
	if (memchr_inv(d.reserved_60, 0, sizeof(d.reserved_60)))
		return -EINVAL;
	if (!card->steer_max)
		return -EOPNOTSUPP;

	mutex_lock(&card->steer_lock);
	/* only this slot's rules: the card checks it too */
	if (d.rule_id >= card->steer_max || !card->steer[d.rule_id].used ||
	    card->steer[d.rule_id].slot != slot->index) {
		err = -ENOENT;
	} else {
		cmd.rule_id = cpu_to_le32(d.rule_id);
		err = scenic_aq_exec(card->sadev->core, &cmd, sizeof(cmd),
				     NULL, 0);
		if (!err)
			card->steer[d.rule_id].used = false;
	}
	mutex_unlock(&card->steer_lock);
	return err;
}

static int scu_steer_addr(char *buf, int len, const char *what, bool v6,
			  const u8 *ip, const u8 *mask)
{
	if (!memchr_inv(mask, 0, v6 ? 16 : 4))
		return 0;
	if (v6)
		return scnprintf(buf + len, PAGE_SIZE - len, " %s %pI6c/%pI6c",
				 what, ip, mask);
	return scnprintf(buf + len, PAGE_SIZE - len, " %s %pI4/%pI4", what, ip,
			 mask);
}

/* sysfs `steering`: one rule a line, wildcards left out. */
ssize_t scenic_scu_steer_show(struct scenic_scu_slot *slot, char *buf)
{
	struct scenic_scu_card *card = slot->card;
	static const char * const dirs[] = { "none", "rx", "tx", "both" };
	unsigned int i;
	int len = 0;

	mutex_lock(&card->steer_lock);
	for (i = 0; i < card->steer_max; i++) {
		const struct scenic_scu_steer_rule *r = &card->steer[i].rule;
		bool v6 = r->flags & SCENIC_SCU_STEER_IPV6;

		if (!card->steer[i].used || card->steer[i].slot != slot->index)
			continue;
		len += scnprintf(buf + len, PAGE_SIZE - len,
				 "%u dir %s priority %u", i, dirs[r->flags & 3],
				 r->priority);
		if (r->ethertype_mask)
			len += scnprintf(buf + len, PAGE_SIZE - len,
					 " ethertype 0x%04x/0x%04x",
					 r->ethertype, r->ethertype_mask);
		if (r->ip_proto_mask)
			len += scnprintf(buf + len, PAGE_SIZE - len,
					 " ip-proto %u/0x%02x", r->ip_proto,
					 r->ip_proto_mask);
		len += scu_steer_addr(buf, len, "src-ip", v6, r->src_ip,
				      r->src_ip_mask);
		len += scu_steer_addr(buf, len, "dst-ip", v6, r->dst_ip,
				      r->dst_ip_mask);
		if (r->src_port_mask)
			len += scnprintf(buf + len, PAGE_SIZE - len,
					 " src-port %u/0x%04x", r->src_port,
					 r->src_port_mask);
		if (r->dst_port_mask)
			len += scnprintf(buf + len, PAGE_SIZE - len,
					 " dst-port %u/0x%04x", r->dst_port,
					 r->dst_port_mask);
		len += scnprintf(buf + len, PAGE_SIZE - len, "\n");
	}
	mutex_unlock(&card->steer_lock);
	return len;
}
