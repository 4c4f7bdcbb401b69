// SPDX-License-Identifier: GPL-2.0-only
/*
 * sysfs of a slot, /sys/class/scenic_scu/scenic<c>!scu<n>/ (docs/scu.md 4.5):
 * what runs there, read from the card at each read.
 */
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "scenic_scu_drv.h"

static const char * const scu_state_names[] = {
	[SCENIC_SCU_STATE_RUNNING] = "running",
	[SCENIC_SCU_STATE_DRAINING] = "draining",
	[SCENIC_SCU_STATE_LOADING] = "loading",
	[SCENIC_SCU_STATE_FAILED] = "failed",
};

enum scu_attr {
	SCU_ATTR_STATE,
	SCU_ATTR_KIND,
	SCU_ATTR_NAME,
	SCU_ATTR_BUILD_ID,
	SCU_ATTR_IFACE_VERSION,
	SCU_ATTR_IMAGE_SHA256,
	SCU_ATTR_LOADS,
	SCU_ATTR_LAST_PAUSE_NS,
	SCU_ATTR_OWNED,
};

static ssize_t scu_show(struct device *dev, char *buf, enum scu_attr which)
{
	struct scenic_scu_slot *slot = dev_get_drvdata(dev);
	struct scenic_scu_card *card = slot->card;
	struct scenic_scu_info *info;
	ssize_t ret;
	int err;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	down_read(&card->rwsem);
	err = scenic_scu_card_usable(card) ?
	      scenic_scu_fill_info(slot, NULL, info) : -ENODEV;
	up_read(&card->rwsem);
	if (err) {
		ret = err;
		goto out;
	}

	switch (which) {
	case SCU_ATTR_STATE:
		ret = sysfs_emit(buf, "%s\n", info->state < ARRAY_SIZE(scu_state_names) ?
				 scu_state_names[info->state] : "unknown");
		break;
	case SCU_ATTR_KIND:
		ret = sysfs_emit(buf, "0x%x %u\n", info->kind, info->kind_version);
		break;
	case SCU_ATTR_NAME:
		ret = sysfs_emit(buf, "%.*s\n", SCENIC_SCU_NAME_LEN, info->name);
		break;
	case SCU_ATTR_BUILD_ID:
		ret = sysfs_emit(buf, "%016llx\n", info->build_id);
		break;
	case SCU_ATTR_IFACE_VERSION:
		ret = sysfs_emit(buf, "%u.%u\n", info->iface_version >> 16,
				 info->iface_version & 0xffff);
		break;
	case SCU_ATTR_IMAGE_SHA256:
		ret = sysfs_emit(buf, "%*phN\n", SCENIC_SCU_SHA256_LEN,
				 info->image_sha256);
		break;
	case SCU_ATTR_LOADS:
		ret = sysfs_emit(buf, "%llu\n", info->loads);
		break;
	case SCU_ATTR_LAST_PAUSE_NS:
		ret = sysfs_emit(buf, "%llu\n", info->last_pause_ns);
		break;
	case SCU_ATTR_OWNED:
		ret = sysfs_emit(buf, "%d\n",
				 !!(info->flags & SCENIC_SCU_INFO_OWNED));
		break;
	default:
		ret = -EINVAL;
	}
out:
	kfree(info);
	return ret;
}

#define SCU_ATTR(_name, _which)						\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *buf)	\
{									\
	return scu_show(dev, buf, _which);				\
}									\
static DEVICE_ATTR_RO(_name)

SCU_ATTR(state, SCU_ATTR_STATE);
SCU_ATTR(kind, SCU_ATTR_KIND);
SCU_ATTR(name, SCU_ATTR_NAME);
SCU_ATTR(build_id, SCU_ATTR_BUILD_ID);
SCU_ATTR(iface_version, SCU_ATTR_IFACE_VERSION);
SCU_ATTR(image_sha256, SCU_ATTR_IMAGE_SHA256);
SCU_ATTR(loads, SCU_ATTR_LOADS);
SCU_ATTR(last_pause_ns, SCU_ATTR_LAST_PAUSE_NS);
SCU_ATTR(owned, SCU_ATTR_OWNED);

/* The driver's record of the slot's rules: no admin command is needed. */
static ssize_t steering_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct scenic_scu_slot *slot = dev_get_drvdata(dev);
	struct scenic_scu_card *card = slot->card;
	ssize_t ret;

	down_read(&card->rwsem);
	ret = scenic_scu_card_usable(card) ?
	      scenic_scu_steer_show(slot, buf) : -ENODEV;
	up_read(&card->rwsem);
	return ret;
}
static DEVICE_ATTR_RO(steering);

static struct attribute *scenic_scu_slot_attrs[] = {
	&dev_attr_state.attr,
	&dev_attr_kind.attr,
	&dev_attr_name.attr,
	&dev_attr_build_id.attr,
	&dev_attr_iface_version.attr,
	&dev_attr_image_sha256.attr,
	&dev_attr_loads.attr,
	&dev_attr_last_pause_ns.attr,
	&dev_attr_owned.attr,
	&dev_attr_steering.attr,
	NULL,
};

static const struct attribute_group scenic_scu_slot_group = {
	.attrs = scenic_scu_slot_attrs,
};

const struct attribute_group *scenic_scu_slot_groups[] = {
	&scenic_scu_slot_group,
	NULL,
};
