// SPDX-License-Identifier: GPL-2.0-only
/*
 * SCENIC SmartNIC: devlink. `devlink dev info pci/<bdf>` shows the driver,
 * the board (CORE.ID.platform) and the running bitstream (CORE.BUILD_ID);
 * `devlink dev reload pci/<bdf>` (action driver_reinit) recovers the card
 * as after a fault (scenic_health.c). The health reporter "card" is created
 * by scenic_health.c.
 */

#include <net/devlink.h>

#include "scenic.h"

static int scenic_devlink_info_get(struct devlink *devlink,
				   struct devlink_info_req *req,
				   struct netlink_ext_ack *extack)
{
	struct scenic_dev *sdev = devlink_priv(devlink);
	char buf[32];
	int err, f;

#ifdef SCENIC_HAVE_DEVLINK_INFO_DRIVER_NAME_PUT
	/* Up to 6.1; later kernels report the driver name themselves. */
	err = devlink_info_driver_name_put(req, SCENIC_DRV_NAME);
	if (err)
		return err;
#endif

	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_BOARD_ID,
					     scenic_platform_name(sdev->id));
	if (err)
		return err;

	snprintf(buf, sizeof(buf), "%08x", sdev->build_id);
	err = devlink_info_version_running_put(req,
					       DEVLINK_INFO_VERSION_GENERIC_FW,
					       buf);
	if (err)
		return err;

	mutex_lock(&sdev->info_lock);
	for (f = 0; f < SCENIC_NUM_FUNCS && !err; f++)
		if (sdev->info_fn[f])
			err = sdev->info_fn[f](sdev->info_priv[f], req);
	mutex_unlock(&sdev->info_lock);
	return err;
}

int scenic_aux_devlink_info_register(struct scenic_aux_dev *sadev,
				     scenic_aux_devlink_info_fn fn, void *priv)
{
	struct scenic_dev *sdev = sadev->core;
	int f = scenic_aux_func_of(sadev);

	if (f < 0)
		return f;
	mutex_lock(&sdev->info_lock);
	sdev->info_fn[f] = fn;
	sdev->info_priv[f] = priv;
	mutex_unlock(&sdev->info_lock);
	return 0;
}
EXPORT_SYMBOL_GPL(scenic_aux_devlink_info_register);

void scenic_aux_devlink_info_unregister(struct scenic_aux_dev *sadev)
{
	struct scenic_dev *sdev = sadev->core;
	int f = scenic_aux_func_of(sadev);

	if (f < 0)
		return;
	mutex_lock(&sdev->info_lock);
	sdev->info_fn[f] = NULL;
	sdev->info_priv[f] = NULL;
	mutex_unlock(&sdev->info_lock);
}
EXPORT_SYMBOL_GPL(scenic_aux_devlink_info_unregister);

static int scenic_devlink_reload_down(struct devlink *devlink,
				      bool netns_change,
				      enum devlink_reload_action action,
				      enum devlink_reload_limit limit,
				      struct netlink_ext_ack *extack)
{
	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack, "moving the card to another namespace is not supported");
		return -EOPNOTSUPP;
	}
	if (action != DEVLINK_RELOAD_ACTION_DRIVER_REINIT)
		return -EOPNOTSUPP;
	return scenic_health_reload_down(devlink_priv(devlink), extack);
}

static int scenic_devlink_reload_up(struct devlink *devlink,
				    enum devlink_reload_action action,
				    enum devlink_reload_limit limit,
				    u32 *actions_performed,
				    struct netlink_ext_ack *extack)
{
	int err;

	err = scenic_health_reload_up(devlink_priv(devlink), extack);
	if (!err)
		*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	return err;
}

static const struct devlink_ops scenic_devlink_ops = {
	.info_get = scenic_devlink_info_get,
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = scenic_devlink_reload_down,
	.reload_up = scenic_devlink_reload_up,
};

/* The card's state lives in the devlink private area. */
struct scenic_dev *scenic_devlink_alloc(struct pci_dev *pdev)
{
	struct scenic_dev *sdev;
	struct devlink *devlink;

	devlink = devlink_alloc(&scenic_devlink_ops, sizeof(*sdev), &pdev->dev);
	if (!devlink)
		return NULL;
	sdev = devlink_priv(devlink);
	sdev->devlink = devlink;
	sdev->pdev = pdev;
	mutex_init(&sdev->info_lock);
	return sdev;
}

void scenic_devlink_register(struct scenic_dev *sdev)
{
#ifdef SCENIC_HAVE_DEVLINK_SET_FEATURES
	/* up to 6.2 reload must be enabled; later kernels allow it always */
	devlink_set_features(sdev->devlink, DEVLINK_F_RELOAD);
#endif
	devlink_register(sdev->devlink);
}

void scenic_devlink_unregister(struct scenic_dev *sdev)
{
	devlink_unregister(sdev->devlink);
}

void scenic_devlink_free(struct scenic_dev *sdev)
{
	mutex_destroy(&sdev->info_lock);
	devlink_free(sdev->devlink);
}
