// SPDX-License-Identifier: MIT
// scenic_prefilter: sources, relative to hw-rtl/, in dependency order
rtl/scenic_prefilter_class.sv
rtl/scenic_prefilter.sv
