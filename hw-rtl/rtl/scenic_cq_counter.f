// SPDX-License-Identifier: MIT
// scenic_cq_counter: sources, relative to hw-rtl/, in dependency order
rtl/scenic_cq_counter.sv
