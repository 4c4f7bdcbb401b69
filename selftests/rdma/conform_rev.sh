#!/bin/sh
# SPDX-License-Identifier: MIT
# conform.sh with the roles swapped: node 1 serves, node 2 is the client.
SWAP=1 exec sh "$(dirname "$0")/conform.sh" "$@"
