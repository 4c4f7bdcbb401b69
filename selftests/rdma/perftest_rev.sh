#!/bin/sh
# SPDX-License-Identifier: MIT
# perftest.sh with the roles swapped: node 1 serves, node 2 is the client.
SWAP=1 exec sh "$(dirname "$0")/perftest.sh" "$@"
