// SPDX-License-Identifier: GPL-2.0-only
/*
 * A slot's status page (docs/scu.md 4.4): one coherent page per slot that
 * the card writes (SCU_SET_STATUS_PAGE), COUNTERS after SCU_FLUSH_STATS,
 * read under the page's seq.
 */
#include <linux/dma-mapping.h>
#include <linux/uaccess.h>

#include "scenic_scu_drv.h"

/* Tries to find the traffic counters between two of the card's rewrites. */
#define SCU_SEQ_TRIES 1000

static int scu_set_status_page(struct scenic_scu_slot *slot, dma_addr_t dma)
{
	struct scenic_aq_scu_set_status_page cmd = {
		.hdr.opcode = SCENIC_AQ_OP_SCU_SET_STATUS_PAGE,
		.slot = slot->index,
		.page_addr = cpu_to_le64(dma),
	};

	return scenic_aq_exec(slot->card->sadev->core, &cmd, sizeof(cmd), NULL, 0);
}

int scenic_scu_status_init(struct scenic_scu_card *card)
{
	struct device *ddev = &card->sadev->pdev->dev;
	unsigned int i;
	int err;

	for (i = 0; i < card->num_slots; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];

		slot->status_page = dma_alloc_coherent(ddev, PAGE_SIZE,
						       &slot->status_dma,
						       GFP_KERNEL);
		if (!slot->status_page) {
			err = -ENOMEM;
			goto err;
		}
		err = scu_set_status_page(slot, slot->status_dma);
		if (err == -EOPNOTSUPP || err == -EINVAL) {
			/* a card without status pages: COUNTERS says EOPNOTSUPP */
			dma_free_coherent(ddev, PAGE_SIZE, slot->status_page,
					  slot->status_dma);
			slot->status_page = NULL;
			continue;
		}
		if (err)
			goto err;
	}
	return 0;
err:
	scenic_scu_status_fini(card);
	return err;
}

void scenic_scu_status_fini(struct scenic_scu_card *card)
{
	struct device *ddev = &card->sadev->pdev->dev;
	unsigned int i;

	for (i = 0; i < card->num_slots; i++) {
		struct scenic_scu_slot *slot = &card->slots[i];

		if (!slot->status_page)
			continue;
		/* the card must stop writing before the page goes (no-op on a dead card) */
		if (!READ_ONCE(card->dead))
			scu_set_status_page(slot, 0);
		dma_free_coherent(ddev, PAGE_SIZE, slot->status_page,
				  slot->status_dma);
		slot->status_page = NULL;
	}
}

/* Caller holds card->rwsem for reading and checked scenic_scu_card_usable(). */
int scenic_scu_ioctl_counters(struct scenic_scu_slot *slot, void __user *arg)
{
	struct scenic_aq_scu_flush_stats cmd = {
		.hdr.opcode = SCENIC_AQ_OP_SCU_FLUSH_STATS,
		.slot = slot->index,
	};
	const struct scenic_scu_status_page *pg = slot->status_page;
	u64 v[ARRAY_SIZE(pg->completions) + ARRAY_SIZE(pg->counters)];
	struct scenic_scu_counters c;
	unsigned int i, n, tries;
	u64 seq;
	u32 usize;
	int err;

	BUILD_BUG_ON(ARRAY_SIZE(pg->completions) * 8 !=
		     offsetof(struct scenic_scu_counters, rx_pkts_in) -
		     offsetof(struct scenic_scu_counters, remote_write));
	BUILD_BUG_ON(ARRAY_SIZE(pg->counters) * 8 !=
		     sizeof(c) - offsetof(struct scenic_scu_counters, rx_pkts_in));
	BUILD_BUG_ON(sizeof(v) != sizeof(c) - offsetof(struct scenic_scu_counters,
						       remote_write));

	err = scenic_scu_copy_in(&c, sizeof(c), arg, &usize);
	if (err)
		return err;
	if (!pg)
		return -EOPNOTSUPP;
	err = scenic_aq_exec(slot->card->sadev->core, &cmd, sizeof(cmd), NULL, 0);
	if (err)
		return err;

	for (tries = 0; tries < SCU_SEQ_TRIES; tries++) {
		seq = le64_to_cpu(READ_ONCE(pg->seq));
		if (seq & 1) {
			cpu_relax();
			continue;
		}
		dma_rmb();
		n = 0;
		for (i = 0; i < ARRAY_SIZE(pg->completions); i++)
			v[n++] = le64_to_cpu(READ_ONCE(pg->completions[i]));
		for (i = 0; i < ARRAY_SIZE(pg->counters); i++)
			v[n++] = le64_to_cpu(READ_ONCE(pg->counters[i]));
		dma_rmb();
		if (le64_to_cpu(READ_ONCE(pg->seq)) == seq)
			break;
	}
	if (tries == SCU_SEQ_TRIES)
		return -EIO;
	/* the status page's order is the struct's (uapi/scenic_scu.h) */
	memcpy((u8 *)&c + offsetof(struct scenic_scu_counters, remote_write), v,
	       sizeof(v));
	c.size = usize;
	return scenic_scu_copy_out(arg, &c, sizeof(c), usize);
}
