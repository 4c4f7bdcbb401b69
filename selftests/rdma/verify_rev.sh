#!/bin/sh
# SPDX-License-Identifier: MIT
# verify.sh with the roles swapped: node 1 serves, node 2 runs the tests (with rxe on node 2 in
# the interop boot: rxe gathers and scatters towards SCENIC).
SWAP=1 exec sh "$(dirname "$0")/verify.sh" "$@"
