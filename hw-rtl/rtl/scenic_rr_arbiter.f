// SPDX-License-Identifier: MIT
// scenic_rr_arbiter: sources, relative to hw-rtl/, in dependency order
rtl/scenic_rr_arbiter.sv
