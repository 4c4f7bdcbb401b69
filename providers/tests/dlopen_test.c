// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Loads the built provider the way libibverbs does (dlopen, RTLD_NOW) into a
 * process linked with Debian's libibverbs.so.1: every symbol must resolve
 * against IBVERBS_PRIVATE_34 and the constructor registers the driver (run
 * under LD_DEBUG=bindings, test.sh checks that binding). Then checks the
 * exports: scenicdv_create_qp_ex visible, the provider's ops table not.
 *
 *   dlopen_test /path/libscenic-rdmav34.so
 */
#include <dlfcn.h>
#include <stdio.h>

#include <infiniband/verbs.h>

int main(int argc, char **argv)
{
	struct ibv_device **list;
	void *h;
	int n;

	if (argc != 2) {
		fprintf(stderr, "usage: %s LIB\n", argv[0]);
		return 2;
	}
	/* make libibverbs initialise itself first, as when it loads providers */
	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);

	h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		printf("dlopen failed: %s\n", dlerror());
		return 1;
	}
	if (!dlsym(h, "scenicdv_create_qp_ex")) {
		printf("scenicdv_create_qp_ex not exported\n");
		return 1;
	}
	if (dlsym(h, "verbs_provider_scenic")) {
		printf("verbs_provider_scenic exported (the map should hide it)\n");
		return 1;
	}
	printf("loaded\n");
	return 0;
}
